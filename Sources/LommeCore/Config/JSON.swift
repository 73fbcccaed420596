/// A JSON value with object members kept in their original order, so extra config
/// fields round-trip as they came.
package indirect enum JSON: Sendable, Equatable {
    case string(String)
    /// A number, kept as its literal text so no digit is lost.
    case number(String)
    case bool(Bool)
    case null
    case array([JSON])
    case object([Member])

    package struct Member: Sendable, Equatable {
        package var key: String
        package var value: JSON
        package init(_ key: String, _ value: JSON) {
            self.key = key
            self.value = value
        }
    }

    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A whole number from 0 to 2^64 − 1 written as plain digits; nil for anything else.
    package var uint64Value: UInt64? {
        guard case .number(let text) = self, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(text)
    }

    package subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }
}

// MARK: - Writing

extension JSON {
    /// Compact JSON with every non-ASCII character escaped (`\u00e6`), so no QR decoder's
    /// charset guessing can garble it.
    package var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    func write(to output: inout String) {
        switch self {
        case .string(let text): JSON.writeString(text, to: &output)
        case .number(let literal): output += literal
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                JSON.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: output += "\\\""
            case 0x5C: output += "\\\\"
            case 0x0A: output += "\\n"
            case 0x0D: output += "\\r"
            case 0x09: output += "\\t"
            case 0x20..<0x7F: output.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        output += "\""
    }
}

// MARK: - Parsing

extension JSON {
    /// The most nesting a payload may have; deeper input is refused, not recursed into.
    package static let maximumDepth = 16

    /// Parses strict RFC 8259 JSON. Refuses duplicate keys, invalid UTF-8, unpaired
    /// surrogates, trailing data and nesting deeper than `maximumDepth`. The error is a
    /// short reason, for the caller to put in a message.
    package static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSON {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw JSONError("it is not valid UTF-8") }
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw JSONError("there is more after the JSON value") }
        return value
    }

    package static func parse(_ text: String) throws(JSONError) -> JSON {
        try parse(Array(text.utf8))
    }
}

package struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    package let reason: String
    init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}

struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    func fail(_ reason: String) -> JSONError { JSONError("\(reason) at byte \(index + 1)") }

    mutating func value(depth: Int) throws(JSONError) -> JSON {
        guard depth < JSON.maximumDepth else { throw fail("it is nested too deeply") }
        guard index < bytes.count else { throw fail("it ends too early") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character")
        }
    }

    mutating func literal(_ word: String) throws(JSONError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw fail("unexpected word")
        }
        index += expected.count
    }

    mutating func object(depth: Int) throws(JSONError) -> JSON {
        index += 1
        var members: [JSON.Member] = []
        var keys = Set<String>()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try string()
            guard keys.insert(key).inserted else { throw fail("the key \"\(JSON.printable(key))\" appears twice") }
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipSpace()
            members.append(JSON.Member(key, try value(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw fail("it ends too early") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONError) -> JSON {
        index += 1
        var items: [JSON] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw fail("it ends too early") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    mutating func number() throws(JSONError) -> String {
        let start = index
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.index
            while parser.index < parser.bytes.count, (0x30...0x39).contains(parser.bytes[parser.index]) { parser.index += 1 }
            return parser.index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw fail("a number ends too early") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            throw fail("a number has no digits")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw fail("a number has no digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw fail("a number has no exponent digits") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    mutating func hex4() throws(JSONError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw fail("a \\u escape ends too early") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("a \\u escape has a non-hex digit")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    mutating func string() throws(JSONError) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard index < bytes.count else { throw fail("a string is not closed") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case 0x00..<0x20:
                throw fail("a string holds a raw control character")
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw fail("a string is not closed") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    let unit = try hex4()
                    var scalar: Unicode.Scalar?
                    if (0xD800..<0xDC00).contains(unit) {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("a string has an unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a string has an unpaired surrogate") }
                        scalar = Unicode.Scalar((UInt32(unit) - 0xD800) << 10 + (UInt32(low) - 0xDC00) + 0x10000)
                    } else {
                        scalar = Unicode.Scalar(unit)
                    }
                    guard let scalar else { throw fail("a string has an unpaired surrogate") }
                    utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw fail("a string has an unknown escape")
                }
            default:
                utf8.append(byte)
            }
        }
    }
}

extension JSON {
    /// A key or value made safe to quote in a one-line message: anything past 40
    /// characters left out, control characters escaped visibly (`TerminalText.line`).
    package static func printable(_ text: String) -> String {
        TerminalText.line(text.count > 40 ? String(text.prefix(40)) + "…" : text)
    }
}
