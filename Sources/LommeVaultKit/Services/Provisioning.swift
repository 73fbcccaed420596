import LommeCore

/// "This vault has device keys": made when missing, then saved, in one place for `init`,
/// `import` into no vault, `issue --to` (the signing key) and `key`.
package struct Provisioning {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    /// `deviceIdentity(_:)` of the vault `options` open (`key` on a vault made before its keys).
    package func deviceIdentity(_ options: UnlockOptions) throws(LommeError) -> (identity: DeviceIdentity, made: Bool) {
        try Self.deviceIdentity(Session.open(context, options))
    }

    /// The device identity of `opened`; made and stored under the write lock when the vault
    /// has none. `made` is true when it was made now.
    package static func deviceIdentity(_ opened: OpenedVault) throws(LommeError) -> (identity: DeviceIdentity, made: Bool) {
        if let identity = opened.contents.identity { return (identity, false) }
        var made: DeviceIdentity?
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            made = contents.ensureDeviceIdentity()
        }
        guard let made else { throw LommeError.failure(.internalError, "the device keys could not be stored; nothing changed") }
        return (made, true)
    }

    /// The public keys in the vault's header, without opening it (a v2 vault): shown on a
    /// locked vault. Unauthenticated until the next open, whose key check covers them: a key
    /// swapped in the file makes that open fail (exit 5). With an unlocked session the check
    /// is made now. Nil for a version 1 file.
    package func publicKeys() throws(LommeError) -> VaultPublicKeys? {
        let sealed = try VaultFormat.parse(try context.store.read())
        guard let keys = sealed.publicKeys else { return nil }
        if let (master, _) = Session.fromKeyring(context, sealed, refresh: false) {
            _ = try VaultFormat.open(sealed, master: master)  // exit 5 when the header was changed
        }
        return keys
    }

    /// `init` refuses an existing vault before anything is made or asked: no recovery kit
    /// shown or written, no passphrase typed, for a vault that would then not be made.
    package func refuseExistingVault() throws(LommeError) {
        let store = context.store
        if store.exists {
            throw LommeError.failure(.vaultExists, "a vault already exists at \(store.path); init never overwrites one: use `lomme-vault passwd` to change its passphrase, or move it away first; nothing was made")
        }
    }

    /// A new vault holding `contents` and device keys, sealed under a new passphrase from
    /// `source` (asked twice through the interaction when it is the terminal). With
    /// `recovery`, the household key it derives vouches for this machine's issuer, and
    /// its recovery slot is in the vault from the first write.
    package func createVault(contents: VaultContents = VaultContents(), source: PassphraseSource,
                             noPrompt: Bool, refusal: String, recovery: RecoveryKey? = nil) throws(LommeError)
        -> (identity: DeviceIdentity, limits: KDFLimits, seconds: Double)
    {
        if noPrompt && source == .terminal {
            throw LommeError(.locked, .passphraseNeeded, refusal)
        }
        var contents = contents
        let identity = contents.ensureDeviceIdentity()
        if let recovery, contents.household.root == nil {
            // The household key and its first vouch, for this machine's issuer.
            contents.household.root = try RecoveryService.root(recovery, issuers: [identity.signing.publicKey.id], after: nil, seen: nil)
        }
        let made = try VaultActions.create(context, contents: contents, source: source, slots: recovery.map { [SlotKind.recoveryKit($0)] } ?? [])
        return (identity, made.limits, made.seconds)
    }
}
