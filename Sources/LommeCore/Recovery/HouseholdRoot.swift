/// The parent's side of the household key, as its vault keeps it: the public key and
/// what the key signed (the newest vouch), and the chain of rotations that leads to it from
/// the household's first key when new kits replaced old ones. Never the recovery key or
/// the household key's private half: a thief of the vault and its passphrase can make no
/// kit and vouch for nothing.
///
///     "root": {"public": HEX, "vouch": HEX, "rotations": [HEX, …], "made": TIME}
///
/// (A vault written before chains kept the one last rotation as `"rotation": HEX`; it is
/// read as a chain of one.)
package struct HouseholdRoot: Sendable, Equatable {
    package var publicKey: HouseholdKey
    package var vouch: Vouch
    /// Every rotation from the household's first key to this one, oldest first: a child
    /// that pinned any earlier key follows them to this one (docs/CODES.md, "Rotations").
    package var rotations: [RootRotation]
    package var made: Instant
    package var unknown: [JSON.Member] = []

    static let known: Set<String> = ["public", "vouch", "rotations", "rotation", "made"]

    package init(publicKey: HouseholdKey, vouch: Vouch, rotations: [RootRotation] = [], made: Instant) {
        self.publicKey = publicKey
        self.vouch = vouch
        self.rotations = rotations
        self.made = made
    }

    /// The household's fingerprint, as the kit and `status` show it.
    package var fingerprint: String { publicKey.fingerprint }

    init?(json: JSON) {
        guard case .object(let members) = json, let key = json["public"]?.stringValue.flatMap(HouseholdKey.init(hex:)),
              let vouch = json["vouch"]?.stringValue.flatMap(Sodium.unhex).flatMap(Vouch.init(bytes:)),
              vouch.isSigned(by: key), let made = json["made"]?.stringValue.flatMap(Instant.init(text:))
        else { return nil }
        self.init(publicKey: key, vouch: vouch, made: made)
        if case .array(let items)? = json["rotations"] {
            for item in items {
                guard let parsed = item.stringValue.flatMap(Sodium.unhex).flatMap(RootRotation.init(bytes:)) else { return nil }
                rotations.append(parsed)
            }
        } else if json["rotations"] != nil {
            return nil
        } else if let rotation = json["rotation"] {
            guard let parsed = rotation.stringValue.flatMap(Sodium.unhex).flatMap(RootRotation.init(bytes:)) else { return nil }
            rotations = [parsed]
        }
        guard RootRotation.leads(rotations, to: key) else { return nil }
        unknown = members.filter { !HouseholdRoot.known.contains($0.key) }
    }

    var json: JSON {
        var members = [
            JSON.Member("public", .string(publicKey.hex)),
            JSON.Member("vouch", .string(Sodium.hex(vouch.bytes))),
        ]
        if !rotations.isEmpty { members.append(JSON.Member("rotations", .array(rotations.map { .string(Sodium.hex($0.bytes)) }))) }
        members.append(JSON.Member("made", .string(made.text)))
        return .object(members + unknown)
    }
}

/// The child's side: the household key pinned with the issuer, the newest vouch seen, and
/// the issuers it no longer vouches for.
///
///     "household": {"key": HEX, "vouch": HEX, "pinned": TIME, "revoked": [HEX, …]}
package struct HouseholdPin: Sendable, Equatable {
    package var key: HouseholdKey
    package var vouch: Vouch
    package var pinned: Instant
    /// The ids (`IssuerKey.id`) of issuers this device once took codes from, or saw named by an
    /// earlier vouch of the household, that the pinned vouch no longer names: their codes
    /// are refused whatever they carry and whatever the flags (a stolen laptop the
    /// household revoked cannot come back with `--trust-new-issuer`).
    package var revoked: [IssuerID] = []

    package init(key: HouseholdKey, vouch: Vouch, pinned: Instant, revoked: [IssuerID] = []) {
        self.key = key
        self.vouch = vouch
        self.pinned = pinned
        self.revoked = revoked
    }

    package var fingerprint: String { key.fingerprint }

    /// True when the issuer whose key is `issuer` was revoked: named once, no more.
    package func revokes(_ issuer: IssuerKey) -> Bool { revoked.contains(issuer.id) }

    /// This pin after `newer` (a newer vouch, of this key or of one it rotated to): every
    /// issuer named before, or `formerIssuer` (whom the device took codes from), that the
    /// newer vouch does not name is revoked from then on; one it names again is not.
    package func following(key newKey: HouseholdKey, vouch newer: Vouch, formerIssuer: IssuerKey?, now: Instant) -> HouseholdPin {
        var ids = revoked + vouch.issuers
        if let formerIssuer { ids.append(formerIssuer.id) }
        var kept: [IssuerID] = []
        for id in ids where !newer.issuers.contains(id) && !kept.contains(id) { kept.append(id) }
        return HouseholdPin(key: newKey, vouch: newer, pinned: newKey == key ? pinned : now, revoked: kept)
    }

    init?(json: JSON) {
        guard let key = json["key"]?.stringValue.flatMap(HouseholdKey.init(hex:)),
              let vouch = json["vouch"]?.stringValue.flatMap(Sodium.unhex).flatMap(Vouch.init(bytes:)), vouch.isSigned(by: key),
              let pinned = json["pinned"]?.stringValue.flatMap(Instant.init(text:))
        else { return nil }
        self.init(key: key, vouch: vouch, pinned: pinned)
        if let list = json["revoked"] {
            guard case .array(let items) = list else { return nil }
            for item in items {
                guard let id = item.stringValue.flatMap(IssuerID.init(hex:)) else { return nil }
                revoked.append(id)
            }
        }
    }

    var json: JSON {
        var members = [
            JSON.Member("key", .string(key.hex)),
            JSON.Member("vouch", .string(Sodium.hex(vouch.bytes))),
            JSON.Member("pinned", .string(pinned.text)),
        ]
        if !revoked.isEmpty { members.append(JSON.Member("revoked", .array(revoked.map { .string($0.hex) }))) }
        return .object(members)
    }
}
