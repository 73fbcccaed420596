import LommeCore
import Testing

@Suite("QR text decoding")
struct QRTextTests {
    @Test func utf8WinsOverLatin1() {
        #expect(QRText.decode(Array("blåbær".utf8)) == "blåbær")
    }

    @Test func shiftJISIsDecoded() {
        // 日本 in Shift_JIS.
        #expect(QRText.decode([0x93, 0xFA, 0x96, 0x7B]) == "日本")
    }

    @Test func anyOtherBytesAreLatin1() {
        #expect(QRText.decode([0x62, 0xFF, 0xE6]) == "bÿæ")
    }
}
