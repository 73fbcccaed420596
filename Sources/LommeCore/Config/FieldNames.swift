/// Field names as people type them: the known fields in any case, the near misses that
/// must not become new fields (`set ClientSecret`, `set clientSecert`), and which fields
/// hold a secret. Every command that takes a field name asks here.
package enum FieldNames {
    /// The aliases a config may use (docs/contract.md: `secret` for clientSecret, `cardAccountNr` for accountNr).
    static let aliases = [Config.Field.secretAlias: Config.Field.clientSecret, Config.Field.accountNrAlias: Config.Field.accountNr]

    /// The known field `name` is, in any case (aliases too), as it is written.
    package static func known(_ name: String) -> String? {
        let lower = name.lowercased()
        if let known = Config.knownFieldNames.first(where: { $0.lowercased() == lower }) { return known }
        return aliases.first { $0.key.lowercased() == lower }?.value
    }

    /// The one rule for which fields hold a secret, used by every summary (`scan`, `import`,
    /// `issue`, `status`, `child list`), by `set` (asked without echo) and by `child add`
    /// (no secret on the command line). A field is a secret when its name, compared with
    /// case, `_` and `-` ignored, holds one of `secretWords` anywhere (`apiKey`,
    /// `refresh_token`, `dbPasswd`, `sessionToken`, `bankKey`) or is one of `secretNames`
    /// whole. The known fields are what they are: `clientSecret` (and its alias `secret`) is
    /// a secret, `tokenUrl` and `secretExpires` are not.
    package static func isSecret(_ name: String) -> Bool {
        if let known = known(name) { return known == Config.Field.clientSecret }
        let folded = String(name.lowercased().filter { $0 != "_" && $0 != "-" })
        return secretWords.contains(where: folded.contains) || secretNames.contains(folded)
    }

    /// Words that make a field a secret wherever they appear in its name (docs/contract.md,
    /// "Secrets").
    static let secretWords = ["secret", "password", "passwd", "passphrase", "token", "key", "credential"]

    /// Names that are a secret only as the whole name: as parts of a name they are in too
    /// many harmless words (`pin` in `shipping`, `pass` in `passenger`, `auth` in `author`).
    static let secretNames: Set<String> = ["pwd", "pass", "pin", "bearer", "auth", "authorization"]

    /// The name in `candidates` nearest to `name` (case ignored) when it is one or two
    /// edits away (an insertion, deletion, substitution or swap of neighbours each).
    package static func nearest(_ name: String, among candidates: [String]) -> String? {
        let typed = Array(name.lowercased())
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= 2, distance < best?.distance ?? Int.max { best = (candidate, distance) }
        }
        return best?.name
    }

    /// The optimal string alignment distance (Damerau–Levenshtein without repeated edits).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { row[j] = min(row[j], previous2[j - 2] + 1) }
            }
            (previous2, previous, row) = (previous, row, previous2)
        }
        return previous[b.count]
    }
}
