/// Where the stored config came from, kept in the vault's contents as
/// `"source": {"kind": "sealed", "issuer": HEX}` or `{"kind": "plain"}`. A vault written
/// before this was recorded has no `source`; `status` says so.
package enum ConfigSource: Sendable, Equatable {
    /// A sealed code, signed by this Ed25519 issuer key.
    case sealed(issuer: [UInt8])
    /// A plain code: anyone could have made it.
    case plain
    /// Changed on this machine with `lomme-vault set` after it was stored.
    case local

    static let key = "source"

    init?(json: JSON) {
        switch json["kind"]?.stringValue {
        case "plain"?:
            self = .plain
        case "local"?:
            self = .local
        case "sealed"?:
            guard let hex = json["issuer"]?.stringValue, let key = Sodium.unhex(hex), key.count == PublicKeyCrypto.signPublicKeySize else {
                return nil
            }
            self = .sealed(issuer: key)
        default:
            return nil
        }
    }

    var json: JSON {
        switch self {
        case .plain: .object([JSON.Member("kind", .string("plain"))])
        case .local: .object([JSON.Member("kind", .string("local"))])
        case .sealed(let issuer): .object([JSON.Member("kind", .string("sealed")), JSON.Member("issuer", .string(Sodium.hex(issuer)))])
        }
    }

    /// How `status` says it.
    package var description: String {
        switch self {
        case .plain: "a plain code (unauthenticated: anyone who had the QR code could have made it)"
        case .local: "typed on this machine (`lomme-vault set` changed a field of it)"
        case .sealed(let issuer): "sealed by \(Fingerprint.of(issuer))"
        }
    }

    /// For `status --json`: `plain`, or `sealed` with the issuer's fingerprint.
    package var statusJSON: JSON {
        switch self {
        case .plain: .object([JSON.Member("kind", .string("plain"))])
        case .local: .object([JSON.Member("kind", .string("local"))])
        case .sealed(let issuer): .object([JSON.Member("kind", .string("sealed")), JSON.Member("issuer", .string(Fingerprint.of(issuer)))])
        }
    }
}
