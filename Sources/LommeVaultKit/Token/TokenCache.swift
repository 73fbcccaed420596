import Glibc
import LommeCore

/// Access tokens kept in the kernel's user keyring (never on disk), sealed under a key of
/// the unlocked session they were fetched in, until `expires_in` minus a margin, an hour at
/// most, and never past that session's end; `TokenService` caches and serves one only
/// while the vault is unlocked (an unlocked session, not a passphrase given now). One key
/// per vault and token URL: `lomme-vault-token:` + the vault id (`Session.vaultID`) +
/// `:` + hex(BLAKE2b-128(URL)), where the URL is `--token-url`'s text, or empty for "the
/// config's tokenUrl". The sealed entry also holds a fingerprint of the sealed vault file, so
/// importing a new config (or any other write to the vault) retires the tokens of the old one.
///
/// Payload (version 2): 2 | nonce (24) | XChaCha20-Poly1305 of the entry, with the key's
/// description as associated data, under `sealingKey`: keyed BLAKE2b-256 of the session —
/// the vault key it holds (the key) and its deadline — and the description. When the
/// session ends (`lock`, the idle timeout, its 12 h), nothing left in any keyring opens the
/// entry: the vault key is in no keyring, and it takes the passphrase to get it again.
///
/// Entry: 1 | fingerprint (16) | server expiry ms (u64 LE) | cache-until ms (u64 LE) |
/// type length (1) | token_type | access_token. Times are CLOCK_BOOTTIME milliseconds,
/// which every process of the machine shares and wall-clock changes do not move; the
/// kernel timeout only cleans up, the deadline in the entry decides.
package enum TokenCache {
    package static let prefix = "lomme-vault-token:"
    /// However long the endpoint says a token lives, it is cached for an hour at most.
    package static let maximumCacheMilliseconds: UInt64 = 3600 * 1000

    package static func description(vaultID: String, url: String?) -> String {
        vaultPrefix(vaultID) + Sodium.hex(Sodium.blake2b(Array((url ?? "").utf8), length: 16))
    }

    /// What every token key of one vault starts with.
    package static func vaultPrefix(_ vaultID: String) -> String {
        prefix + vaultID + ":"
    }

    /// Removes every cached token of the vault (for `lock`, `passwd`, and tests); returns how many.
    @discardableResult
    package static func forgetAll(vaultID: String, keyring: Keyring) -> Int {
        let wanted = vaultPrefix(vaultID)
        var removed = 0
        for (id, description) in keyring.userKeys(type: "user") where description.hasPrefix(wanted) {
            Keyring.remove(id)
            removed += 1
        }
        return removed
    }

    /// The fingerprint of the sealed vault file's bytes.
    package static func fingerprint(_ sealed: [UInt8]) -> [UInt8] {
        Sodium.blake2b(sealed, length: 16)
    }

    /// A Unix time (seconds, such as a session's deadline) as CLOCK_BOOTTIME ms.
    package static func bootMilliseconds(unixSeconds: UInt64) -> UInt64 {
        let now = UInt64(time(nil))
        let boot = nowMilliseconds()
        return unixSeconds > now ? boot + (unixSeconds - now) * 1000 : boot
    }

    /// Milliseconds of CLOCK_BOOTTIME.
    package static func nowMilliseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
    }

    /// The safety margin for a token living `expiresIn` seconds: 30 s or a tenth of
    /// its life, whichever is smaller (in milliseconds).
    package static func marginMilliseconds(expiresIn: UInt64) -> UInt64 {
        min(30_000, expiresIn * 100)
    }

    /// A token read from the cache, with its server expiry.
    package struct Entry: Sendable {
        package var token: AccessToken
        /// CLOCK_BOOTTIME ms when the endpoint's lifetime ends (counted from the request).
        package var expiresAt: UInt64
        package var cacheUntil: UInt64

        /// Whole seconds the token still lives, by the endpoint's count.
        package func remaining(now: UInt64 = TokenCache.nowMilliseconds()) -> UInt64 {
            expiresAt > now ? (expiresAt - now) / 1000 : 0
        }
    }

    static let sealingDomain: [UInt8] = Array("lomme-vault token cache v2".utf8) + [0]
    static let sealedVersion: UInt8 = 2

    /// The key an entry of `description` is sealed under in the session that holds `master`
    /// until `sessionDeadline` (Unix seconds).
    package static func sealingKey(master: SecureBytes, sessionDeadline: UInt64, description: String) -> SecureBytes {
        var message = sealingDomain + withUnsafeBytes(of: sessionDeadline.littleEndian, Array.init) + Array(description.utf8)
        defer { SecureBytes.wipe(&message) }
        return SecureBytes(copying: Sodium.blake2b(message, length: XChaCha.keyLength, key: master))
    }

    /// The entry sealed for the keyring (version 2).
    package static func seal(_ entry: Entry, fingerprint: [UInt8], key: SecureBytes, description: String) -> SecureBytes {
        let nonce = Sodium.randomBytes(XChaCha.nonceLength)
        let box = XChaCha.seal(encode(entry, fingerprint: fingerprint), ad: Array(description.utf8), nonce: nonce, key: key)
        return SecureBytes(copying: [sealedVersion] + nonce + box)
    }

    /// The entry a keyring payload holds, when `key` opens it and it belongs to `fingerprint`.
    package static func open(_ payload: SecureBytes, fingerprint: [UInt8], key: SecureBytes, description: String) -> Entry? {
        let bytes = payload.bytes
        guard bytes.count > 1 + XChaCha.nonceLength + XChaCha.tagLength, bytes[0] == sealedVersion,
              let entry = XChaCha.open(bytes[(1 + XChaCha.nonceLength)...], ad: Array(description.utf8),
                                       nonce: Array(bytes[1..<(1 + XChaCha.nonceLength)]), key: key)
        else { return nil }
        return decode(entry, fingerprint: fingerprint)
    }

    package static func encode(_ entry: Entry, fingerprint: [UInt8]) -> SecureBytes {
        let type = Array(entry.token.tokenType.utf8.prefix(255))
        let token = entry.token.accessToken.utf8
        let out = SecureBytes(count: 1 + 16 + 8 + 8 + 1 + type.count + token.count)
        out.withUnsafeMutableBytes { buffer in
            var index = 0
            func put(_ byte: UInt8) { buffer[index] = byte; index += 1 }
            put(1)
            fingerprint.forEach(put)
            withUnsafeBytes(of: entry.expiresAt.littleEndian) { $0.forEach(put) }
            withUnsafeBytes(of: entry.cacheUntil.littleEndian) { $0.forEach(put) }
            put(UInt8(type.count))
            type.forEach(put)
            token.forEach(put)
        }
        return out
    }

    package static func decode(_ payload: SecureBytes, fingerprint: [UInt8]) -> Entry? {
        payload.withUnsafeBytes { raw -> Entry? in
            guard raw.count > 34, raw[0] == 1, Array(raw[1..<17]) == fingerprint else { return nil }
            func u64(_ at: Int) -> UInt64 { raw[at..<at + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            let typeLength = Int(raw[33])
            guard raw.count > 34 + typeLength else { return nil }
            let type = String(decoding: raw[34..<34 + typeLength], as: UTF8.self)
            let token = String(decoding: raw[(34 + typeLength)...], as: UTF8.self)
            return Entry(token: AccessToken(accessToken: token, tokenType: type, expiresIn: nil), expiresAt: u64(17), cacheUntil: u64(25))
        }
    }

    /// The most a sealed payload holds.
    static let payloadLimit = 1 + XChaCha.nonceLength + XChaCha.tagLength + 34 + 255 + AccessToken.maximumLength

    /// The cached token, if one is there, opens with `key` (the session's), belongs to this
    /// vault's current contents and is still before its deadline. Any other is removed.
    package static func lookup(_ description: String, fingerprint: [UInt8], key: SecureBytes, keyring: Keyring) throws(Keyring.Unavailable) -> Entry? {
        guard let id = try keyring.find(description) else { return nil }
        guard let payload = Keyring.read(id, limit: payloadLimit),
              let entry = open(payload, fingerprint: fingerprint, key: key, description: description),
              nowMilliseconds() < entry.cacheUntil
        else {
            Keyring.remove(id)
            return nil
        }
        var result = entry
        result.token.expiresIn = result.remaining()
        return result
    }

    /// Keeps `token`, asked for at `requested` (CLOCK_BOOTTIME ms), until its lifetime
    /// minus the margin, `maximumCacheMilliseconds` after the request, or `notAfter`
    /// (the session's end), whichever comes first. Returns the entry, or nil when the
    /// token lives too briefly (or says nothing of its lifetime) to be kept.
    @discardableResult
    package static func store(_ description: String, fingerprint: [UInt8], key: SecureBytes, token: AccessToken, requested: UInt64,
                             notAfter: UInt64, keyring: Keyring) throws(Keyring.Unavailable) -> Entry? {
        guard let life = token.expiresIn, life > 0 else { return nil }
        let expiresAt = requested + life * 1000
        let cacheUntil = min(expiresAt - marginMilliseconds(expiresIn: life), requested + maximumCacheMilliseconds,
                             notAfter)
        let now = nowMilliseconds()
        guard cacheUntil > now else { return nil }
        let entry = Entry(token: token, expiresAt: expiresAt, cacheUntil: cacheUntil)
        let seconds = UInt32(min((cacheUntil - now + 999) / 1000 + 1, UInt64(UInt32.max)))
        _ = try keyring.add(description, payload: seal(entry, fingerprint: fingerprint, key: key, description: description), timeout: seconds)
        return entry
    }

    /// Removes the cached token of `description`; false when there was none.
    @discardableResult
    package static func forget(_ description: String, keyring: Keyring) throws(Keyring.Unavailable) -> Bool {
        guard let id = try keyring.find(description) else { return false }
        Keyring.remove(id)
        return true
    }
}
