import LommeCore
import LommeTestSupport
import Testing

/// `status` and `child list` warn when another parent's machine has not been heard from
/// (no journal of it taken) for 14 days: counted by the day of its last journal (or of its
/// adding, when none was taken yet), with a fixed clock — never this machine, never a
/// removed one; and the config made two ways is said too, naming both machines.
@Suite("A parent's machine not heard from")
struct SilentParentTests {
    static let me = IssuerKeyPair.generate(), far = IssuerKeyPair.generate(), gone = IssuerKeyPair.generate()

    static func parent(_ name: String, _ issuer: IssuerKeyPair, added: String) -> Parent {
        let key = ParentKey(receiving: ReceivingKeyPair.generate().publicKey, issuer: issuer.publicKey)
        return Parent(name: name, key: key, added: Instant(text: added)!, version: 1, by: me.publicKey.id)
    }

    /// mor (this machine) and far, both added on 1 March, far last heard from `heard`.
    static func household(heard: String?) -> Household {
        var household = Household()
        household.parents = [parent("mor", me, added: "2026-03-01T08:00:00Z"), parent("far", far, added: "2026-03-01T08:00:00Z")]
        if let heard {
            var sync = SyncState()
            sync.heard[far.publicKey.id.hex] = Instant(text: heard)!
            household.sync = sync
        }
        return household
    }

    /// The start of a day (UTC), in Unix seconds, plus `hours`.
    static func day(_ text: String, hours: Int64 = 0) throws -> Instant {
        Instant(seconds: try #require(SecretExpiry.start(of: text)) + hours * 3600)
    }

    @Test func aMachineHeardFromFourteenDaysAgoIsWarnedOfNotThirteen() throws {
        let id = Self.me.publicKey.id
        let household = Self.household(heard: "2026-04-01T23:59:00Z")
        // 13 days and most of a day later: not yet.
        #expect(household.silentParents(now: try Self.day("2026-04-14", hours: 23), me: id).isEmpty)
        #expect(household.parentWarnings(now: try Self.day("2026-04-14", hours: 23), me: id).isEmpty)
        // The 14th day: warned, by name and days, with what to do.
        let silent = household.silentParents(now: try Self.day("2026-04-15"), me: id)
        #expect(silent.map(\.parent.name) == ["far"] && silent.first?.days == 14)
        let warnings = household.parentWarnings(now: try Self.day("2026-04-15", hours: 12), me: id)
        #expect(warnings.count == 1)
        let warning = try #require(warnings.first)
        for words in ["far's machine", "14 days", "lomme-vault sync", "parent remove far", "bank"] {
            #expect(warning.contains(words), "\(warning)")
        }
        #expect(household.silentParents(now: try Self.day("2026-05-01"), me: id).first?.days == 30)
    }

    @Test func neverHeardFromCountsFromItsAddingAndThisMachineIsNeverSilent() throws {
        let id = Self.me.publicKey.id
        let household = Self.household(heard: nil)
        // Added 1 March, never heard from: silent from 15 March; mor (this machine, no
        // journal of its own is ever "heard") never is.
        #expect(household.silentParents(now: try Self.day("2026-03-14", hours: 20), me: id).isEmpty)
        #expect(household.silentParents(now: try Self.day("2026-03-15"), me: id).map(\.parent.name) == ["far"])
        // Heard from yesterday: no warning, whatever the adding day.
        let heard = Self.household(heard: "2026-06-30T10:00:00Z")
        #expect(heard.parentWarnings(now: try Self.day("2026-07-01", hours: 9), me: id).isEmpty)
    }

    @Test func aRemovedMachineIsNotWarnedOf() throws {
        let id = Self.me.publicKey.id
        var household = Self.household(heard: "2026-03-02T10:00:00Z")
        household.parents[1].removed = true
        household.parents.append(Self.parent("old", Self.gone, added: "2026-01-01T00:00:00Z"))
        household.parents[2].removed = true
        #expect(household.silentParents(now: try Self.day("2026-09-01"), me: id).isEmpty)
    }
}
