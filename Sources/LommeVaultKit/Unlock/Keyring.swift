import CKeyutils
import Glibc
import LommeCore

/// A thin layer over libkeyutils: `user` keys in the user keyring (`@u`), which
/// every process of the same uid can reach, whatever its session. A value: `off` (from
/// `VaultSettings`, `LOMME_VAULT_KEYRING=off`) makes it behave as if the kernel refused.
package struct Keyring: Sendable {
    package typealias KeyID = Int32

    package struct Unavailable: Error, Sendable {
        package let reason: String
        /// Turned off by `LOMME_VAULT_KEYRING=off`, not refused by the kernel.
        package var turnedOff = false

        package init(reason: String, turnedOff: Bool = false) {
            self.reason = reason
            self.turnedOff = turnedOff
        }

        /// What messages say: "keyring turned off (LOMME_VAULT_KEYRING=off)", or "the kernel
        /// keyring is not available here (REASON)".
        package var summary: String {
            turnedOff ? "keyring turned off (LOMME_VAULT_KEYRING=off)" : "the kernel keyring is not available here (\(reason))"
        }
    }

    /// True when the keyring is turned off (as if the kernel refused it).
    package let disabled: Bool

    package init(off: Bool = false) {
        disabled = off
    }

    func unavailable(_ code: Int32) -> Unavailable {
        Unavailable(reason: disabled ? "LOMME_VAULT_KEYRING=off" : String(cString: strerror(code)), turnedOff: disabled)
    }

    static func isRefusal(_ code: Int32) -> Bool {
        code == ENOSYS || code == EPERM || code == EOPNOTSUPP
    }

    /// The key's id, or nil when there is none (or it expired or was revoked).
    package func find(_ description: String) throws(Unavailable) -> KeyID? {
        if disabled { throw unavailable(0) }
        let id = keyctl_search(KEY_SPEC_USER_KEYRING, "user", description, 0)
        if id >= 0 { return KeyID(id) }
        let code = errno
        if Keyring.isRefusal(code) { throw unavailable(code) }
        return nil
    }

    /// The key's payload, up to `limit` bytes, straight into locked memory.
    package static func read(_ id: KeyID, limit: Int = 256) -> SecureBytes? {
        let buffer = SecureBytes(count: limit)
        let length = buffer.withUnsafeMutableBytes { keyctl_read(id, $0.baseAddress!.assumingMemoryBound(to: CChar.self), limit) }
        guard length >= 0, length <= limit else { return nil }
        return buffer.slice(0..<Int(length))
    }

    /// Adds (or replaces) a key readable by every process of this uid, expiring after `timeout` seconds.
    package func add(_ description: String, payload: SecureBytes, timeout: UInt32) throws(Unavailable) -> KeyID {
        if disabled { throw unavailable(0) }
        let id = payload.withUnsafeBytes { bytes in
            add_key("user", description, bytes.baseAddress!, bytes.count, KEY_SPEC_USER_KEYRING)
        }
        guard id >= 0 else { throw unavailable(errno) }
        _ = keyctl_setperm(id, key_perm_t(KEY_POS_ALL | KEY_USR_ALL))
        _ = keyctl_set_timeout(id, timeout)
        return KeyID(id)
    }

    package static func setTimeout(_ id: KeyID, _ seconds: UInt32) {
        _ = keyctl_set_timeout(id, seconds)
    }

    /// Makes the key unusable at once and removes it from the keyring.
    package static func remove(_ id: KeyID) {
        _ = keyctl_revoke(id)
        _ = keyctl_unlink(id, KEY_SPEC_USER_KEYRING)
    }

    /// The keys of `type` directly in the user keyring, with their descriptions.
    package func userKeys(type wanted: String) -> [(KeyID, String)] {
        if disabled { return [] }
        var buffer: UnsafeMutableRawPointer? = nil
        let length = keyctl_read_alloc(KEY_SPEC_USER_KEYRING, &buffer)
        guard length >= 0, let buffer else { return [] }
        defer { free(buffer) }
        let ids = (0..<Int(length) / MemoryLayout<Int32>.size).map { buffer.load(fromByteOffset: $0 * 4, as: Int32.self) }
        return ids.compactMap { id -> (KeyID, String)? in
            var text: UnsafeMutablePointer<CChar>? = nil
            guard keyctl_describe_alloc(id, &text) >= 0, let text else { return nil }
            defer { free(text) }
            // "type;uid;gid;perm;description"
            let parts = String(cString: text).split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
            guard parts.count == 5, parts[0] == wanted else { return nil }
            return (id, String(parts[4]))
        }
    }

    /// The kernel's remaining timeout for a key, from /proc/keys (`9m`, `2h`, `perm`).
    package static func timeoutText(_ id: KeyID) -> String? {
        guard let file = fopen("/proc/keys", "r") else { return nil }
        defer { fclose(file) }
        let wanted = String(UInt32(bitPattern: id), radix: 16)
        var line: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            let fields = String(cString: line!).split(separator: " ", omittingEmptySubsequences: true)
            if fields.count > 3, let first = fields.first, UInt32(first, radix: 16) == UInt32(bitPattern: id) || first == wanted {
                return String(fields[3])
            }
        }
        return nil
    }
}
