import LommeCore
import LommeTestSupport
import Testing

/// What a child's device does with the household key and vouches a sealed code carries
/// (docs/CODES.md, "Checks on import"): pinned on first use or learned from the pinned
/// issuer; a new issuer the household key vouches for with a newer version taken without a
/// question; an issuer the newest vouch does not name refused; another household key, a bad
/// signature, an equal version with other content refused; a rotation the old key signed taken.
@Suite("Household key on import")
struct HouseholdTrustTests {
    let device = DeviceIdentity.generate()
    let laptop = IssuerKeyPair.generate()
    let newLaptop = IssuerKeyPair.generate()
    let root = RecoveryKey.generate().householdKey
    let now: Int64 = 1_800_000_000

    func code(by issuer: IssuerKeyPair, root: HouseholdKeyPair? = nil, version: UInt64 = 100, naming: [IssuerKeyPair]? = nil,
              rotations: [RootRotation] = [], at offset: Int64 = 0) throws -> String {
        var extensions = SealedExtensions(credential: [UInt8](repeating: 7, count: 16))
        if let root {
            extensions.household = root.publicKey
            extensions.vouch = try Vouch.make(root, version: version, issuers: (naming ?? [issuer]).map(\.publicKey.id))
            extensions.rotations = rotations
        }
        return try Envelope.seal(sampleConfig(), to: device.receiving.publicKey, issuer: issuer, issuedMs: (now + offset) * 1000, lifetime: 3600,
                                 extensions: extensions)
    }

    /// Imports `text` into `identity` as `import` records it; returns the check.
    @discardableResult
    func importing(_ text: String, into identity: inout DeviceIdentity, trust: Bool = false) throws(LommeError) -> SealedImport {
        let check = try SealedImport(envelope: try Envelope(text: text), identity: identity, now: now + 60, checksums: false, trustNewIssuer: trust)
        check.record(in: &identity, now: Instant(seconds: now))
        return check
    }

    @Test func aNewLaptopVouchedForIsTakenAndTheOldOneIsThenRefused() throws {
        var identity = device
        let first = try importing(try code(by: laptop, root: root, version: 100), into: &identity)
        #expect(first.issuer == .firstUse && first.householdChange == .learned && identity.household?.key == root.publicKey)
        #expect(first.summaryLines(now: now).contains { $0.hasPrefix("Household key \(root.publicKey.fingerprint): pinned") })
        // The restored laptop: vouch 200 names only it.
        let restored = try importing(try code(by: newLaptop, root: root, version: 200, at: 1), into: &identity)
        #expect(restored.issuer == .vouched(old: laptop.publicKey) && restored.householdChange == .newerVouch)
        #expect(restored.summaryLines(now: now).contains { $0.contains("vouches for it") && $0.contains("no longer trusts") })
        #expect(identity.pinnedIssuer == newLaptop.publicKey && identity.household?.vouch.version == 200)
        // The lost laptop's code, newer than everything: refused, nothing changes.
        let before = identity
        let lost = #expect(throws: LommeError.self) { try importing(try code(by: laptop, root: root, version: 100, at: 100), into: &identity) }
        #expect(lost?.code == .refused && lost?.reason == .issuerRevoked, "\(String(describing: lost))")
        #expect(identity == before)
        // Even with --trust-new-issuer: the household key revoked it. Nor without its
        // household statements, nor with a household of its own, whatever the flag.
        for (what, text) in [("its old vouch", try code(by: laptop, root: root, version: 100, at: 101)),
                             ("no statements", try code(by: laptop, at: 102)),
                             ("a household of its own", try code(by: laptop, root: RecoveryKey.generate().householdKey, version: 900, at: 103))] {
            let error = #expect(throws: LommeError.self, "\(what)") { try importing(text, into: &identity, trust: true) }
            #expect(error?.reason == .issuerRevoked && error?.message.contains("--trust-new-issuer") == false, "\(what): \(String(describing: error))")
            #expect(identity == before, "\(what) changed the device")
        }
        #expect(identity.household?.revokes(laptop.publicKey) == true)
        // The new laptop's next code, same vouch: pinned.
        #expect(try importing(try code(by: newLaptop, root: root, version: 200, at: 2), into: &identity).issuer == .pinned)
    }

