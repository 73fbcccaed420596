/// The plain (compatible) payload: exactly the JSON the original app scans,
/// `{"clientId":"…","clientSecret":"…","userId":"…","accountNr":"…"}`, plus extras,
/// ASCII only. Whoever holds a plain QR holds the secret.
package enum PlainPayload {
    package static func encode(_ config: Config) -> String {
        config.json.text
    }

    /// True when `text` looks like JSON meant as a config (so a scan can stop early).
    package static func looksLikeConfig(_ text: String) -> Bool {
        guard let json = try? JSON.parse(text), case .object(let members) = json else { return false }
        let keys = Set(members.map(\.key))
        return keys.contains(Config.Field.clientId) && (keys.contains(Config.Field.clientSecret) || keys.contains(Config.Field.secretAlias))
    }

    package static func decode(_ bytes: [UInt8], checksums: Bool = true) throws(LommeError) -> Config {
        try Config(jsonBytes: bytes, checksums: checksums)
    }
}
