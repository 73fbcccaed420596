/// Little-endian integers for the vault file (every integer in it is little-endian).
extension FixedWidthInteger {
    /// The value's bytes, least significant first.
    var littleEndianBytes: [UInt8] { withUnsafeBytes(of: littleEndian, Array.init) }

    /// The value of `bytes` (exactly the type's width), least significant first.
    init(littleEndianBytes bytes: some Collection<UInt8>) {
        self = bytes.reversed().reduce(Self.zero) { $0 << 8 | Self($1) }
    }
}

extension ByteReader {
    /// The next little-endian integer of type `T`, or nil past the end.
    mutating func little<T: FixedWidthInteger>(_: T.Type) -> T? {
        take(MemoryLayout<T>.size).map { T(littleEndianBytes: $0) }
    }

    /// A field with a 16-bit little-endian length before it.
    mutating func lengthPrefixed() -> [UInt8]? {
        guard let length = little(UInt16.self) else { return nil }
        return take(Int(length))
    }
}

extension Array where Element == UInt8 {
    /// Appends `field` after its 16-bit little-endian length.
    mutating func appendLengthPrefixed(_ field: [UInt8]) {
        precondition(field.count <= Int(UInt16.max))
        self += UInt16(field.count).littleEndianBytes
        self += field
    }
}
