/// Where the stored config came from, kept in the vault's contents as
/// `"source": {"kind": "sealed", "issuer": HEX}`, `{"kind": "plain"}`, `{"kind": "local"}`
/// or `{"kind": "parent", "issuer": HEX}`. A vault written before this was recorded has no
/// `source`; `status` says so.
package enum ConfigSource: Sendable, Equatable {
    /// A sealed code, signed by this Ed25519 issuer key.
    case sealed(issuer: IssuerKey)
    /// A plain code: anyone could have made it.
    case plain
    /// Changed on this machine with `lomme-vault set` after it was stored.
    case local
    /// Another parent's machine of the household (a hand-over or its journal): the
    /// revision it made, its issuer key.
    case parent(issuer: IssuerKey)

    static let key = "source"

    /// The kinds' names in the vault and in `status --json`, each written here only.
    private enum Kind: String {
        case sealed, plain, local, parent
    }

    private var kind: Kind {
        switch self {
        case .sealed: .sealed
        case .plain: .plain
        case .local: .local
        case .parent: .parent
        }
    }

    init?(json: JSON) {
        switch json["kind"]?.stringValue.flatMap(Kind.init(rawValue:)) {
        case .plain?:
            self = .plain
        case .local?:
            self = .local
        case let kind? where kind == .sealed || kind == .parent:
            guard let key = json["issuer"]?.stringValue.flatMap(IssuerKey.init(hex:)) else {
                return nil
            }
            self = kind == .sealed ? .sealed(issuer: key) : .parent(issuer: key)
        default:
            return nil
        }
    }

    var json: JSON { object(issuer: \.hex) }

    private func object(issuer text: (IssuerKey) -> String) -> JSON {
        var members = [JSON.Member("kind", .string(kind.rawValue))]
        switch self {
        case .sealed(let issuer), .parent(let issuer): members.append(JSON.Member("issuer", .string(text(issuer))))
        case .plain, .local: break
        }
        return .object(members)
    }

    /// How `status` says it.
    package var description: String {
        switch self {
        case .plain: "a plain code (unauthenticated: anyone who had the QR code could have made it)"
        case .local: "typed on this machine (`lomme-vault set` changed a field of it)"
        case .sealed(let issuer): "sealed by \(issuer.fingerprint)"
        case .parent(let issuer): "another parent's machine of the household (issuer \(issuer.fingerprint))"
        }
    }

    /// For `status --json`: `plain`, or `sealed` with the issuer's fingerprint.
    package var statusJSON: JSON { object(issuer: \.fingerprint) }
}
