/// The household's recovery key: 136 random bits, printed once on the recovery kit as seven
/// groups of five characters, each group four characters of the key and one check
/// character (docs/CODES.md, "Recovery key"):
///
///     K7QZM-2XA9P-WDRT4-…      (the kit's QR code: the same, after "LVR1:")
///
/// The alphabet has no look-alikes (no 0, O, 1 or I). The check character of group g
/// (0…6) is `(g + 1) ⊕ Σ α^(i+1) · v_i` over GF(32) (x⁵ + x² + 1, α = 2) for its four
/// characters' values v_0…v_3, so one wrong character, two neighbours swapped, or two
/// groups swapped are always caught, and the message names the group. The 28 key
/// characters are 140 bits: a version nibble (1), then the 17-byte secret.
///
/// A kit made to replace an older one also carries, in its QR code only, the household's
/// chain of rotations (public: each old household key's signature for the next), so that a
/// laptop restored from it hands the children the way from any key they pinned to this one:
///
///     LVR1:K7QZM-2XA9P-…/BASE45(rotation ‖ rotation ‖ …)      (oldest first, 96 bytes each)
///
/// A kit made now also carries the day it was made, so that a restore on a clock before it
/// is refused (its vouch would be older than the lost laptop's): the key without dashes, a
/// dot and the day as days since 1970-01-01 (UTC), so that the code stays version 3:
///
///     LVR1:K7QZM2XA9PWDRT4….20421[/BASE45(…)]
package struct RecoveryKey: Sendable {
    package static let qrPrefix = "LVR1:"
    static let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789".utf8)
    static let groups = 7
    static let dataPerGroup = 4
    static let secretSize = 17
    static let version: UInt8 = 1

    /// The 17 secret bytes (locked memory).
    let secret: SecureBytes
    /// The rotations from the household's first key to this key's household key, oldest
    /// first (empty for a household's first kit, or a key typed from the sheet).
    package var chain: [RootRotation] = []
    /// The day (UTC) the kit was made, from its QR code; nil for a key typed from the sheet
    /// or read from a file, and for kits made before kits carried it.
    package var made: Instant?

    /// A new key, made today.
    package static func generate(now: Instant = .now()) -> RecoveryKey {
        var key = RecoveryKey(secret: SecureBytes.random(count: secretSize))
        key.made = Instant(seconds: now.seconds - (now.seconds % 86_400 + 86_400) % 86_400)
        return key
    }

    init(secret: SecureBytes) {
        precondition(secret.count == RecoveryKey.secretSize)
        self.secret = secret
    }

    /// As printed on the kit and typed back: seven groups joined by dashes.
    package var text: String {
        var bits = [UInt8]()  // 140 bits as 28 five-bit values
        var accumulator = UInt32(RecoveryKey.version), count = 4
        secret.withUnsafeBytes { bytes in
            for byte in bytes {
                accumulator = accumulator << 8 | UInt32(byte)
                count += 8
                while count >= 5 {
                    count -= 5
                    bits.append(UInt8((accumulator >> UInt32(count)) & 31))
                }
            }
        }
        var groups: [String] = []
        for group in 0..<RecoveryKey.groups {
            let values = Array(bits[group * RecoveryKey.dataPerGroup..<(group + 1) * RecoveryKey.dataPerGroup])
            let characters = (values + [RecoveryKey.check(values, group: group)]).map { RecoveryKey.alphabet[Int($0)] }
            groups.append(String(decoding: characters, as: UTF8.self))
        }
        SecureBytes.wipe(&bits)
        return groups.joined(separator: "-")
    }

    /// What the kit's QR code holds: the key (with the day it was made, when known), and
    /// the chain of rotations when there is one.
    package var qrText: String {
        let key = made.map { day in text.filter { $0 != "-" } + RecoveryKey.daySeparator + String(day.seconds / 86_400) } ?? text
        return RecoveryKey.qrPrefix + key + (chain.isEmpty ? "" : RecoveryKey.chainSeparator + Base45.encode(chain.flatMap(\.bytes)))
    }

    static let chainSeparator = "/"
    static let daySeparator = "."

    /// True when `text` is a recovery key's QR text (a photo of a kit).
    package static func isRecoveryKey(_ text: String) -> Bool {
        text.trimmingASCIIWhitespace().uppercased().hasPrefix(qrPrefix)
    }

    /// Reads a key as printed, typed or photographed: either case, dashes, spaces and line
    /// breaks anywhere, the QR's `LVR1:` or not. A typo is exit 64 naming its group.
    package init(text: String) throws(LommeError) {
        var bytes = Array(text.utf8)
        defer { SecureBytes.wipe(&bytes) }
        try self.init(bytes: bytes)
    }

    /// `init(text:)` of UTF-8 bytes (as read from a terminal or a file into locked memory).
    /// After the key, a kit's QR text may carry the day it was made (`.` and days since 1970) and
    /// the chain of rotations (`/` and Base45); the chain must lead to this key's household
    /// key, or the kit is refused as damaged.
    package init(bytes all: [UInt8]) throws(LommeError) {
        let separator = UInt8(ascii: "/")
        var typed = all.firstIndex(of: separator).map { Array(all[..<$0]) } ?? all
        defer { SecureBytes.wipe(&typed) }
        var made: Instant?
        if let dot = typed.firstIndex(of: UInt8(ascii: ".")) {
            let day = String(decoding: typed[(dot + 1)...], as: UTF8.self).trimmingASCIIWhitespace()
            guard let parsed = RecoveryKey.day(day) else {
                throw LommeError.usage(.recoveryKitDate, "the recovery kit's code holds the key and, after it, not the day it was made; it is damaged or not a kit lomme-vault made — restore with the key alone (typed, or --recovery-file)")
            }
            made = parsed
            typed.removeSubrange(dot...)
        }
        var characters: [UInt8] = []
        defer { SecureBytes.wipe(&characters) }
        for byte in typed where !" -\n\r\t".utf8.contains(byte) {
            characters.append((UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte)
        }
        let prefix = Array(RecoveryKey.qrPrefix.utf8)
        if characters.starts(with: prefix) { characters.removeFirst(prefix.count) }
        let perGroup = RecoveryKey.dataPerGroup + 1
        guard characters.count == RecoveryKey.groups * perGroup else {
            throw LommeError.usage(.recoveryKeyLength, "a recovery key is \(RecoveryKey.groups) groups of \(perGroup) letters and digits (as printed on the recovery kit); this has \(characters.count) characters")
        }
        var values: [UInt8] = []
        defer { SecureBytes.wipe(&values) }
        for group in 0..<RecoveryKey.groups {
            var groupValues: [UInt8] = []
            defer { SecureBytes.wipe(&groupValues) }
            for byte in characters[group * perGroup..<(group + 1) * perGroup] {
                guard let value = RecoveryKey.alphabet.firstIndex(of: byte) else {
                    throw LommeError.usage(.recoveryKeyCharacter, "group \(group + 1) of the recovery key holds a character no recovery key has (they use A–Z and 2–9, without I and O); check that group against the kit")
                }
                groupValues.append(UInt8(value))
            }
            let data = Array(groupValues.prefix(RecoveryKey.dataPerGroup))
            guard RecoveryKey.check(data, group: group) == groupValues.last else {
                throw LommeError.usage(.recoveryKeyTypo, "group \(group + 1) of the recovery key has a typo; check it against the kit")
            }
            values += data
        }
        // 140 bits: the version nibble, then the 136-bit secret.
        var reader = BitReader(values: values, width: 5)
        let version = reader.read(4)
        guard version == UInt32(RecoveryKey.version) else {
            throw LommeError.usage(.recoveryKeyVersion, "that recovery key is of version \(version), which this lomme-vault does not know; upgrade lomme-vault")
        }
        var secretBytes = (0..<RecoveryKey.secretSize).map { _ in UInt8(reader.read(8)) }
        defer { SecureBytes.wipe(&secretBytes) }
        secret = SecureBytes(copying: secretBytes)
        self.made = made
        if let at = all.firstIndex(of: separator) {
            var history = all[(at + 1)...]
            while let last = history.last, last == 0x0A || last == 0x0D { history.removeLast() }
            guard let bytes = Base45.decode(String(decoding: history, as: UTF8.self)), let chain = RootRotation.chain(bytes),
                  RootRotation.leads(chain, to: householdKey.publicKey) else {
                throw LommeError.usage(.recoveryKitHistory, "the recovery kit's code holds the key and, after it, a history of earlier kits that does not lead to this key; it is damaged or not a kit lomme-vault made — restore with the key alone (typed, or --recovery-file), and see docs/CODES.md, \"Rotations\"")
            }
            self.chain = chain
        }
    }

    /// `20421` (days since 1970-01-01) as the first second of that day (UTC); nil for
    /// anything else (one to six digits).
    static func day(_ text: String) -> Instant? {
        let digits = Array(text.utf8)
        guard (1...6).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }), let days = Int64(text) else { return nil }
        return Instant(seconds: days * 86_400)
    }

    // MARK: - What it derives (docs/CODES.md, "Recovery key")

    /// The key-encryption key of a recovery slot in the vault whose salt is `vaultSalt`:
    /// `BLAKE2b-256("lomme-vault recovery slot v1" 0x00 ‖ vault salt ‖ slot salt, key: secret)`.
    /// No slow KDF: the key is 136 random bits, not a guessable secret.
    package func slotKEK(vaultSalt: [UInt8], slotSalt: [UInt8]) -> SecureBytes {
        var input = Array("lomme-vault recovery slot v1".utf8) + [0] + vaultSalt + slotSalt
        defer { SecureBytes.wipe(&input) }
        var kek = Sodium.blake2b(input, length: 32, key: secret)
        defer { SecureBytes.wipe(&kek) }
        return SecureBytes(copying: kek)
    }

    /// The household key (Ed25519), the same on every machine the key is typed into:
    /// its seed is `BLAKE2b-256("lomme-vault household key v1" 0x00, key: secret)`.
    package var householdKey: HouseholdKeyPair {
        var seed = Sodium.blake2b(Array("lomme-vault household key v1".utf8) + [0], length: 32, key: secret)
        defer { SecureBytes.wipe(&seed) }
        return HouseholdKeyPair.generate(seed: seed)
    }

    /// The check value of a group's four values.
    static func check(_ values: [UInt8], group: Int) -> UInt8 {
        var sum = UInt8(group + 1)
        var power: UInt8 = 1
        for value in values {
            power = multiply(power, 2)
            sum ^= multiply(power, value)
        }
        return sum & 31
    }

    /// Multiplication in GF(32) modulo x⁵ + x² + 1.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = a, b = b, product: UInt8 = 0
        while b != 0 {
            if b & 1 != 0 { product ^= a }
            a <<= 1
            if a & 0x20 != 0 { a ^= 0x25 }
            b >>= 1
        }
        return product
    }
}

/// Reads a stream of `width`-bit values as bits, most significant first.
struct BitReader {
    let values: [UInt8]
    let width: Int
    var position = 0

    init(values: [UInt8], width: Int) {
        self.values = values
        self.width = width
    }

    mutating func read(_ count: Int) -> UInt32 {
        var result: UInt32 = 0
        for _ in 0..<count {
            let value = values[position / width]
            let bit = (value >> UInt8(width - 1 - position % width)) & 1
            result = result << 1 | UInt32(bit)
            position += 1
        }
        return result
    }
}
