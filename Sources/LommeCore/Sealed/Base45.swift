/// Base45 (RFC 9285): bytes as text in the 45 characters of QR alphanumeric mode, which
/// packs 11 bits per 2 characters — about 20 % smaller in a QR code than bytes.
package enum Base45 {
    package static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)
    static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = Int8(index) }
        return table
    }()

    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 2 * 3 + 2)
        var index = 0
        while index + 1 < bytes.count {
            var value = Int(bytes[index]) * 256 + Int(bytes[index + 1])
            for _ in 0..<3 {
                output.append(alphabet[value % 45])
                value /= 45
            }
            index += 2
        }
        if index < bytes.count {
            let value = Int(bytes[index])
            output.append(alphabet[value % 45])
            output.append(alphabet[value / 45])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// nil for a character outside the alphabet, a dangling character, or a group
    /// over its range (RFC 9285 §4.2: such input must be refused).
    package static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(characters.count / 3 * 2 + 1)
        var index = 0
        func value(_ character: UInt8) -> Int? {
            let found = values[Int(character)]
            return found < 0 ? nil : Int(found)
        }
        while index < characters.count {
            let remaining = characters.count - index
            if remaining == 1 { return nil }
            guard let c = value(characters[index]), let d = value(characters[index + 1]) else { return nil }
            if remaining == 2 {
                let number = c + d * 45
                guard number <= 0xFF else { return nil }
                output.append(UInt8(number))
                index += 2
            } else {
                guard let e = value(characters[index + 2]) else { return nil }
                let number = c + d * 45 + e * 45 * 45
                guard number <= 0xFFFF else { return nil }
                output.append(UInt8(number >> 8))
                output.append(UInt8(number & 0xFF))
                index += 3
            }
        }
        return output
    }
}
