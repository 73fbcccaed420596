import CSodium

/// Secret bytes in memory from `sodium_malloc`: guarded pages, locked so they are not
/// swapped out (`sodium_mlock` is part of `sodium_malloc`), wiped with `sodium_memzero`
/// and freed when the last reference goes. Raw pointers stay inside this type.
package final class SecureBytes: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<UInt8>
    package let count: Int

    /// `count` zero bytes.
    package init(count: Int) {
        Sodium.initialize()
        let size = max(count, 1)
        guard let raw = sodium_malloc(size) else {
            fatalError("sodium_malloc(\(size)) failed: out of memory")
        }
        pointer = raw.bindMemory(to: UInt8.self, capacity: size)
        sodium_memzero(pointer, size)
        self.count = count
    }

    /// A copy of `bytes`. The caller should wipe its own copy (`SecureBytes.wipe`).
    package convenience init(copying bytes: [UInt8]) {
        self.init(count: bytes.count)
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { pointer.update(from: base, count: bytes.count) }
        }
    }

    /// `count` random bytes.
    package static func random(count: Int) -> SecureBytes {
        let bytes = SecureBytes(count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return bytes
    }

    deinit {
        sodium_free(pointer)  // sodium_free wipes before it frees.
    }

    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    package func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// A plain array copy (for the few places that must hand bytes to Swift code).
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: pointer, count: count)) }

    /// A copy of bytes `range`.
    package func slice(_ range: Range<Int>) -> SecureBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        let result = SecureBytes(count: range.count)
        result.withUnsafeMutableBytes { target in
            if range.count > 0 { target.baseAddress!.copyMemory(from: pointer + range.lowerBound, byteCount: range.count) }
        }
        return result
    }

    /// Constant-time comparison.
    package func isEqual(to other: SecureBytes) -> Bool {
        count == other.count && other.withUnsafeBytes { sodium_memcmp(pointer, $0.baseAddress!, count) == 0 }
    }

    /// Overwrites an ordinary array's bytes with zeros (best effort: copies Swift made
    /// earlier are out of reach).
    package static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        }
        bytes.removeAll()
    }
}

/// libsodium set-up, done once.
package enum Sodium {
    nonisolated(unsafe) private static var ready = false

    package static func initialize() {
        if ready { return }
        guard sodium_init() >= 0 else { fatalError("libsodium could not be initialised") }
        ready = true
    }

    /// Stops the tool when libsodium reports failure where none is possible with valid
    /// sizes (key derivation, hashing, encryption): nothing half-made may be used.
    static func require(_ result: Int32, _ what: String) {
        if result != 0 { fatalError("libsodium \(what) failed") }
    }

    package static func randomBytes(_ count: Int) -> [UInt8] {
        initialize()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// Unkeyed or keyed BLAKE2b (`crypto_generichash`) of `input`.
    package static func blake2b(_ input: [UInt8], length: Int, key: SecureBytes? = nil) -> [UInt8] {
        initialize()
        var output = [UInt8](repeating: 0, count: length)
        if let key {
            require(key.withUnsafeBytes { keyBuffer in
                crypto_generichash(&output, length, input, UInt64(input.count),
                                   keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBuffer.count)
            }, "crypto_generichash")
        } else {
            require(crypto_generichash(&output, length, input, UInt64(input.count), nil, 0), "crypto_generichash")
        }
        return output
    }

    /// Writes standard Base64 (with padding) of `input` at `output`, followed by a NUL;
    /// `output` must hold `base64Length(input.count) + 1` bytes. Constant-time
    /// (`sodium_bin2base64`), for secrets held in locked memory.
    package static func base64(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        initialize()
        precondition(output.count >= base64Length(input.count) + 1)
        _ = sodium_bin2base64(output.baseAddress!.assumingMemoryBound(to: CChar.self), output.count,
                              input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                              sodium_base64_VARIANT_ORIGINAL)
    }

    /// The length of standard Base64 (with padding) of `count` bytes.
    package static func base64Length(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    package static func unhex(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