    @Test func olderEqualForeignAndForgedVouchesChangeNothing() throws {
        var identity = device
        try importing(try code(by: laptop, root: root, version: 200), into: &identity)
        let before = identity
        let stranger = RecoveryKey.generate().householdKey
        let cases: [(String, String, LommeError.Reason)] = [
            ("older vouch for a new issuer", try code(by: newLaptop, root: root, version: 100, at: 10), .issuerRevoked),
            ("equal version, other content", try code(by: newLaptop, root: root, version: 200, at: 11), .vouchConflict),
            ("another household key", try code(by: newLaptop, root: stranger, version: 300, at: 12), .householdForeign),
            ("no vouch at all, new issuer", try code(by: newLaptop, at: 13), .issuerNotVouched),
            ("a vouch not naming its issuer", try code(by: newLaptop, root: root, version: 300, naming: [laptop], at: 14), .householdStatementsBroken),
        ]
        for (what, text, reason) in cases {
            let error = #expect(throws: LommeError.self, "\(what)") { try importing(text, into: &identity) }
            #expect(error?.code == .refused && error?.reason == reason, "\(what): \(String(describing: error))")
            #expect(identity == before, "\(what) changed the device")
        }
        // A vouch signed by another key than the household key the code carries.
        var forged = SealedExtensions(credential: [UInt8](repeating: 7, count: 16))
        forged.household = root.publicKey
        forged.vouch = try Vouch.make(stranger, version: 300, issuers: [newLaptop.publicKey.id])
        let text = try Envelope.seal(sampleConfig(), to: device.receiving.publicKey, issuer: newLaptop, issuedMs: (now + 15) * 1000, lifetime: 3600, extensions: forged)
        #expect(throws: LommeError.self) { try importing(text, into: &identity) }
        #expect(identity == before)
        // The pinned issuer with an older vouch: taken, the newer vouch stays pinned.
        let older = try importing(try code(by: laptop, root: root, version: 150, at: 16), into: &identity)
        #expect(older.issuer == .pinned && older.householdChange == .none && identity.household?.vouch.version == 200)
    }

    @Test func aChildThatPinnedOnlyAnIssuerLearnsTheHouseholdKeyFromIt() throws {
        var identity = device
        try importing(try code(by: laptop), into: &identity)  // a household from before kits
        #expect(identity.household == nil)
        // Another issuer with a vouch, before the key is known: refused as ever.
        let early = #expect(throws: LommeError.self) { try importing(try code(by: newLaptop, root: root, version: 200, at: 1), into: &identity) }
        #expect(early?.reason == .issuerNotPinned && early?.message.contains("--trust-new-issuer") == true)
        // The pinned issuer's first code with the household key teaches it.
        let learned = try importing(try code(by: laptop, root: root, version: 100, at: 2), into: &identity)
        #expect(learned.issuer == .pinned && learned.householdChange == .learned && identity.household?.key == root.publicKey)
        // Then the restore's code is taken.
        #expect(try importing(try code(by: newLaptop, root: root, version: 200, at: 3), into: &identity).issuer == .vouched(old: laptop.publicKey))
    }

