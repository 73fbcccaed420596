@testable import LommeCore
import LommeTestSupport
import Testing

/// docs/SYNC.md, "Household files": a file sealed to several parents' machines opens with
/// each of their keys and with no other; any byte of it changed, or any part cut off, is
/// refused (exit 7); and the writer's signature inside binds the header — the kind and
/// the recipients — so a recipient who opens it cannot seal the same signed body to other
/// machines (or as another kind) and pass it off as the writer's.
@Suite("Household files: sealed to several machines, signed inside")
struct HouseholdFileSealTests {
    let writer = IssuerKeyPair.generate()
    let recipients = (0..<3).map { _ in ReceivingKeyPair.generate() }
    let stranger = ReceivingKeyPair.generate()
    let body = #"{"format":1,"sequence":4,"written":"2026-11-29T12:00:00Z","note":"the household's journal"}"#

    func sealed(kind: HouseholdFile.Kind = .journal) throws -> [UInt8] {
        try HouseholdFile.seal(SecureBytes(copying: Array(body.utf8)), kind: kind, to: recipients.map(\.publicKey), writer: writer)
    }

    @Test func eachRecipientOpensItAndSeesTheWriter() throws {
        let bytes = try sealed()
        for recipient in recipients {
            let opened = try HouseholdFile.open(bytes, with: recipient)
            #expect(opened.kind == .journal && opened.writer == writer.publicKey)
            #expect(opened.body.bytes == Array(body.utf8))
            #expect(opened.recipients == recipients.map(\.publicKey.keyId))
        }
        // Its text form too.
        let text = Array((HouseholdFile.textPrefix + Base45.encode(bytes)).utf8)
        #expect(try HouseholdFile.open(text, with: recipients[2]).body.bytes == Array(body.utf8))
    }

    @Test func aMachineItIsNotSealedToCannotOpenIt() throws {
        let error = #expect(throws: LommeError.self) { try HouseholdFile.open(try sealed(), with: stranger) }
        #expect(error?.code == .refused && error?.reason == .householdFileNotForUs, "\(String(describing: error))")
    }

    @Test func everyByteChangedIsRefused() throws {
        let bytes = try sealed()
        let allowed: Set<LommeError.Reason> = [.householdFileDamaged, .householdFileNewer, .householdFileNotForUs, .householdFileTampered]
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80] {
                var changed = bytes
                changed[index] ^= flip
                do {
                    _ = try HouseholdFile.open(changed, with: recipients[1])
                    Issue.record("byte \(index) changed (^\(flip)) and the file still opened")
                } catch {
                    #expect(error.code == .refused && allowed.contains(error.reason), "byte \(index): \(error.reason) \(error.message)")
                }
            }
        }
    }

    @Test func everyShorterCopyIsRefused() throws {
        let bytes = try sealed()
        for length in 0..<bytes.count {
            let error = #expect(throws: LommeError.self, "cut to \(length) bytes") { try HouseholdFile.open(Array(bytes.prefix(length)), with: recipients[0]) }
            #expect(error?.code == .refused, "cut to \(length): \(String(describing: error))")
        }
    }

    /// What a recipient finds inside: the writer's key, its signature and the body.
    func inner(of bytes: [UInt8], opener: ReceivingKeyPair) throws -> SecureBytes {
        let count = Int(bytes[6])
        let headerLength = 7 + count * HouseholdFile.stanzaLength
        var sealedKey: [UInt8]?
        for index in 0..<count {
            let at = 7 + index * HouseholdFile.stanzaLength
            if Array(bytes[at..<(at + 8)]) == opener.publicKey.keyId { sealedKey = Array(bytes[(at + 8)..<(at + HouseholdFile.stanzaLength)]) }
        }
        let stanza = try #require(sealedKey)
        let key = try #require(PublicKeyCrypto.openSealed(stanza, publicKey: opener.publicKey.bytes, secretKey: opener.secretKey))
        let ad = Array(bytes[0..<(headerLength + XChaCha.nonceLength)])
        return try #require(XChaCha.open(bytes[ad.count...], ad: ad, nonce: Array(bytes[headerLength..<ad.count]), key: SecureBytes(copying: key)))
    }

    /// `inner` (the writer's key, signature and body) sealed anew under a header of `kind`
    /// for `to`, as a recipient of the original could; with `signer`, signed again for the
    /// new header (what only the writer can do).
    func resealed(_ inner: SecureBytes, kind: HouseholdFile.Kind, to: [ReceivingKeyPair], signer: IssuerKeyPair? = nil) throws -> [UInt8] {
        let fileKey = SecureBytes.random(count: HouseholdFile.keyLength)
        var header = HouseholdFile.magic + [HouseholdFile.format, kind.rawValue, UInt8(to.count)]
        for recipient in to {
            let stanza = try #require(PublicKeyCrypto.seal(fileKey.bytes, to: recipient.publicKey.bytes))
            header += recipient.publicKey.keyId + stanza
        }
        var content = inner.bytes
        if let signer {
            let signature = PublicKeyCrypto.sign(HouseholdFile.domain + header + Array(content[96...]), secretKey: signer.secretKey)
            content.replaceSubrange(32..<96, with: signature)
        }
        let nonce = Sodium.randomBytes(XChaCha.nonceLength)
        return header + nonce + XChaCha.seal(SecureBytes(copying: content), ad: header + nonce, nonce: nonce, key: fileKey)
    }

    @Test func theSignatureBindsTheRecipientsAndTheKind() throws {
        let bytes = try sealed()
        let inside = try inner(of: bytes, opener: recipients[0])
        // Resealed and signed again by the writer: it opens (the reconstruction is right).
        let again = try resealed(inside, kind: .journal, to: [recipients[1], stranger], signer: writer)
        #expect(try HouseholdFile.open(again, with: stranger).body.bytes == Array(body.utf8))
        // Resealed by recipient 0 without the writer's key — to the same machines (each
        // file key sealed anew), to a machine of its choosing as well, to fewer machines, in
        // another order, or as a hand-over: the writer's signature no longer holds.
        let attacks: [(String, [UInt8], ReceivingKeyPair)] = [
            ("to the same machines", try resealed(inside, kind: .journal, to: recipients), recipients[1]),
            ("to a stranger as well", try resealed(inside, kind: .journal, to: recipients + [stranger]), stranger),
            ("to fewer machines", try resealed(inside, kind: .journal, to: [recipients[1]]), recipients[1]),
            ("in another order", try resealed(inside, kind: .journal, to: recipients.reversed()), recipients[2]),
            ("as a hand-over", try resealed(inside, kind: .handOver, to: recipients), recipients[1]),
        ]
        for (what, forged, opener) in attacks {
            let error = #expect(throws: LommeError.self, "\(what)") { try HouseholdFile.open(forged, with: opener) }
            #expect(error?.code == .refused && error?.reason == .householdFileTampered, "\(what): \(String(describing: error))")
        }
    }
}
