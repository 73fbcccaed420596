/// The plain (compatible) payload: exactly the JSON the original app scans,
/// `{"clientId":"…","clientSecret":"…","userId":"…","accountNr":"…"}`, plus extras,
/// ASCII only. Whoever holds a plain QR holds the secret.
package enum PlainPayload {
    package static func encode(_ config: Config) -> String {
        config.json.text
    }

    /// `text` parsed, when it is JSON meant as a config (an object naming clientId and a
    /// secret), even one that breaks a rule; nil for anything else.
    static func configLike(_ text: String) -> JSON? {
        guard let json = try? JSON.parse(text), case .object(let members) = json else { return nil }
        let keys = Set(members.map(\.key))
        return keys.contains(Config.Field.clientId) && (keys.contains(Config.Field.clientSecret) || keys.contains(Config.Field.secretAlias)) ? json : nil
    }

    package static func decode(_ bytes: [UInt8], checksums: Bool = true) throws(LommeError) -> Config {
        try Config(jsonBytes: bytes, checksums: checksums)
    }
}
