/// The parent's side of the household key, as its vault keeps it: the public key and
/// what the key signed (the newest vouch, and the old key's rotation to it when a new kit
/// replaced an old one). Never the recovery key or the household key's private half: a
/// thief of the vault and its passphrase can make no kit and vouch for nothing.
///
///     "root": {"public": HEX, "vouch": HEX, "rotation": HEX, "made": TIME}
package struct HouseholdRoot: Sendable, Equatable {
    package var publicKey: [UInt8]
    package var vouch: Vouch
    package var rotation: RootRotation?
    package var made: String
    package var unknown: [JSON.Member] = []

    static let known: Set<String> = ["public", "vouch", "rotation", "made"]

    package init(publicKey: [UInt8], vouch: Vouch, rotation: RootRotation? = nil, made: String) {
        self.publicKey = publicKey
        self.vouch = vouch
        self.rotation = rotation
        self.made = made
    }

    /// The household's fingerprint, as the kit and `status` show it.
    package var fingerprint: String { Fingerprint.of(publicKey) }

    init?(json: JSON) {
        guard case .object(let members) = json, let key = json["public"]?.stringValue.flatMap(Sodium.unhex),
              key.count == PublicKeyCrypto.signPublicKeySize,
              let vouch = json["vouch"]?.stringValue.flatMap(Sodium.unhex).flatMap(Vouch.init(bytes:)),
              vouch.isSigned(by: key), let made = json["made"]?.stringValue
        else { return nil }
        self.init(publicKey: key, vouch: vouch, made: made)
        if let rotation = json["rotation"] {
            guard let parsed = rotation.stringValue.flatMap(Sodium.unhex).flatMap(RootRotation.init(bytes:)),
                  parsed.vouches(for: key) else { return nil }
            self.rotation = parsed
        }
        unknown = members.filter { !HouseholdRoot.known.contains($0.key) }
    }

    var json: JSON {
        var members = [
            JSON.Member("public", .string(Sodium.hex(publicKey))),
            JSON.Member("vouch", .string(Sodium.hex(vouch.bytes))),
        ]
        if let rotation { members.append(JSON.Member("rotation", .string(Sodium.hex(rotation.bytes)))) }
        members.append(JSON.Member("made", .string(made)))
        return .object(members + unknown)
    }

    /// What every sealed code of this household carries.
    package var extensions: (household: [UInt8], vouch: Vouch, rotation: RootRotation?) { (publicKey, vouch, rotation) }
}

/// The child's side: the household key pinned with the issuer, and the newest vouch seen.
///
///     "household": {"key": HEX, "vouch": HEX, "pinned": TIME}
package struct HouseholdPin: Sendable, Equatable {
    package var key: [UInt8]
    package var vouch: Vouch
    package var pinned: String

    package init(key: [UInt8], vouch: Vouch, pinned: String) {
        self.key = key
        self.vouch = vouch
        self.pinned = pinned
    }

    package var fingerprint: String { Fingerprint.of(key) }

    init?(json: JSON) {
        guard let key = json["key"]?.stringValue.flatMap(Sodium.unhex), key.count == PublicKeyCrypto.signPublicKeySize,
              let vouch = json["vouch"]?.stringValue.flatMap(Sodium.unhex).flatMap(Vouch.init(bytes:)), vouch.isSigned(by: key),
              let pinned = json["pinned"]?.stringValue
        else { return nil }
        self.init(key: key, vouch: vouch, pinned: pinned)
    }

    var json: JSON {
        .object([
            JSON.Member("key", .string(Sodium.hex(key))),
            JSON.Member("vouch", .string(Sodium.hex(vouch.bytes))),
            JSON.Member("pinned", .string(pinned)),
        ])
    }
}