    @Test func aNewKitsKeyVouchedForByTheOldIsTaken() throws {
        var identity = device
        try importing(try code(by: laptop, root: root, version: 100), into: &identity)
        let newRoot = RecoveryKey.generate().householdKey
        let rotated = try importing(try code(by: laptop, root: newRoot, version: 50, rotations: [.make(from: root, to: newRoot.publicKey)], at: 1),
                                    into: &identity)
        #expect(rotated.householdChange == .rotated && identity.household?.key == newRoot.publicKey && identity.household?.vouch.version == 50)
        // A rotation signed by a key that is not the pinned one is another household.
        let thief = RecoveryKey.generate().householdKey, theirs = RecoveryKey.generate().householdKey
        let error = #expect(throws: LommeError.self) {
            try importing(try code(by: laptop, root: theirs, version: 60, rotations: [.make(from: thief, to: theirs.publicKey)], at: 2), into: &identity)
        }
        #expect(error?.reason == .householdForeign)
        #expect(identity.household?.key == newRoot.publicKey)
    }

    /// Two new kits in a row: a device that pinned the first household key follows the
    /// whole chain a code carries to the newest; one that pinned the middle key, the rest.
    @Test func aDeviceFollowsEveryRotationSinceTheKeyItPinned() throws {
        let second = RecoveryKey.generate().householdKey, third = RecoveryKey.generate().householdKey
        let chain: [RootRotation] = [.make(from: root, to: second.publicKey), .make(from: second, to: third.publicKey)]
        var first = device
        try importing(try code(by: laptop, root: root, version: 100), into: &first)
        var middle = first
        try importing(try code(by: laptop, root: second, version: 200, rotations: [chain[0]], at: 1), into: &middle)
        #expect(middle.household?.key == second.publicKey)
        for identity in [first, middle] {
            var copy = identity
            let followed = try importing(try code(by: laptop, root: third, version: 300, rotations: chain, at: 2), into: &copy)
            #expect(followed.householdChange == .rotated && copy.household?.key == third.publicKey)
        }
        // The last link alone (as a code from before chains carried): the first key cannot follow.
        var copy = first
        let error = #expect(throws: LommeError.self) {
            try importing(try code(by: laptop, root: third, version: 300, rotations: [chain[1]], at: 2), into: &copy)
        }
        #expect(error?.reason == .householdForeign)
        // A chain with a forged link is broken, whoever pinned what.
        let forged = [RootRotation(bytes: chain[0].old.bytes + [UInt8](repeating: 1, count: 64))!, chain[1]]
        let broken = #expect(throws: LommeError.self) {
            try importing(try code(by: laptop, root: third, version: 300, rotations: forged, at: 2), into: &copy)
        }
        #expect(broken?.reason == .householdStatementsBroken)
        // The chain rides in a code's bytes (tags 4 and 5) and comes back the same.
        let text = try code(by: laptop, root: third, version: 300, rotations: chain)
        let opened = try Envelope(text: text).open(with: device.receiving, now: now, checksums: false)
        #expect(opened.extensions.rotations == chain)
    }

    /// The stolen laptop's code taken first (offline, unavoidable), then the restored
    /// laptop's, issued earlier: taken, since its newer vouch revokes the stored config's
    /// issuer; after that the stolen laptop is refused, and an older code of the restored
    /// one is a roll back as ever.
    @Test func aRestoredLaptopsEarlierCodeReplacesTheStolenLaptops() throws {
        var identity = device
        try importing(try code(by: laptop, root: root, version: 100), into: &identity)
        let restoredEarly = try code(by: newLaptop, root: root, version: 200, at: 10)
        let restoredLater = try code(by: newLaptop, root: root, version: 200, at: 30)
        try importing(try code(by: laptop, root: root, version: 100, at: 20), into: &identity)  // the thief's
        let taken = try importing(restoredEarly, into: &identity)
        #expect(taken.issuer == .vouched(old: laptop.publicKey) && identity.pinnedIssuer == newLaptop.publicKey)
        #expect(throws: LommeError.self) { try importing(try code(by: laptop, root: root, version: 100, at: 40), into: &identity) }
        try importing(restoredLater, into: &identity)
        let rollback = #expect(throws: LommeError.self) { try importing(try code(by: newLaptop, root: root, version: 200, at: 25), into: &identity) }
        #expect(rollback?.reason == .rollback)
    }

    @Test func theDevicesHouseholdPinRoundTripsThroughTheVault() throws {
        var identity = device
        try importing(try code(by: laptop, root: root, version: 100), into: &identity)
        var contents = VaultContents(config: sampleConfig())
        contents.identity = identity
        let read = try VaultContents(plaintext: contents.plaintext())
        #expect(read.identity == identity && read.identity?.household?.vouch.names(laptop.publicKey) == true)
        // With issuers revoked.
        try importing(try code(by: newLaptop, root: root, version: 200, at: 1), into: &identity)
        contents.identity = identity
        let again = try VaultContents(plaintext: contents.plaintext())
        #expect(again.identity == identity && again.identity?.household?.revokes(laptop.publicKey) == true)
    }
}
