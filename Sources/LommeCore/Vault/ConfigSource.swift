/// Where the stored config came from, kept in the vault's contents as
/// `"source": {"kind": "sealed", "issuer": HEX}` or `{"kind": "plain"}`. A vault written
/// before this was recorded has no `source`; `status` says so.
package enum ConfigSource: Sendable, Equatable {
    /// A sealed code, signed by this Ed25519 issuer key.
    case sealed(issuer: IssuerKey)
    /// A plain code: anyone could have made it.
    case plain
    /// Changed on this machine with `lomme-vault set` after it was stored.
    case local

    static let key = "source"

    /// The kinds' names in the vault and in `status --json`, each written here only.
    private enum Kind: String {
        case sealed, plain, local
    }

    private var kind: Kind {
        switch self {
        case .sealed: .sealed
        case .plain: .plain
        case .local: .local
        }
    }

    init?(json: JSON) {
        switch json["kind"]?.stringValue.flatMap(Kind.init(rawValue:)) {
        case .plain?:
            self = .plain
        case .local?:
            self = .local
        case .sealed?:
            guard let key = json["issuer"]?.stringValue.flatMap(IssuerKey.init(hex:)) else {
                return nil
            }
            self = .sealed(issuer: key)
        default:
            return nil
        }
    }

    var json: JSON { object(issuer: \.hex) }

    private func object(issuer text: (IssuerKey) -> String) -> JSON {
        var members = [JSON.Member("kind", .string(kind.rawValue))]
        if case .sealed(let issuer) = self { members.append(JSON.Member("issuer", .string(text(issuer)))) }
        return .object(members)
    }

    /// How `status` says it.
    package var description: String {
        switch self {
        case .plain: "a plain code (unauthenticated: anyone who had the QR code could have made it)"
        case .local: "typed on this machine (`lomme-vault set` changed a field of it)"
        case .sealed(let issuer): "sealed by \(issuer.fingerprint)"
        }
    }

    /// For `status --json`: `plain`, or `sealed` with the issuer's fingerprint.
    package var statusJSON: JSON { object(issuer: \.fingerprint) }
}
