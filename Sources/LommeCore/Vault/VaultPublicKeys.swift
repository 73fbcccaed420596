/// The public keys the vault's v2 header carries in clear, so `key` and `status` can
/// show them while the vault is locked. The header's key check covers them: a key swapped
/// in the file is found at the next open (exit 5), though not before (docs/FORMAT.md).
///
/// Bytes: one flags byte, then 32 bytes for each flag set, in this order:
/// bit 0 the receiving key (X25519, what codes are sealed to), bit 1 this machine's
/// issuer key (Ed25519, what it signs codes with), bit 2 the pinned issuer (Ed25519).
package struct VaultPublicKeys: Sendable, Equatable {
    package var receiving: ReceivingKey?
    package var issuer: IssuerKey?
    package var pinnedIssuer: IssuerKey?

    static let keyLength = 32
    package static let maximumLength = 1 + 3 * keyLength

    package init(receiving: ReceivingKey? = nil, issuer: IssuerKey? = nil, pinnedIssuer: IssuerKey? = nil) {
        self.receiving = receiving
        self.issuer = issuer
        self.pinnedIssuer = pinnedIssuer
    }

    /// The public half of a vault's device identity (none before `init` made one).
    package init(_ identity: DeviceIdentity?) {
        self.init(receiving: identity?.receiving.publicKey, issuer: identity?.signing.publicKey,
                  pinnedIssuer: identity?.pinnedIssuer)
    }

    /// The keys' bytes in the header's order (each 32 bytes, as their types make sure).
    private var fields: [[UInt8]?] { [receiving?.bytes, issuer?.bytes, pinnedIssuer?.bytes] }

    package var bytes: [UInt8] {
        var flags: UInt8 = 0
        var out: [UInt8] = []
        for (bit, key) in fields.enumerated() {
            guard let key else { continue }
            flags |= 1 << bit
            out += key
        }
        return [flags] + out
    }

    /// Nil when the bytes are not such a block (unknown flags, wrong length).
    package init?(bytes: [UInt8]) {
        guard let flags = bytes.first, flags & ~0b111 == 0 else { return nil }
        var reader = ByteReader(Array(bytes.dropFirst()))
        var keys: [[UInt8]?] = []
        for bit in 0..<3 {
            if flags & (1 << bit) == 0 {
                keys.append(nil)
            } else {
                guard let key = reader.take(Self.keyLength) else { return nil }
                keys.append(key)
            }
        }
        guard reader.isAtEnd else { return nil }
        self.init(receiving: keys[0].flatMap(ReceivingKey.init(bytes:)), issuer: keys[1].flatMap(IssuerKey.init(bytes:)),
                  pinnedIssuer: keys[2].flatMap(IssuerKey.init(bytes:)))
    }
}
