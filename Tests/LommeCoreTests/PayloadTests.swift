@testable import LommeCore
import LommeTestSupport
import Testing

@Suite("Plain payload and JSON")
struct PayloadTests {
    @Test func plainPayloadIsTheOriginalAppsJSONInASCII() throws {
        let config = sampleConfig(secret: "pw", extras: [JSON.Member("name", .string("Blåbær Ærlig Øst")), JSON.Member("limit", .number("250"))])
        let text = PlainPayload.encode(config)
        #expect(text.hasPrefix(#"{"clientId":"\#(config.clientId)","clientSecret":"pw","userId":"\#(config.userId)","accountNr":"\#(config.accountNr)","#))
        #expect(text.contains(#""name":"Bl\u00e5b\u00e6r \u00c6rlig \u00d8st""#))
        #expect(text.utf8.allSatisfy { $0 < 0x80 })
        #expect(try PlainPayload.decode(Array(text.utf8)) == config)
    }

    @Test func rawUTF8ExtrasParseToo() throws {
        let config = sampleConfig()
        let text = #"{"clientId":"a","clientSecret":"b","userId":"\#(config.userId)","accountNr":"\#(config.accountNr)","name":"Kåre 😀"}"#
        let parsed = try PlainPayload.decode(Array(text.utf8))
        #expect(parsed.extras == [JSON.Member("name", .string("Kåre 😀"))])
        #expect(parsed.json.text.contains(#"K\u00e5re \ud83d\ude00"#))
    }

    @Test(arguments: [
        ("", "ends too early"),
        ("not json", "unexpected"),
        (#"{"a":1,"a":2}"#, "appears twice"),
        (#"{"a":"x"} trailing"#, "more after"),
        (#"{"a":"\ud800"}"#, "unpaired surrogate"),
        ("{\"a\":\"x\u{1}\"}", "control character"),
        (String(repeating: "[", count: 100), "nested too deeply"),
        (#"{"a":01}"#, "expected"),
    ])
    func strictParserRefuses(input: String, reason: String) {
        do {
            _ = try JSON.parse(input)
            Issue.record("parsed: \(input)")
        } catch {
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONError.self) { try JSON.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func wrongTypesAndMissingFieldsExitSeven() {
        for text in [#"[1,2]"#, #"{"clientId":5}"#, #"{"clientId":"a"}"#, #"{"clientId":"a","clientSecret":true,"userId":"1","accountNr":"2"}"#] {
            do {
                _ = try PlainPayload.decode(Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.code == .refused)
            }
        }
    }
}
