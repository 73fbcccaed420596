import LommeCore
import LommeVaultKit
import Testing

/// `VouchClock`: a vouch's version is now, newer than the held one, on a clock that is not
/// before this release, the kit's day, or (by more than an hour) the newest time the vault
/// has seen. Times are given, not read: nothing here depends on the machine's clock.
@Suite("The clock a vouch is signed on")
struct VouchClockTests {
    static let day: Int64 = 86_400
    /// 2027-03-01T12:00:00Z, in milliseconds.
    static let now: Int64 = 1_803_988_800_000

    func contents(updated seconds: Int64) -> VaultContents {
        VaultContents(now: Instant(seconds: seconds))
    }

    @Test func aRightClockSignsNowOrJustAfterTheHeldVouch() throws {
        #expect(try VouchClock.version(now: Self.now, after: nil, kit: nil, seen: nil) == UInt64(Self.now))
        // A held vouch from another parent's clock a few minutes ahead: just after it.
        let held = UInt64(Self.now + 300_000)
        let seen = contents(updated: Self.now / 1000)
        #expect(try VouchClock.version(now: Self.now, after: held, kit: nil, seen: seen) == held + 1)
        // Less than an hour behind what the vault has seen is another clock a little ahead.
        #expect(throws: Never.self) { try VouchClock.version(now: Self.now, after: nil, kit: nil, seen: contents(updated: Self.now / 1000 + 3_599)) }
        // The kit's day itself, from its first second.
        let kitDay = Instant(seconds: Self.now / 1000 / Self.day * Self.day)
        #expect(throws: Never.self) { try VouchClock.version(now: kitDay.seconds * 1000, after: nil, kit: kitDay, seen: nil) }
    }

    @Test func aClockBehindIsRefusedByName() throws {
        let cases: [(String, Int64, Instant?, VaultContents?)] = [
            ("before this release", VouchClock.released.seconds * 1000 - 1000, nil, nil),
            ("before the kit's day", Self.now, Instant(seconds: Self.now / 1000 + Self.day), nil),
            ("over an hour behind the vault", Self.now, nil, contents(updated: Self.now / 1000 + 3_601)),
        ]
        for (what, now, kit, seen) in cases {
            let error = #expect(throws: LommeError.self, "\(what)") { try VouchClock.version(now: now, after: nil, kit: kit, seen: seen) }
            #expect(error?.reason == .clockBehind && error?.code == .failure, "\(what): \(String(describing: error))")
        }
    }

    /// The newest time a vault has seen counts the newest vouch's signing (another parent's
    /// clock), not only this machine's writes.
    @Test func theNewestVouchCounts() throws {
        var seen = contents(updated: Self.now / 1000)
        let household = RecoveryKey.generate().householdKey
        let later = UInt64(Self.now + 2 * 3_600_000)
        seen.household.root = HouseholdRoot(publicKey: household.publicKey,
                                            vouch: try Vouch.make(household, version: later, issuers: [IssuerKeyPair.generate().publicKey.id]),
                                            made: Instant(seconds: Self.now / 1000))
        #expect(VouchClock.newest(seen) == Instant(milliseconds: Int64(later)))
        #expect(throws: LommeError.self) { try VouchClock.version(now: Self.now, after: later, kit: nil, seen: seen) }
    }
}
