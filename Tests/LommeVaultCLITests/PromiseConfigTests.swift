import Foundation
import LommeCore
import Testing

/// docs/contract.md, "The configuration": the field rules through the built binary, and the check
/// digits against numbers with a non-zero digit in every weighted position.
@Suite("Promises: config rules")
struct PromiseConfigTests {
    /// National ids (synthetic, both check digits non-zero) and account numbers with every
    /// digit non-zero, and 3207 40 68323: Entercard's published account for card payments,
    /// whose IBAN NO39 3207 4068 323 is checked by mod 97 below.
    static let nationalIds = ["15128972371", "23116539896"]
    static let accounts = ["98765432197", "34567891234", "15963712488", "32074068323"]

    /// The same rules in Python, written from the published algorithm, as a second opinion.
    static let independent = #"""
        import sys
        def mod11(d, w):
            c = (11 - sum(a * b for a, b in zip(d, w)) % 11) % 11
            return None if c == 10 else c
        def nid(n):
            d = [int(c) for c in n]
            return mod11(d[:9], [3, 7, 6, 1, 8, 9, 4, 5, 2]) == d[9] and mod11(d[:10], [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) == d[10]
        def acc(n):
            d = [int(c) for c in n]
            return mod11(d[:10], [5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) == d[10]
        kind, numbers = sys.argv[1], sys.argv[2:]
        print(" ".join("1" if (nid if kind == "nid" else acc)(n) else "0" for n in numbers))
        """#

    static func python(_ kind: String, _ numbers: [String]) -> [Bool] {
        let box = CLI.Sandbox()
        let script = box.write("check.py", independent)
        let r = CLI.run([script, kind] + numbers, shell: #"exec /usr/bin/python3 "$@""#)
        #expect(r.status == 0, "\(r.stderr)")
        return r.out.split(separator: " ").map { $0.hasPrefix("1") }
    }

    /// Every number, and each with any one digit changed, is judged the same by the
    /// library and the independent implementation; the originals are all valid.
    @Test func checkDigitsAgreeWithAnIndependentImplementation() {
        func variants(_ number: String) -> [String] {
            let digits = Array(number)
            return [number] + digits.indices.map { index in
                var changed = digits
                changed[index] = Character(String((Int(String(digits[index]))! + 3) % 10))
                return String(changed)
            }
        }
        let ids = Self.nationalIds.flatMap(variants), accounts = Self.accounts.flatMap(variants)
        #expect(Self.python("nid", ids) == ids.map(NorwegianNumbers.isValidNationalId))
        #expect(Self.python("acc", accounts) == accounts.map(NorwegianNumbers.isValidAccountNumber))
        #expect(Self.python("nid", Self.nationalIds) == Self.nationalIds.map { _ in true })
        #expect(Self.python("acc", Self.accounts) == Self.accounts.map { _ in true })
        // Entercard's IBAN: "32074068323" + "NO39", letters as 23 and 24, is 1 mod 97.
        let iban = "32074068323" + "2324" + "39"
        let remainder = iban.reduce(0) { (sum: Int, digit: Character) -> Int in (sum * 10 + digit.wholeNumberValue!) % 97 }
        #expect(remainder == 1)
    }

    func importing(userId: String = "15128972371", accountNr: String = "98765432197", clientId: String = "client-P",
                   secret: String = "promise-secret", check: Bool = true) -> CLI.Result {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "config promise passphrase\n")
        let json = #"{"clientId":"\#(clientId)","clientSecret":"\#(secret)","userId":"\#(userId)","accountNr":"\#(accountNr)"}"#
        return CLI.run(["import", "--stdin", "--yes", "--vault", box.vault, "--passphrase-file", pw] + (check ? [] : ["--no-check"]), stdin: json)
    }

    @Test func realNumbersImportAndOneWrongDigitIsRefused() {
        for (id, account) in zip(Self.nationalIds + Self.nationalIds, Self.accounts) {
            #expect(importing(userId: id, accountNr: account).status == 0, "\(id) \(account)")
        }
        expectRefusal(importing(accountNr: "98765432196"), 7, "accountNr fails the account number check digit")
        expectRefusal(importing(userId: "15128972372"), 7, "userId fails the national id check digits")
        expectRefusal(importing(userId: "15128972361"), 7, "userId fails the national id check digits")
        // The weighted sum of 1596371247 leaves remainder 1: no check digit makes it valid.
        expectRefusal(importing(accountNr: "15963712470"), 7, "accountNr fails")
        #expect(Self.python("acc", ["15963712470"]) == [false])
        #expect(NorwegianNumbers.mod11([1, 5, 9, 6, 3, 7, 1, 2, 4, 7], weights: NorwegianNumbers.accountWeights) == nil)
    }

    /// --no-check skips the check digits only, never the shape of the numbers.
    @Test(arguments: [
        ("1234567890", "98765432197", "accountNr must be an 11-digit"),
        ("123456789012", "98765432197", "accountNr must be an 11-digit"),
        ("1234567890a", "98765432197", "accountNr must be an 11-digit"),
        ("98765432197", "1512897237", "userId must be an 11-digit"),
        ("98765432197", "151289723712", "userId must be an 11-digit"),
    ])
    func noCheckNeverSkipsTheShape(_ account: String, _ id: String, _ words: String) {
        expectRefusal(importing(userId: id, accountNr: account, check: false), 7, words)
    }

    @Test func lengthsAndCharactersAreRefusedAtTheirLimits() {
        #expect(importing(clientId: String(repeating: "c", count: 200)).status == 0)
        expectRefusal(importing(clientId: String(repeating: "c", count: 201)), 7, "at most 200")
        #expect(importing(secret: String(repeating: "s", count: 500)).status == 0)
        expectRefusal(importing(secret: String(repeating: "s", count: 501)), 7, "at most 500")
        expectRefusal(importing(clientId: #"client\u007f"#), 7, "printable ASCII")
    }

    /// `scan` of a plain code shows the fields with the secret and the personal number
    /// hidden — also when the config fails a rule.
    @Test(arguments: ["15128972371", "15128972372"])
    func summariesMaskTheSecretAndThePersonalNumber(_ userId: String) {
        let box = CLI.Sandbox()
        let secret = "masked-Secret-77"
        let json = #"{"clientId":"client-S","clientSecret":"\#(secret)","userId":"\#(userId)","accountNr":"98765432197"}"#
        let r = CLI.run(["scan", CLI.qrImage(json, in: box)])
        let shown = r.out + r.stderr
        #expect(shown.contains("client-S") || shown.contains("userId"), "\(shown)")
        #expect(!shown.contains(secret) && !shown.contains("masked-Secret"), "\(shown)")
        #expect(!shown.contains(userId) && !shown.contains(String(userId.dropFirst(6))), "\(shown)")
    }
}
