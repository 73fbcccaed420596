/// A bank API configuration: the four fields the original app scanned, plus any extra
/// fields (`name`, `tokenUrl`, …), kept in order and round-tripped.
package struct Config: Sendable, Equatable {
    package var clientId: String
    package var clientSecret: String
    /// The account owner's national id, 11 digits, no spaces.
    package var userId: String
    /// The account number, 11 digits, no spaces or dots.
    package var accountNr: String
    /// Fields beyond the four, in the order they came.
    package var extras: [JSON.Member]

    package static let fieldNames = [Field.clientId, Field.clientSecret, Field.userId, Field.accountNr]
    /// Optional fields the tool knows by name (the token endpoint, a label), after the four
    /// in `knownFieldNames`, which shell completion offers for `get`.
    package static let optionalFieldNames = [Field.name, Field.tokenUrl, Field.secretExpires]
    package static var knownFieldNames: [String] { fieldNames + optionalFieldNames }

    package init(clientId: String, clientSecret: String, userId: String, accountNr: String, extras: [JSON.Member] = []) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.userId = userId
        self.accountNr = accountNr
        self.extras = extras
    }

    /// A field's value as text, by its name: one of the four, or a string/number extra.
    package func value(of field: String) -> String? {
        switch field {
        case Field.clientId: return clientId
        case Field.clientSecret, Field.secretAlias: return clientSecret
        case Field.userId: return userId
        case Field.accountNr: return accountNr
        default:
            switch extras.first(where: { $0.key == field })?.value {
            case .string(let text): return text
            case .number(let literal): return literal
            case .bool(let flag): return flag ? "true" : "false"
            case .some(let other): return other.text
            case nil: return nil
            }
        }
    }

    /// The config as one JSON object: the four fields first, then the extras.
    package var json: JSON {
        .object([
            JSON.Member(Field.clientId, .string(clientId)),
            JSON.Member(Field.clientSecret, .string(clientSecret)),
            JSON.Member(Field.userId, .string(userId)),
            JSON.Member(Field.accountNr, .string(accountNr)),
        ] + extras)
    }

    /// The token endpoint, if the config names one.
    package var tokenURL: String? { extras.first(where: { $0.key == Field.tokenUrl })?.value.stringValue }
}

// MARK: - Reading

extension Config {
    /// Builds a config from a JSON object, accepting the aliases docs/contract.md names
    /// (`secret`, `cardAccountNr`) and spaces or dots in the numbers, then validates it.
    /// - Parameter checksums: false skips only the mod-11 rules (`--no-check`).
    package init(json: JSON, checksums: Bool = true) throws(LommeError) {
        guard case .object(let members) = json else {
            throw LommeError.refused(.configNotAnObject, "the payload is JSON but not an object with clientId, clientSecret, userId and accountNr")
        }
        var remaining = members
        func take(_ name: String, alias: String?) throws(LommeError) -> String {
            let main = try Config.text(of: &remaining, name)
            let other = try alias.map { alias throws(LommeError) in try Config.text(of: &remaining, alias) } ?? nil
            switch (main, other) {
            case (let value?, nil), (nil, let value?): return value
            case (let value?, let second?):
                guard value == second else {
                    throw LommeError.refused(.configAliasConflict, "\(name) and its alias \(alias!) are both given, with different values; keep one")
                }
                return value
            case (nil, nil):
                throw LommeError.refused(.configFieldMissing, "\(name) is missing; a config needs clientId, clientSecret, userId and accountNr")
            }
        }
        let clientId = try take(Field.clientId, alias: nil)
        let clientSecret = try take(Field.clientSecret, alias: Field.secretAlias)
        let userId = NorwegianNumbers.normalize(try take(Field.userId, alias: nil))
        let accountNr = NorwegianNumbers.normalize(try take(Field.accountNr, alias: Field.accountNrAlias))
        self.init(clientId: clientId, clientSecret: clientSecret, userId: userId, accountNr: accountNr, extras: remaining)
        try validate(checksums: checksums)
    }

