/// A parent's machine of the household, as every parent's vault keeps it (`parents`):
///
///     {"name": "mor", "key": "lvp1…", "added": TIME, "version": 3, "by": HEX}
///     {"name": "far", "key": "lvp1…", "added": TIME, "version": 4, "by": HEX, "removed": true, "until": 17}
///
/// `version` orders the changes of one parent's entry without clocks (each change takes the
/// highest version seen + 1; equal versions are ordered by `by`, the id of the machine
/// that made the change: docs/SYNC.md, "Merging"). A removed machine's entry stays, with
/// `until`: the last sequence of its journal taken; what it writes after is ignored.
/// The household key's vouch, not this list, says whom the children trust.
package struct Parent: Sendable, Equatable {
    package var name: String
    package var key: ParentKey
    package var added: Instant
    package var version: UInt64
    /// The machine that made this entry's last change (`Vouch.id` of its issuer key).
    package var by: IssuerID
    package var removed: Bool = false
    /// For a removed machine: the last sequence of its journal taken (nil: none was).
    package var until: UInt64? = nil

    package init(name: String, key: ParentKey, added: Instant, version: UInt64, by: IssuerID) {
        self.name = name
        self.key = key
        self.added = added
        self.version = version
        self.by = by
    }

    /// The id a vouch and a journal name this machine by.
    package var id: IssuerID { key.issuer.id }

    package init?(json: JSON) {
        guard let name = json["name"]?.stringValue, Child.isValidName(name),
              let keyText = json["key"]?.stringValue, let key = try? ParentKey(text: keyText),
              let added = json["added"]?.stringValue.flatMap(Instant.init(text:)), let version = json["version"]?.uint64Value,
              let by = json["by"]?.stringValue.flatMap(IssuerID.init(hex:))
        else { return nil }
        self.init(name: name, key: key, added: added, version: version, by: by)
        if json["removed"] == .bool(true) {
            removed = true
            until = json["until"]?.uint64Value
        }
    }

    package var json: JSON {
        var members = [
            JSON.Member("name", .string(name)),
            JSON.Member("key", .string(key.text)),
            JSON.Member("added", .string(added.text)),
            JSON.Member("version", .number(String(version))),
            JSON.Member("by", .string(by.hex)),
        ]
        if removed {
            members.append(JSON.Member("removed", .bool(true)))
            if let until { members.append(JSON.Member("until", .number(String(until)))) }
        }
        return .object(members)
    }

    /// True when `self` is the later of two entries for the same machine: the higher
    /// version, or at an equal one the higher `by` (any fixed order would do; this one is
    /// the same on every machine).
    package func supersedes(_ other: Parent) -> Bool { Versioned.later((version, by), than: (other.version, other.by)) }
}

/// The order every machine gives two changes of the same thing, whatever their clocks
/// say: the higher version first, then the higher id of the machine that made it.
package enum Versioned {
    package static func later(_ a: (UInt64, IssuerID), than b: (UInt64, IssuerID)) -> Bool {
        a.0 != b.0 ? a.0 > b.0 : b.1 < a.1
    }
}
