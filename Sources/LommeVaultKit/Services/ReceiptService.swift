import Glibc
import LommeCore

/// Receipts: the child's device makes one for the last sealed code it imported
/// (`lomme-vault receipt`), and the parent checks it (`child confirm`): that child's
/// device holds that code. A receipt for an older code, from another device or for
/// another parent is refused (exit 7) and changes nothing.
package struct ReceiptService {
    package let context: VaultContext
    package let unlock: UnlockOptions

    package init(_ context: VaultContext, _ unlock: UnlockOptions) {
        self.context = context
        self.unlock = unlock
    }

    func open() throws(LommeError) -> OpenedVault {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "there is no vault at \(store.path); create one with `lomme-vault init`")
        }
        return try Session.open(context, unlock)
    }

    // MARK: - The child's side

    /// A receipt: its text, when the code it names was issued, and by which issuer.
    package typealias Made = (text: String, issued: Int64, issuer: String)

    /// The receipt's text for the last sealed code this vault imported.
    package func make() throws(LommeError) -> Made {
        try Self.make(from: open().contents)
    }

    /// The receipt for the last sealed code `contents` imported: `receipt`, or `import`
    /// with the vault it has opened already (one unlock for the whole command).
    package static func make(from contents: VaultContents) throws(LommeError) -> Made {
        guard let identity = contents.identity, let last = identity.lastEnvelope else {
            throw LommeError(.notFound, .receiptNothingToName, "no sealed code was imported into this vault, so there is nothing to make a receipt for; import the code the parent issued first")
        }
        guard case .sealed(let issuer)? = contents.source, issuer == last.issuer ?? issuer else {
            throw LommeError(.notFound, .receiptNothingToName, "the config stored here did not come from the last sealed code (a plain code or `set` replaced it), so a receipt would not be true; import a new sealed code first")
        }
        let text = try Receipt.make(for: last, device: identity.receiving)
        return (text, last.issuedMs / 1000, issuer.fingerprint)
    }

    // MARK: - The parent's side

    /// What a checked receipt confirmed.
    package struct Confirmation: Sendable {
        package var child: Child
        package var record: IssueRecord
        /// The receipt had been checked before: nothing was written.
        package var already: Bool
    }

    /// Checks `payload` as a receipt for the child's last handed-out code and records it.
    package func confirm(_ payload: ClassifiedPayload) throws(LommeError) -> Confirmation {
        guard case .receipt(let parsed, let problem) = payload.payload else {
            throw LommeError.refused(.receiptNotOne, "this QR code is not a receipt (\(payload.kind.what)); the child shows one with `lomme-vault receipt` after importing a sealed code")
        }
        guard let receipt = parsed else { throw problem ?? LommeError.refused(.receiptDamaged, "the receipt is damaged") }
        let opened = try open()
        var (child, record) = try check(receipt, in: opened.contents)
        if record.confirmed != nil { return Confirmation(child: child, record: record, already: true) }
        let now = Int64(time(nil))
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            (child, record) = try check(receipt, in: contents)  // again, under the write lock
            guard let (index, _) = contents.household.record(id: record.id) else { throw LommeError.failure(.recordChangedMeanwhile, "the record changed meanwhile; nothing changed") }
            // A receipt is proof the code reached the child, whatever the record said.
            contents.household.markHandedOut(id: record.id, at: now)
            contents.household.issued[index].confirmed = now
            record = contents.household.issued[index]
        }
        return Confirmation(child: child, record: record, already: false)
    }

    /// The child and record a receipt confirms, or why it is refused (exit 7).
    func check(_ receipt: Receipt, in contents: VaultContents) throws(LommeError) -> (Child, IssueRecord) {
        let household = contents.household
        guard let identity = contents.identity, let (position, record) = household.record(id: receipt.codeIdHex) else {
            throw LommeError.refused(.receiptUnknownCode, "this receipt names a code this vault did not issue (another household's, or one no longer in the record); nothing changed")
        }
        // A code another parent's machine issued (its record came by sync): only that machine's
        // issuer key opens the receipt, and its confirmation comes back here by sync.
        if let by = record.by, by != identity.issuerID {
            throw LommeError.refused(.receiptOtherParent, "this receipt is for a code \(household.machineName(by, me: identity.issuerID)) issued, not this machine; confirm it there (`lomme-vault child confirm PHOTO`), and `lomme-vault sync` brings the confirmation here; nothing changed")
        }
        guard let child = household.children.first(where: { $0.receivingKey.fingerprint == record.recipient }) else {
            throw LommeError.refused(.receiptNoChild, "this receipt names a code sealed to \(record.recipient), which is no child's receiving key now\(record.child.map { " (it was \($0)'s)" } ?? ""); nothing changed")
        }
        guard let credential = receipt.open(from: child.receivingKey, issuer: identity.signing) else {
            throw LommeError.refused(.receiptWrongDevice, "this receipt was not made by \(child.name)'s device for this machine (it does not open with their receiving key and this issuer's key); nothing changed")
        }
        guard Sodium.hex(credential) == record.credential else {
            throw LommeError.refused(.receiptWrongCredential, "this receipt names another credential than the code it names carried; nothing changed")
        }
        let index = Household.RecordIndex(household.issued)
        if let newest = index.last[record.recipient]?.handedOut, newest > position {
            let last = household.issued[newest]
            throw LommeError.refused(.receiptOlderCode, "this receipt is for an older code of \(child.name)'s (issued \(Instant(seconds: record.issued).shown)); their last code was issued \(Instant(seconds: last.issued).shown): ask them to import it and show the new receipt; nothing changed")
        }
        return (child, record)
    }
}
