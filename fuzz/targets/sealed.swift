// libFuzzer target: sealed codes (`LV2:` + Base45), what a photo or `import --stdin` hands
// in. The first byte picks the layer: the whole text through Envelope (and, when it
// parses, everything scan and import show of it), or the box's plaintext straight into
// SealedContent (signature, clock, packed config) as if the box had opened. Any input must
// give a value or a LommeError, never a crash or an overflow.
@testable import LommeCore

let device = ReceivingKeyPair.generate(seed: [UInt8](repeating: 1, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    if mode & 1 == 0 {
        let text = String(decoding: rest, as: UTF8.self)
        _ = ClassifiedPayload(rest)
        if let envelope = try? Envelope(text: text) {
            _ = Instant(seconds: envelope.issued).text + Instant(seconds: envelope.expires).text
            for now in [Int64(0), envelope.issued, envelope.expires, Envelope.maxTime] {
                _ = try? envelope.checkClock(now: now)
            }
            _ = try? envelope.open(with: device, now: envelope.issued)
        }
    } else {
        // Every version a code may carry (a version 2 code has no household key or vouch).
        for version in Envelope.readableVersions {
            let header = [version] + [UInt8](repeating: 0, count: Envelope.headerSize - 1)
            for checksums in [false, true] {
                if let content = try? SealedContent(rest, version: version, header: header, recipient: device.publicKey.bytes, checksums: checksums) {
                    _ = content.config.summaryLines
                }
            }
        }
        // The packed config alone, as CompactConfig reads it after the signature.
        if let config = try? CompactConfig.decode(rest, checksums: false) {
            precondition((try? CompactConfig.decode(CompactConfig.encode(config), checksums: false)) == config, "a config does not survive packing")
        }
    }
    return 0
}
