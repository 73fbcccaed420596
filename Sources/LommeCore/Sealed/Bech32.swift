/// Bech32 (BIP 173), the copy-paste-safe, checksummed text `age` uses for its keys:
/// lower-case letters and digits without look-alikes, and a checksum that catches any
/// typo of up to four characters. Written upper-case it fits QR alphanumeric mode.
package enum Bech32 {
    static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    static let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]

    static func polymod(_ values: [UInt8]) -> UInt32 {
        var check: UInt32 = 1
        for value in values {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(value)
            for bit in 0..<5 where (top >> bit) & 1 == 1 { check ^= generator[bit] }
        }
        return check
    }

    static func expand(_ prefix: String) -> [UInt8] {
        let bytes = Array(prefix.utf8)
        return bytes.map { $0 >> 5 } + [0] + bytes.map { $0 & 31 }
    }

    /// Regroups bits: 8 → 5 to encode, 5 → 8 (padding refused) to decode.
    static func regroup(_ input: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator = 0
        var bits = 0
        var output: [UInt8] = []
        let mask = (1 << to) - 1
        // Only the bits not yet emitted are kept, so the accumulator stays small however long the input.
        let keep = (1 << (from + to - 1)) - 1
        for value in input {
            accumulator = (accumulator << from | Int(value)) & keep
            bits += from
            while bits >= to {
                bits -= to
                output.append(UInt8((accumulator >> bits) & mask))
            }
        }
        if pad {
            if bits > 0 { output.append(UInt8((accumulator << (to - bits)) & mask)) }
        } else if bits >= from || (accumulator << (to - bits)) & mask != 0 {
            return nil
        }
        return output
    }

    package static func encode(prefix: String, data: [UInt8]) -> String {
        let values = regroup(data, from: 8, to: 5, pad: true)!
        let checksumInput = expand(prefix) + values + [0, 0, 0, 0, 0, 0]
        let checksum = polymod(checksumInput) ^ 1
        let checksumValues = (0..<6).map { (index: Int) -> UInt8 in UInt8((checksum >> UInt32(5 * (5 - index))) & 31) }
        return prefix + "1" + String(decoding: (values + checksumValues).map { charset[Int($0)] }, as: UTF8.self)
    }

    /// The data, if `text` is `prefix` + "1" + valid Bech32 (either case, not mixed).
    package static func decode(_ text: String, prefix: String) -> [UInt8]? {
        let lower = text.lowercased()
        guard lower == text || text.uppercased() == text else { return nil }
        guard lower.hasPrefix(prefix + "1") else { return nil }
        let body = Array(lower.utf8.dropFirst(prefix.utf8.count + 1))
        guard body.count >= 6 else { return nil }
        var values: [UInt8] = []
        for character in body {
            guard let index = charset.firstIndex(of: character) else { return nil }
            values.append(UInt8(index))
        }
        guard polymod(expand(prefix) + values) == 1 else { return nil }
        return regroup(Array(values.dropLast(6)), from: 5, to: 8, pad: false)
    }
}
