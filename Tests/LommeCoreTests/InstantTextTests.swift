import LommeCore
import LommeTestSupport
import Testing

/// A time is kept as an `Instant` and written one way, RFC 3339 in UTC as every version
/// wrote it; what a newer writer might add (a fraction, an offset, lower case) is read, and
/// anything else is not a time.
@Suite("Instants as text")
struct InstantTextTests {
    @Test func anInstantIsWrittenAsTheVaultAlwaysWroteTimes() {
        #expect(Instant(seconds: 0).text == "1970-01-01T00:00:00Z")
        #expect(Instant(seconds: 1_738_324_800).text == "2025-01-31T12:00:00Z")
        #expect(Instant(seconds: 1_709_208_000).text == "2024-02-29T12:00:00Z")
        #expect(Instant(seconds: -1).text == "1969-12-31T23:59:59Z")
        #expect(Instant(seconds: -62_167_219_200).text == "0000-01-01T00:00:00Z")
        #expect(Instant(seconds: 253_402_300_799).text == "9999-12-31T23:59:59Z")
        #expect(Instant(seconds: 253_402_300_800).text.contains("outside") && Instant(seconds: Int64.min).text.contains("outside"))
        #expect(Instant(seconds: 1_738_324_800).day == "2025-01-31")
    }

    @Test func whatIsWrittenReadsBackToTheSameSecond() {
        var seconds: Int64 = -62_167_219_200
        while seconds <= 253_402_300_799 {
            let instant = Instant(seconds: seconds)
            #expect(Instant(text: instant.text) == instant, "\(instant.text)")
            seconds += 86_399 * 97 + 13
        }
    }

    @Test func aNewerWritersSpellingsAreReadAndNothingElse() {
        let noon = Instant(seconds: 1_738_324_800)
        for text in ["2025-01-31T12:00:00Z", "2025-01-31T12:00:00.999Z", "2025-01-31t12:00:00z", "2025-01-31 12:00:00Z",
                     "2025-01-31T13:00:00+01:00", "2025-01-31T11:30:00-00:30", "2025-01-31T12:00:00.5+00:00"] {
            #expect(Instant(text: text) == noon, "\(text)")
        }
        for text in ["", "t", "2025-01-31", "2025-01-31T12:00:00", "2025-02-30T00:00:00Z", "2023-02-29T00:00:00Z",
                     "2025-13-01T00:00:00Z", "2025-01-31T24:00:00Z", "2025-01-31T12:60:00Z", "2025-01-31T12:00:00Zx",
                     "2025-01-31T12:00:00.Z", "2025-01-31T12:00:00+0100", "+025-01-31T12:00:00Z", "(a time outside years 0-9999)"] {
            #expect(Instant(text: text) == nil, "\(text)")
        }
    }

    @Test func millisecondsFallInTheirSecondAndInstantsCompare() {
        #expect(Instant(milliseconds: 1999) == Instant(seconds: 1) && Instant(milliseconds: 2000) == Instant(seconds: 2))
        #expect(Instant(milliseconds: -1) == Instant(seconds: -1) && Instant(milliseconds: -1000) == Instant(seconds: -1))
        #expect(Instant(seconds: 1) < Instant(seconds: 2) && [Instant(seconds: 3), Instant(seconds: 1)].max() == Instant(seconds: 3))
    }
}
