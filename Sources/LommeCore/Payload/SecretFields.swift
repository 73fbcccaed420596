/// JSON that holds a secret but is not a config lomme-vault accepts (a rule failed, a
/// field is missing): `scan` shows it with the secrets hidden and the rule that failed,
/// never as the raw text. Which fields are secret is `FieldNames.isSecret`, the rule every
/// summary uses.
package enum SecretFields {
    /// True when `json` has a secret field (`FieldNames.isSecret`) at any depth.
    package static func holdsSecret(_ json: JSON) -> Bool {
        switch json {
        case .object(let members): return members.contains { FieldNames.isSecret($0.key) || holdsSecret($0.value) }
        case .array(let items): return items.contains(where: holdsSecret)
        default: return false
        }
    }

    /// Lines for a JSON object with a secret field: each field with secrets, the
    /// personal part of `userId` and anything nested hidden. Nil for any other text.
    package static func summaryLines(_ text: String) -> [String]? {
        guard let json = try? JSON.parse(text), case .object(let members) = json, holdsSecret(json) else { return nil }
        let rows = members.map { member in (JSON.printable(member.key), shown(member)) }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
    }

    static func shown(_ member: JSON.Member) -> String {
        switch member.value {
        case .object(let inner): return "(an object of \(inner.count) fields, not shown)"
        case .array(let items): return "(a list of \(items.count) items, not shown)"
        case .string(let text) where FieldNames.isSecret(member.key): return Config.maskedSecret(text)
        case _ where FieldNames.isSecret(member.key): return "******** (hidden)"
        case .string(let text) where member.key == Config.Field.userId: return Config.maskedUserId(text)
        case .string(let text): return JSON.printable(text)
        case let value: return JSON.printable(value.text)
        }
    }
}
