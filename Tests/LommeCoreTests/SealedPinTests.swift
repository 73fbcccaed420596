@testable import LommeCore
import LommeTestSupport
import Testing

/// The pinned issuer is compared on its whole Ed25519 key: a key that differs from the
/// pinned one in any single byte — first, middle or last — is another issuer, refused
/// (exit 7) unless `--trust-new-issuer`. A comparison of a prefix (or of a fingerprint's
/// first characters) would let a key that shares it pass as the pinned parent.
@Suite("Sealed codes: the pinned issuer, compared whole")
struct SealedPinTests {
    @Test(arguments: [0, 15, 31])
    func anIssuerDifferingFromThePinnedOneInOneByteIsRefused(byte: Int) throws {
        var child = DeviceIdentity.generate()
        let parent = IssuerKeyPair.generate()
        let now: Int64 = 1_800_000_000
        let text = try Envelope.seal(sampleConfig(), to: child.receiving.publicKey, issuer: parent, now: now, lifetime: 3600)

        // Pinned: the real issuer's key with one byte changed.
        var pinned = parent.publicKey.bytes
        pinned[byte] ^= 0x01
        child.pinnedIssuer = IssuerKey(bytes: pinned)
        let error = #expect(throws: LommeError.self) {
            _ = try SealedImport(envelope: try Envelope(text: text), identity: child, now: now + 10, checksums: true, trustNewIssuer: false)
        }
        #expect(error?.code == .refused)
        #expect(error?.reason == .issuerNotPinned, "\(String(describing: error))")

        // The real key pinned: accepted as the pinned issuer.
        child.pinnedIssuer = parent.publicKey
        let accepted = try SealedImport(envelope: try Envelope(text: text), identity: child, now: now + 10, checksums: true, trustNewIssuer: false)
        #expect(accepted.issuer == .pinned)
    }
}
