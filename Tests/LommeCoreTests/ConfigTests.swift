import LommeCore
import LommeTestSupport
import Testing

@Suite("Config rules")
struct ConfigTests {
    /// The names are the format's (docs/CODES.md, a plain code's JSON): spelled here as the
    /// promise, everywhere else through `Config.Field`.
    @Test func theFieldNamesAreSpelledAsConfigsSpellThem() throws {
        #expect(Config.knownFieldNames == ["clientId", "clientSecret", "userId", "accountNr", "name", "tokenUrl", "secretExpires"])
        #expect(FieldNames.known("SECRET") == "clientSecret" && FieldNames.known("cardaccountnr") == "accountNr")
        let config = try Config(jsonBytes: Array(#"{"clientId":"a","secret":"b","userId":"01010112345","cardAccountNr":"12345678903","tokenUrl":"https://bank.example/t"}"#.utf8),
                                checksums: false)
        #expect(config.json.text == #"{"clientId":"a","clientSecret":"b","userId":"01010112345","accountNr":"12345678903","tokenUrl":"https://bank.example/t"}"#)
        #expect(config.tokenURL == "https://bank.example/t")
    }

    @Test(arguments: ["010190", "311299", "290200", "150385"])
    func validNationalIdsPass(birth: String) {
        let number = Published.nationalId(birth: birth)
        #expect(NorwegianNumbers.isValidNationalId(number))
        let dNumber = Published.nationalId(birth: birth, dNumber: true)
        #expect(dNumber.first!.wholeNumberValue! >= 4)
        #expect(NorwegianNumbers.isValidNationalId(dNumber))
    }

    @Test func everySingleDigitChangeOfANationalIdFails() {
        let number = Array(Published.nationalId(birth: "150385"))
        for position in 0..<11 {
            for digit in "0123456789" where digit != number[position] {
                var changed = number
                changed[position] = digit
                #expect(!NorwegianNumbers.isValidNationalId(String(changed)), "\(String(changed)) should fail")
            }
        }
    }

    @Test func accountNumbers() {
        let good = Published.validAccount(prefix: "86011117")
        #expect(NorwegianNumbers.isValidAccountNumber(good))
        var bad = Array(good)
        bad[10] = bad[10] == "0" ? "1" : "0"
        #expect(!NorwegianNumbers.isValidAccountNumber(String(bad)))
        #expect(!NorwegianNumbers.isValidAccountNumber("1234567890"))
        #expect(!NorwegianNumbers.isValidAccountNumber("123456789012"))
        #expect(!NorwegianNumbers.isValidAccountNumber("1234567890a"))
        #expect(NorwegianNumbers.formatAccountNumber("12345678903") == "1234 56 78903")
    }

    @Test func aliasesSpacesAndDotsAreAccepted() throws {
        let base = sampleConfig()
        let dotted = base.accountNr.prefix(4) + "." + base.accountNr.dropFirst(4).prefix(2) + "." + base.accountNr.suffix(5)
        let text = """
            {"clientId":"\(base.clientId)","secret":"abc","userId":"\(base.userId.prefix(6)) \(base.userId.suffix(5))",
             "cardAccountNr":"\(dotted)","name":"Ola"}
            """
        let config = try Config(jsonBytes: Array(text.utf8))
        #expect(config.clientSecret == "abc")
        #expect(config.userId == base.userId)
        #expect(config.accountNr == base.accountNr)
        #expect(config.extras == [JSON.Member("name", .string("Ola"))])
    }

    @Test func conflictingAliasIsRefused() {
        let base = sampleConfig()
        let text = #"{"clientId":"a","clientSecret":"x","secret":"y","userId":"\#(base.userId)","accountNr":"\#(base.accountNr)"}"#
        #expect(throws: LommeError.refused(.configAliasConflict, "clientSecret and its alias secret are both given, with different values; keep one")) {
            try Config(jsonBytes: Array(text.utf8))
        }
    }

    @Test func failuresNameTheFieldAndExitSeven() {
        let base = sampleConfig()
        var badUser = Array(base.userId)
        badUser[10] = badUser[10] == "0" ? "1" : "0"
        let cases: [(Config, String)] = [
            (Config(clientId: "", clientSecret: "x", userId: base.userId, accountNr: base.accountNr), "clientId"),
            (Config(clientId: "bå", clientSecret: "x", userId: base.userId, accountNr: base.accountNr), "clientId"),
            (Config(clientId: String(repeating: "a", count: 201), clientSecret: "x", userId: base.userId, accountNr: base.accountNr), "clientId"),
            (Config(clientId: "a", clientSecret: "", userId: base.userId, accountNr: base.accountNr), "clientSecret"),
            (Config(clientId: "a", clientSecret: String(repeating: "x", count: 501), userId: base.userId, accountNr: base.accountNr), "clientSecret"),
            (Config(clientId: "a", clientSecret: "a\u{0}b", userId: base.userId, accountNr: base.accountNr), "clientSecret"),
            (Config(clientId: "a", clientSecret: "x", userId: String(badUser), accountNr: base.accountNr), "userId"),
            (Config(clientId: "a", clientSecret: "x", userId: "1234567890", accountNr: base.accountNr), "userId"),
            (Config(clientId: "a", clientSecret: "x", userId: base.userId, accountNr: "12345678900"), "accountNr"),
        ]
        for (config, field) in cases {
            do {
                try config.validate()
                Issue.record("\(field) case passed validation")
            } catch {
                #expect(error.code == .refused)
                #expect(error.message.hasPrefix(field), "message should name \(field): \(error.message)")
                #expect(!error.message.contains("\n"))
            }
        }
    }

    @Test func noCheckSkipsOnlyChecksums() throws {
        let test = Config(clientId: "a", clientSecret: "x", userId: "12345678901", accountNr: "12345678900")
        #expect(throws: LommeError.self) { try test.validate(checksums: true) }
        try test.validate(checksums: false)
        let short = Config(clientId: "a", clientSecret: "x", userId: "123", accountNr: "12345678900")
        #expect(throws: LommeError.self) { try short.validate(checksums: false) }
    }

    @Test func summaryHidesTheSecretAndPersonalNumber() {
        let config = sampleConfig(secret: "hunter2hunter2")
        let summary = config.summaryLines.joined(separator: "\n")
        #expect(!summary.contains("hunter2"))
        #expect(!summary.contains(config.userId))
        #expect(summary.contains(config.clientId))
        #expect(summary.contains(NorwegianNumbers.formatAccountNumber(config.accountNr)))
    }
}
