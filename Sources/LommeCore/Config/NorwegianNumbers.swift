/// The check-digit rules of Norwegian identity and account numbers (mod 11).
package enum NorwegianNumbers {
    /// A weighted mod-11 check digit; nil when the sum makes the number invalid (remainder 1).
    package static func mod11(_ digits: [Int], weights: [Int]) -> Int? {
        let sum = zip(digits, weights).reduce(0) { $0 + $1.0 * $1.1 }
        let check = (11 - sum % 11) % 11
        return check == 10 ? nil : check
    }

    static let nationalIdWeights1 = [3, 7, 6, 1, 8, 9, 4, 5, 2]
    static let nationalIdWeights2 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]
    package static let accountWeights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]

    /// Both check digits of an 11-digit fødselsnummer or D-number (D-numbers add 4 to the
    /// first digit; the check digits are computed the same way).
    package static func isValidNationalId(_ number: String) -> Bool {
        guard let digits = elevenDigits(number) else { return false }
        guard let first = mod11(Array(digits[0..<9]), weights: nationalIdWeights1), first == digits[9] else { return false }
        guard let second = mod11(Array(digits[0..<10]), weights: nationalIdWeights2), second == digits[10] else { return false }
        return true
    }

    /// The check digit of an 11-digit Norwegian bank account number.
    package static func isValidAccountNumber(_ number: String) -> Bool {
        guard let digits = elevenDigits(number) else { return false }
        guard let check = mod11(Array(digits[0..<10]), weights: accountWeights) else { return false }
        return check == digits[10]
    }

    /// `1234 56 78903`, the way banks print an account number.
    package static func formatAccountNumber(_ number: String) -> String {
        guard number.count == 11, number.allSatisfy(\.isASCII) else { return number }
        let characters = Array(number)
        return String(characters[0..<4]) + " " + String(characters[4..<6]) + " " + String(characters[6..<11])
    }

    /// Drops the spaces and dots people write inside numbers (`1234.56.78903`).
    package static func normalize(_ number: String) -> String {
        String(number.filter { $0 != " " && $0 != "." })
    }

    static func elevenDigits(_ number: String) -> [Int]? {
        let digits = number.unicodeScalars.compactMap { scalar -> Int? in
            (0x30...0x39).contains(scalar.value) ? Int(scalar.value - 0x30) : nil
        }
        return digits.count == 11 && number.unicodeScalars.count == 11 ? digits : nil
    }
}
