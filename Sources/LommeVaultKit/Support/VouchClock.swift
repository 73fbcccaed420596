import LommeCore

/// A vouch's version is the time it was signed (docs/CODES.md, "A vouch"), so the machine's
/// clock decides whether the children take it: one signed on a clock that lags the
/// household's newest vouch loses to it. A vouch held in the vault is always outdone (the
/// version is at least the held one + 1), but a restore knows no earlier vouch. So no vouch
/// is signed on a clock that is plainly behind: before this release of lomme-vault, before
/// the day the kit used was made, or more than an hour before the newest time this vault
/// has seen (its last write, the newest vouch's signing; an hour for another parent's
/// clock running a little ahead). docs/threat-model-household.md, "Clocks".
package enum VouchClock {
    /// No clock that is right says a time before this release was made.
    package static let released = Instant(seconds: 1_793_491_200)  // 2026-11-01T00:00:00Z
    /// How far another machine's clock may run ahead of this one's.
    static let slack: Int64 = 3_600

    /// The newest time `contents` has seen: when it was last written, and when the newest
    /// vouch it holds was signed.
    package static func newest(_ contents: VaultContents) -> Instant {
        var newest = Swift.max(contents.created, contents.updated)
        if let root = contents.household.root {
            newest = Swift.max(newest, Swift.max(root.made, Instant(milliseconds: Int64(clamping: root.vouch.version))))
        }
        return newest
    }

    /// The version of a vouch signed now (Unix milliseconds), newer than `held`; refused
    /// (exit 1, nothing changed) when the clock is behind the kit's day (`kit`) or what the
    /// vault has seen (`seen`).
    package static func version(now milliseconds: Int64, after held: UInt64?, kit: Instant?, seen: VaultContents?) throws(LommeError) -> UInt64 {
        let now = Instant(milliseconds: milliseconds)
        if now < released {
            throw behind(now, "before this version of lomme-vault was made (\(released.day))")
        }
        if let kit, now < kit {
            throw behind(now, "before the day its recovery kit was made (\(kit.day))")
        }
        if let seen {
            let newest = newest(seen)
            if now.seconds + slack < newest.seconds {
                throw behind(now, "more than an hour before the newest time this vault has seen (\(newest.text))")
            }
        }
        return Swift.max(UInt64(Swift.max(0, milliseconds)), (held ?? 0) + 1)
    }

    static func behind(_ now: Instant, _ what: String) -> LommeError {
        LommeError.failure(.clockBehind, "this computer's clock says \(now.shown), \(what): a vouch signed now would lose to the household's older one and the children would refuse this machine's codes; set the clock (`timedatectl set-ntp true`, or `date`) and run this again; nothing was changed")
    }
}
