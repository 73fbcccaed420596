/// How a vouch names an issuer, and how a device remembers one the household revoked:
/// BLAKE2b-128 of its key (docs/CODES.md, "Vouch"). It tells whether a key is the one
/// named, never which key that is.
package struct IssuerID: Sendable, Hashable, Comparable {
    package static let size = 16
    package let bytes: [UInt8]

    /// Nil unless `bytes` is 16 bytes long.
    package init?(bytes: [UInt8]) {
        guard bytes.count == IssuerID.size else { return nil }
        self.bytes = bytes
    }

    /// The id of `key`: BLAKE2b-128 of its 32 bytes.
    package init(of key: IssuerKey) {
        bytes = Sodium.blake2b(key.bytes, length: IssuerID.size)
    }

    /// The id from its hex text (the vault's `revoked`); nil when it is not 16 bytes of hex.
    package init?(hex: String) {
        guard let bytes = Sodium.unhex(hex) else { return nil }
        self.init(bytes: bytes)
    }

    package var hex: String { Sodium.hex(bytes) }

    /// By bytes: the order that breaks ties between two machines' changes (docs/SYNC.md).
    package static func < (a: IssuerID, b: IssuerID) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
