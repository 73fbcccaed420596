import LommeCore
import LommeTestSupport
import Testing

/// The issuer's and the household's Ed25519 keys are types of their own: only 32 bytes make
/// one, each is written as the vault has always written it (hex, the fingerprint), and a
/// vouch names an issuer by BLAKE2b-128 of its key.
@Suite("Issuer and household keys")
struct TypedKeysTests {
    @Test func aKeyIsThirtyTwoBytesWrittenAsTheVaultWritesIt() throws {
        let pair = IssuerKeyPair.generate(seed: [UInt8](repeating: 7, count: 32))
        for count in [0, 31, 33, 64] {
            #expect(IssuerKey(bytes: [UInt8](repeating: 1, count: count)) == nil && HouseholdKey(bytes: [UInt8](repeating: 1, count: count)) == nil)
        }
        #expect(IssuerKey(hex: "00") == nil && HouseholdKey(hex: String(repeating: "zz", count: 32)) == nil)
        #expect(pair.publicKey.hex == Sodium.hex(pair.publicKey.bytes) && IssuerKey(hex: pair.publicKey.hex) == pair.publicKey)
        #expect(IssuerKey(hex: pair.publicKey.hex.uppercased()) == pair.publicKey)
        #expect(pair.fingerprint == Fingerprint.of(pair.publicKey.bytes))
        // The same bytes in the other role: another type, the same text.
        let household = try #require(HouseholdKey(bytes: pair.publicKey.bytes))
        #expect(household.hex == pair.publicKey.hex && household.fingerprint == pair.fingerprint)
        #expect(IssuerKeyPair(publicKey: pair.publicKey.bytes, secretKey: pair.secretKey)?.publicKey == pair.publicKey)
        #expect(IssuerKeyPair(publicKey: Array(pair.publicKey.bytes.prefix(31)), secretKey: pair.secretKey) == nil)
    }

    @Test func aHouseholdKeyVerifiesWhatItsOwnPairSigned() throws {
        let pair = HouseholdKeyPair.generate(), other = HouseholdKeyPair.generate()
        let vouch = try Vouch.make(pair, version: 1, issuers: [IssuerKeyPair.generate().publicKey.id])
        #expect(vouch.isSigned(by: pair.publicKey) && !vouch.isSigned(by: other.publicKey))
    }

    @Test func anIssuersIdIsBlake2b128OfItsKey() {
        let key = IssuerKeyPair.generate().publicKey
        #expect(key.id.bytes == Sodium.blake2b(key.bytes, length: 16))
        #expect(IssuerID(hex: key.id.hex) == key.id && IssuerID(bytes: [UInt8](repeating: 0, count: 15)) == nil)
        #expect(IssuerKeyPair.generate().publicKey.id != key.id)
    }
}
