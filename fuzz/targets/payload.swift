// libFuzzer target: the plain payload parser (what a QR code or `import --stdin` hands in).
@testable import LommeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    _ = ClassifiedPayload(bytes).kind.isImportable
    if let config = try? PlainPayload.decode(bytes, checksums: false) {
        // What import does next: show it and store it; both must hold for any accepted input.
        _ = config.summaryLines
        let again = try? PlainPayload.decode(Array(PlainPayload.encode(config).utf8), checksums: false)
        precondition(again == config, "a config does not survive its own JSON")
    }
    _ = try? PlainPayload.decode(bytes, checksums: true)
    return 0
}
