import LommeCore

/// Check digits computed here from the published algorithm (Skatteetaten's fødselsnummer
/// rule; the bank account MOD11 rule), independently of the code under test.
package enum Published {
    package static func check(_ digits: [Int], _ weights: [Int]) -> Int? {
        let remainder = zip(digits, weights).map { $0 * $1 }.reduce(0, +) % 11
        if remainder == 0 { return 0 }
        return 11 - remainder == 10 ? nil : 11 - remainder
    }

    /// The first valid national id that starts with `nineDigits`' date and individual part.
    package static func nationalId(birth: String, dNumber: Bool = false) -> String {
        for individual in 100...999 {
            var digits = (birth + String(individual)).compactMap { $0.wholeNumberValue }
            if dNumber { digits[0] += 4 }
            guard let k1 = check(digits, [3, 7, 6, 1, 8, 9, 4, 5, 2]) else { continue }
            guard let k2 = check(digits + [k1], [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) else { continue }
            return (digits + [k1, k2]).map(String.init).joined()
        }
        fatalError("no valid number")
    }

    package static func account(_ ten: String) -> String? {
        let digits = ten.compactMap { $0.wholeNumberValue }
        guard let k = check(digits, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) else { return nil }
        return ten + String(k)
    }

    package static func validAccount(prefix: String) -> String {
        for n in 0...99 {
            let ten = prefix + (n < 10 ? "0\(n)" : "\(n)")
            if let account = account(String(ten.prefix(10))) { return account }
        }
        fatalError("no valid account")
    }
}

/// A config made from valid numbers, for other suites too.
package func sampleConfig(secret: String = "s3cr3t:with%odd+chars/ æ", extras: [JSON.Member] = []) -> Config {
    Config(
        clientId: "lommepenger-0123456789abcdef0123", clientSecret: secret,
        userId: Published.nationalId(birth: "150385"), accountNr: Published.validAccount(prefix: "12345678"),
        extras: extras)
}