    /// Parses a plain payload or config file and validates it.
    package init(jsonBytes: [UInt8], checksums: Bool = true) throws(LommeError) {
        let json: JSON
        do {
            json = try JSON.parse(jsonBytes)
        } catch {
            throw LommeError.refused(.configNotJSON, "the config is not valid JSON: \(error.reason)")
        }
        try self.init(json: json, checksums: checksums)
    }

    /// Removes `name` from `members` and returns its text; numbers count as text for the
    /// two number fields, since people write `"accountNr": 12345678903` too.
    static func text(of members: inout [JSON.Member], _ name: String) throws(LommeError) -> String? {
        guard let index = members.firstIndex(where: { $0.key == name }) else { return nil }
        let value = members.remove(at: index).value
        switch value {
        case .string(let text): return text
        case .number(let literal) where [Field.userId, Field.accountNr, Field.accountNrAlias].contains(name)
            && literal.allSatisfy(\.isNumber):
            return literal
        default:
            throw LommeError.refused(.configFieldNotText, "\(name) must be a JSON string")
        }
    }
}

// MARK: - Rules

extension Config {
    /// The field rules (docs/contract.md, "The configuration"). Each failure names the field and the rule.
    package func validate(checksums: Bool = true) throws(LommeError) {
        try Config.check(clientId: clientId)
        try Config.check(clientSecret: clientSecret)
        // Every other rule before the check digits, so a config failing both kinds names the first.
        try Config.check(userId: userId, checksums: false)
        try Config.check(accountNr: accountNr, checksums: false)
        for member in extras {
            if Config.fieldNames.contains(member.key) || member.key.isEmpty {
                throw LommeError.refused(.configFieldNameReserved, "the field name \"\(JSON.printable(member.key))\" is not allowed as an extra field")
            }
            if case .string(let text) = member.value {
                try Config.check(extra: member.key, text)
            } else if member.key == Field.secretExpires {
                throw LommeError.refused(.secretExpiresInvalid, "secretExpires must be a date written YYYY-MM-DD in a JSON string, as \"2027-02-24\"")
            }
        }
        guard checksums else { return }
        try Config.check(userId: userId, checksums: true)
        try Config.check(accountNr: accountNr, checksums: true)
    }

    /// The rules of one field, so a field can be checked as it is typed (`issue`'s questions).
    package static func check(clientId: String) throws(LommeError) {
        if clientId.isEmpty { throw refuse(.clientIdEmpty, "clientId is empty; it must be 1 to 200 printable ASCII characters") }
        if clientId.count > 200 { throw refuse(.clientIdTooLong, "clientId is \(clientId.count) characters long; at most 200 are allowed") }
        if !clientId.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) {
            throw refuse(.clientIdNotASCII, "clientId holds a character that is not printable ASCII; only A–Z, a–z, 0–9 and ASCII punctuation are allowed")
        }
    }

    package static func check(clientSecret: String) throws(LommeError) {
        if clientSecret.isEmpty { throw refuse(.clientSecretEmpty, "clientSecret is empty; it must be 1 to 500 characters") }
        if clientSecret.count > 500 { throw refuse(.clientSecretTooLong, "clientSecret is \(clientSecret.count) characters long; at most 500 are allowed") }
        if clientSecret.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw refuse(.clientSecretControl, "clientSecret holds a control character (such as NUL or a line break); it cannot be passed to programs safely")
        }
    }

    /// `userId` as stored (spaces and dots already removed); `checksums: false` skips only the mod-11 rule.
    package static func check(userId: String, checksums: Bool) throws(LommeError) {
        if userId.count != 11 || !userId.allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw refuse(.userIdMalformed, "userId must be an 11-digit Norwegian national id (fødselsnummer or D-number)")
        }
        if checksums && !NorwegianNumbers.isValidNationalId(userId) {
            throw refuse(.userIdChecksum, "userId fails the national id check digits (mod 11); check the number, or use --no-check for a test number")
        }
    }

    /// `accountNr` as stored (spaces and dots already removed); `checksums: false` skips only the mod-11 rule.
    package static func check(accountNr: String, checksums: Bool) throws(LommeError) {
        if accountNr.count != 11 || !accountNr.allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw refuse(.accountNrMalformed, "accountNr must be an 11-digit Norwegian account number, like 1234 56 78903")
        }
        if checksums && !NorwegianNumbers.isValidAccountNumber(accountNr) {
            throw refuse(.accountNrChecksum, "accountNr fails the account number check digit (mod 11); check the number, or use --no-check for a test number")
        }
    }

    /// A text extra field (`name`, `tokenUrl`, …): anything but NUL.
    package static func check(extra name: String, _ text: String) throws(LommeError) {
        if text.unicodeScalars.contains(where: { $0.value == 0 }) {
            throw refuse(.fieldHoldsNul, "the field \(JSON.printable(name)) holds a NUL character")
        }
        if name == Field.secretExpires { try SecretExpiry.check(text) }
    }

    private static func refuse(_ reason: LommeError.Reason, _ message: String) -> LommeError { LommeError.refused(reason, message) }
}

