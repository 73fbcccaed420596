@testable import LommeCore
import LommeTestSupport
import Testing

/// The recovery key, its derivations, the vouch and the rotation against the vectors
/// `fixtures/recovery-v1/make.py` writes from docs/CODES.md with hashlib and PyNaCl.
@Suite("Recovery key and vouch test vectors")
struct RecoveryVectorTests {
    static let vectors: [String: String] = Dictionary(uniqueKeysWithValues: String(decoding: readFile(packageRoot + "/fixtures/recovery-v1/vectors.txt"), as: UTF8.self)
        .split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts[0]), String(parts[1]))
        })
    static func hex(_ name: String) -> [UInt8] { Sodium.unhex(vectors[name]!)! }
    static func household(_ name: String) -> HouseholdKey { HouseholdKey(bytes: hex(name))! }
    static func issuer(_ name: String) -> IssuerKey { IssuerKey(bytes: hex(name))! }

    @Test func theKeyIsPrintedAndReadAsFormatSays() throws {
        let key = RecoveryKey(secret: SecureBytes(copying: Self.hex("secret")))
        #expect(key.text == Self.vectors["text"] && key.qrText == Self.vectors["qr"])
        for typed in [Self.vectors["text"]!, Self.vectors["qr"]!, Self.vectors["text"]!.lowercased(),
                      Self.vectors["text"]!.replacingOccurrences(of: "-", with: " "), " " + Self.vectors["text"]!.replacingOccurrences(of: "-", with: "") + "\n"] {
            #expect(try RecoveryKey(text: typed).secret.bytes == Self.hex("secret"), "\(typed)")
        }
        #expect(RecoveryKey.isRecoveryKey(Self.vectors["qr"]!) && !RecoveryKey.isRecoveryKey(Self.vectors["text"]!))
    }

    /// A kit made now carries its day in its code (the key without dashes, `.`, days since
    /// 1970); a kit's code from before (with dashes, no day) still reads, and a day that is
    /// not one is a damaged kit.
    @Test func theKitsCodeCarriesItsDay() throws {
        var key = RecoveryKey(secret: SecureBytes(copying: Self.hex("secret")))
        key.made = Instant(seconds: 20_454 * 86_400)
        #expect(key.qrText == Self.vectors["qr-dated"])
        let read = try RecoveryKey(text: Self.vectors["qr-dated"]!)
        #expect(read.secret.bytes == Self.hex("secret") && read.made?.day == "2026-01-01" && read.text == Self.vectors["text"])
        #expect(try RecoveryKey(text: Self.vectors["qr"]!).made == nil)
        #expect(RecoveryKey.generate(now: Instant(seconds: 20_454 * 86_400 + 43_210)).made == Instant(seconds: 20_454 * 86_400))
        for damaged in [Self.vectors["qr-dated"]! + "x", Self.vectors["qr-dated"]!.replacingOccurrences(of: ".20454", with: "."),
                        Self.vectors["qr-dated"]!.replacingOccurrences(of: ".20454", with: ".1234567")] {
            #expect((#expect(throws: LommeError.self) { try RecoveryKey(text: damaged) })?.reason == .recoveryKitDate, "\(damaged)")
        }
        // Still a version 3 code at level Q: at most 47 characters of QR's alphanumeric set.
        let qr = Self.vectors["qr-dated"]!
        #expect(qr.count <= 47 && qr.allSatisfy { "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".contains($0) })
    }

    @Test func aTypoNamesItsGroupAndNothingOfTheKey() {
        for (name, group) in [("typo-group-3", 3), ("swap-group-5", 5)] {
            let error = #expect(throws: LommeError.self) { try RecoveryKey(text: Self.vectors[name]!) }
            #expect(error?.code == .usage && error?.reason == .recoveryKeyTypo && error?.message == "group \(group) of the recovery key has a typo; check it against the kit")
        }
        // Every single wrong character, in every position, is caught and named.
        let text = Array(Self.vectors["text"]!.replacingOccurrences(of: "-", with: ""))
        for position in text.indices {
            for other in "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" where other != text[position] {
                var typed = text
                typed[position] = other
                let error = #expect(throws: LommeError.self) { try RecoveryKey(text: String(typed)) }
                #expect(error?.message.hasPrefix("group \(position / 5 + 1) ") == true)
            }
        }
        // Two groups swapped.
        var groups = Self.vectors["text"]!.split(separator: "-")
        groups.swapAt(0, 1)
        #expect(throws: LommeError.self) { try RecoveryKey(text: groups.joined(separator: "-")) }
        let short = #expect(throws: LommeError.self) { try RecoveryKey(text: "CWCTU-LKKXC") }
        #expect(short?.reason == .recoveryKeyLength)
        let lookAlike = #expect(throws: LommeError.self) { try RecoveryKey(text: Self.vectors["text"]!.replacingOccurrences(of: "L", with: "1")) }
        #expect(lookAlike?.reason == .recoveryKeyCharacter)
    }

    @Test func theDerivationsAreFormatsOwn() throws {
        let key = RecoveryKey(secret: SecureBytes(copying: Self.hex("secret")))
        #expect(key.slotKEK(vaultSalt: Self.hex("vault-salt"), slotSalt: Self.hex("slot-salt")).bytes == Self.hex("slot-kek"))
        #expect(key.householdKey.publicKey == Self.household("household-public"))
        #expect(RecoveryKey.generate().householdKey.publicKey != key.householdKey.publicKey)
    }

    @Test func theVouchAndTheRotationAreByteForByteWhatPyNaClSigned() throws {
        let household = RecoveryKey(secret: SecureBytes(copying: Self.hex("secret"))).householdKey
        let vouch = try Vouch.make(household, version: 1_767_225_600, issuers: [Self.issuer("issuer-public").id])
        #expect(vouch.bytes == Self.hex("vouch"), "Ed25519 is deterministic")
        let read = try #require(Vouch(bytes: Self.hex("vouch")))
        #expect(read.isSigned(by: Self.household("household-public")) && read.names(Self.issuer("issuer-public")))
        #expect(!read.isSigned(by: Self.household("other-household-public")) && !read.names(Self.issuer("household-public")))
        var forged = Self.hex("vouch")
        forged[8] ^= 1  // the version
        #expect(Vouch(bytes: forged)?.isSigned(by: Self.household("household-public")) == false)
        let rotation = RootRotation.make(from: household, to: Self.household("other-household-public"))
        #expect(rotation.bytes == Self.hex("rotation"))
        #expect(rotation.vouches(for: Self.household("other-household-public")) && !rotation.vouches(for: Self.household("issuer-public")))
        #expect((#expect(throws: LommeError.self) { try Vouch.make(household, version: 1, issuers: []) })?.code == .usage)
    }

    /// A third kit: the chain of two rotations, in the kit's QR text and in a code's
    /// extensions (tags 4 and 5), as PyNaCl and the script's own Base45 wrote them.
    @Test func aChainOfRotationsIsWhatThePythonScriptWrote() throws {
        let second = RecoveryKey(secret: SecureBytes(copying: Self.hex("other-secret"))).householdKey
        var third = RecoveryKey(secret: SecureBytes(copying: Self.hex("third-secret")))
        #expect(third.householdKey.publicKey == Self.household("third-household-public"))
        let chain = [try #require(RootRotation(bytes: Self.hex("rotation"))), RootRotation.make(from: second, to: third.householdKey.publicKey)]
        #expect(chain[1].bytes == Self.hex("rotation-2"))
        #expect(RootRotation.leads(chain, to: third.householdKey.publicKey) && !RootRotation.leads(chain.reversed(), to: third.householdKey.publicKey))
        third.chain = chain
        #expect(third.qrText == Self.vectors["qr-with-chain"])
        let read = try RecoveryKey(text: Self.vectors["qr-with-chain"]!)
        #expect(read.secret.bytes == Self.hex("third-secret") && read.chain == chain)
        // A chain that does not lead to the key is a damaged kit (usage, its reason).
        let wrong = Self.vectors["qr-with-chain"]!.replacingOccurrences(of: "LVR1:" + third.text, with: Self.vectors["qr"]!)
        #expect((#expect(throws: LommeError.self) { try RecoveryKey(text: wrong) })?.reason == .recoveryKitHistory)
        // In a code: the last rotation under tag 4, the earlier ones under tag 5.
        let extensions = SealedExtensions(rotations: chain)
        #expect(extensions.encoded == Self.hex("extensions-chain"))
        #expect(SealedExtensions(Self.hex("extensions-chain"))?.rotations == chain)
    }
}
