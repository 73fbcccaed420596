/// A child the parent issues codes to: a name, the receiving key of the child's device,
/// the child's own account number and any extra fields its codes carry.
///
///     {"name": "anna", "receivingKey": "lvk1…", "accountNr": "12345678903",
///      "fields": {"name": "Anna"}, "added": TIME}
package struct Child: Sendable, Equatable {
    package var name: String
    package var receivingKey: ReceivingKey
    package var accountNr: String
    /// Extra config fields for this child's codes (over the stored config's own).
    package var fields: [JSON.Member]
    package var added: Instant
    /// Orders this child's changes on several parents' machines (docs/SYNC.md, "Merging"):
    /// each change takes the highest version seen + 1; 0 for a child from before.
    package var version: UInt64 = 0
    /// The machine that made the last change; nil: this one.
    package var by: IssuerID?
    package var unknown: [JSON.Member] = []

    static let known: Set<String> = ["name", "receivingKey", Config.Field.accountNr, "fields", "added", "version", "by"]

    package init(name: String, receivingKey: ReceivingKey, accountNr: String, fields: [JSON.Member], added: Instant) {
        self.name = name
        self.receivingKey = receivingKey
        self.accountNr = accountNr
        self.fields = fields
        self.added = added
    }

    init?(json: JSON) {
        guard case .object(let members) = json, let name = json["name"]?.stringValue, Child.isValidName(name),
              let keyText = json["receivingKey"]?.stringValue, let key = ReceivingKey(stored: keyText),
              let accountNr = json[Config.Field.accountNr]?.stringValue, let added = json["added"]?.stringValue.flatMap(Instant.init(text:))
        else { return nil }
        var fields: [JSON.Member] = []
        if let object = json["fields"] {
            guard case .object(let list) = object else { return nil }
            fields = list
        }
        self.init(name: name, receivingKey: key, accountNr: accountNr, fields: fields, added: added)
        if let value = json["version"] {
            guard let number = value.uint64Value else { return nil }
            version = number
        }
        if let value = json["by"] {
            guard let id = value.stringValue.flatMap(IssuerID.init(hex:)) else { return nil }
            by = id
        }
        unknown = members.filter { !Child.known.contains($0.key) }
    }

    var json: JSON {
        var members = [
            JSON.Member("name", .string(name)),
            JSON.Member("receivingKey", .string(receivingKey.text)),
            JSON.Member(Config.Field.accountNr, .string(accountNr)),
            JSON.Member("fields", .object(fields)),
            JSON.Member("added", .string(added.text)),
        ]
        if version > 0 { members.append(JSON.Member("version", .number(String(version)))) }
        if let by { members.append(JSON.Member("by", .string(by.hex))) }
        return .object(members + unknown)
    }

    package func matches(_ other: String) -> Bool { name.lowercased() == other.lowercased() }

    // MARK: - Rules

    /// Letters a–z, A–Z, æøå, ÆØÅ, digits, `-` and `_`; 1 to 32 characters, starting with
    /// a letter or digit: a name that is safe in a file name (`issue --all --output-dir`)
    /// and on a terminal, and never an option or a key.
    package static func isValidName(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard (1...32).contains(scalars.count), let first = scalars.first, first != "-", first != "_" else { return false }
        return scalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "-_æøåÆØÅ".unicodeScalars.contains(scalar)
        }
    }

    package static func checkName(_ name: String, what: String = "a child's name") throws(LommeError) {
        guard isValidName(name) else {
            throw LommeError.usage(.childNameInvalid, "\(what) is 1 to 32 letters (a–z, æøå), digits, - or _, starting with a letter or digit; \(JSON.printable(name)) is not one")
        }
        if ReceivingKey.looksLikeKey(name) || ParentKey.looksLikeKey(name) {
            throw LommeError.usage(.childNameLikeKey, "\(what) may not start with lvk1 or lvp1, which is how keys start")
        }
    }

    /// Fields a child may not set with `--field`: the credential and the national id are
    /// the household's, the account is `--account`, the secret's expiry is `set secretExpires`.
    package static let reservedFields: Set<String> = [
        Config.Field.clientId, Config.Field.clientSecret, Config.Field.secretAlias, Config.Field.userId, Config.Field.accountNr,
        Config.Field.accountNrAlias, Config.Field.secretExpires,
    ]

    /// Parses `--field KEY=VALUE`.
    package static func field(_ text: String) throws(LommeError) -> JSON.Member {
        guard let equals = text.firstIndex(of: "=") else {
            throw LommeError.usage(.childFieldMalformed, "--field takes KEY=VALUE, as --field name=Anna; \(JSON.printable(text)) has no =")
        }
        let key = String(text[..<equals]), value = String(text[text.index(after: equals)...])
        guard !key.isEmpty, key.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "=" }) else {
            throw LommeError.usage(.childFieldMalformed, "a --field name is printable ASCII without spaces, as name or tokenUrl; \(JSON.printable(key)) is not")
        }
        if reservedFields.contains(key) {
            let why = key == Config.Field.accountNr || key == Config.Field.accountNrAlias ? "give the child's account with --account"
                : key == Config.Field.secretExpires ? "the secret's expiry is the household's: `lomme-vault set secretExpires`"
                : "it is the household's, the same for every child (`lomme-vault set \(key == Config.Field.secretAlias ? Config.Field.clientSecret : key)`)"
            throw LommeError.usage(.childFieldReserved, "--field may not set \(key): \(why)")
        }
        if FieldNames.isSecret(key) {
            throw LommeError.usage(.childFieldSecret, "--field may not set \(key): its name says it is a secret, and the command line is readable by every program on this machine (a child's codes carry the household's secret already)")
        }
        try Config.check(extra: key, value)
        return JSON.Member(key, .string(value))
    }

    /// The config this child's codes carry: the stored one with the child's account and
    /// fields (a field of the child's replaces the stored one of that name).
    package func config(from stored: Config) -> Config {
        var config = stored
        config.accountNr = accountNr
        for field in fields {
            if let index = config.extras.firstIndex(where: { $0.key == field.key }) {
                config.extras[index] = field
            } else {
                config.extras.append(field)
            }
        }
        return config
    }
}