// MARK: - Showing

extension Config {
    /// `userId` with the personal part hidden: the birth date stays, the rest is starred.
    package var maskedUserId: String { Config.maskedUserId(userId) }

    package static func maskedUserId(_ userId: String) -> String { String(userId.prefix(6)) + " *****" }

    package static func maskedSecret(_ secret: String) -> String { "******** (\(secret.count) characters, hidden)" }

    /// An extra field's value as a person may see it: masked when its name says it is a
    /// secret (`FieldNames.isSecret`), control characters escaped.
    package static func shown(_ member: JSON.Member) -> String {
        let text: String
        if case .string(let value) = member.value { text = value } else { text = member.value.text }
        return FieldNames.isSecret(member.key) ? maskedSecret(text) : JSON.printable(text)
    }

    /// Lines for a person to check, with the secret and the personal number hidden.
    package var summaryLines: [String] { summaryLines(marking: nil) }

    /// Each field as a person sees it (`shown`), with its value as stored (`value`, to
    /// compare; never shown).
    var summaryFields: [(name: String, shown: String, value: String)] {
        var fields = [
            (Field.clientId, clientId, clientId),
            (Field.clientSecret, Config.maskedSecret(clientSecret), clientSecret),
            (Field.userId, maskedUserId, userId),
            (Field.accountNr, NorwegianNumbers.formatAccountNumber(accountNr), accountNr),
        ]
        for member in extras {
            fields.append((JSON.printable(member.key), Config.shown(member), member.value.text))
        }
        return fields
    }

    /// `summaryLines`, with each field whose value differs from `other`'s (or that `other`
    /// lacks) marked `*` in the margin: the one sign, on a re-import, of a new secret whose
    /// masked form looks the same. Nil `other`: nothing marked.
    package func summaryLines(marking other: Config?) -> [String] {
        let theirs = Dictionary(other?.summaryFields.map { ($0.name, $0.value) } ?? [], uniquingKeysWith: { first, _ in first })
        let fields = summaryFields
        let width = fields.map(\.name.count).max() ?? 0
        return fields.map { field in
            let changed = other != nil && theirs[field.name] != field.value
            return (changed ? "* " : "  ") + field.name + String(repeating: " ", count: width - field.name.count + 2) + field.shown
        }
    }

    /// True when `other` holds the same fields with the same values.
    package func sameFields(as other: Config) -> Bool {
        summaryFields.map { [$0.name, $0.value] } == other.summaryFields.map { [$0.name, $0.value] }
    }
}
