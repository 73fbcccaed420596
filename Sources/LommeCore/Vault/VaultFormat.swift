import CSodium

/// The vault file's bytes: header, key check and sealed body (docs/FORMAT.md).
/// Pure bytes in, bytes out; no files, no prompts.
package enum VaultFormat {
    package static let magic: [UInt8] = Array("LOMMEVLT".utf8)
    package static let version: UInt8 = 1
    package static let kdfArgon2id13: UInt8 = 1
    package static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    package static let checkLength = 32
    /// Bytes 0..<64: what the key check covers.
    package static let checkedLength = 64
    package static let headerLength = 96
    package static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    package static let maximumFileLength = 1 << 20
    static let kdfContext: [CChar] = Array("lommevlt".utf8).map { CChar(bitPattern: $0) }

    /// The parsed fixed part of a header.
    package struct Header: Sendable, Equatable {
        package var limits: KDFLimits
        package var salt: [UInt8]
        package var nonce: [UInt8]

        package init(limits: KDFLimits, salt: [UInt8], nonce: [UInt8]) {
            self.limits = limits
            self.salt = salt
            self.nonce = nonce
        }

        /// Bytes 0..<64.
        package var bytes: [UInt8] {
            var out = VaultFormat.magic
            out.append(VaultFormat.version)
            out.append(VaultFormat.kdfArgon2id13)
            out += [0, 0]
            out += withUnsafeBytes(of: limits.opslimit.littleEndian, Array.init)
            out += withUnsafeBytes(of: limits.memlimit.littleEndian, Array.init)
            out += salt
            out += nonce
            return out
        }
    }

    /// A vault file read but not opened: its header checked, nothing derived.
    package struct Sealed: Sendable {
        package let header: Header
        package let bytes: [UInt8]
        package var check: ArraySlice<UInt8> { bytes[VaultFormat.checkedLength..<VaultFormat.headerLength] }
    }

    /// Checks everything that can be checked without a key (steps 1–4 of FORMAT.md);
    /// all failures are exit 5, and none of them runs the KDF.
    package static func parse(_ bytes: [UInt8]) throws(LommeError) -> Sealed {
        func damaged(_ why: String) -> LommeError {
            LommeError(.damaged, "the vault file is damaged (\(why)); restore it from the .bak next to it or re-import")
        }
        guard bytes.count >= headerLength + tagLength else { throw damaged("it is too short") }
        guard bytes.count <= maximumFileLength else { throw damaged("it is larger than 1 MiB") }
        guard Array(bytes[0..<8]) == magic else { throw damaged("it does not start with LOMMEVLT, so it is not a vault") }
        guard bytes[8] == version else {
            throw LommeError(.damaged, "the vault file has format version \(bytes[8]), which this lomme-vault does not know: it was made by a newer lomme-vault (upgrade to open it) or it is damaged")
        }
        guard bytes[9] == kdfArgon2id13 else { throw damaged("unknown KDF id \(bytes[9])") }
        guard bytes[10] == 0, bytes[11] == 0 else { throw damaged("unknown header flags") }
        let opslimit = bytes[12..<16].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let memlimit = bytes[16..<24].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let limits = KDFLimits(opslimit: opslimit, memlimit: memlimit)
        guard limits.isWithinCaps else {
            throw damaged("its KDF limits, \(opslimit) passes and \(memlimit) bytes, are outside what lomme-vault allows")
        }
        let header = Header(limits: limits, salt: Array(bytes[24..<40]), nonce: Array(bytes[40..<64]))
        return Sealed(header: header, bytes: bytes)
    }

    /// Subkey ids under `kdfContext`: the AEAD key and the key-check key.
    static let aeadKeyID: UInt64 = 1, checkKeyID: UInt64 = 2

    /// One subkey of the master key (each is a locked allocation: derive only what is used).
    static func subkey(_ master: SecureBytes, _ id: UInt64) -> SecureBytes {
        precondition(master.count == KDF.keyLength)
        Sodium.initialize()
        let key = SecureBytes(count: 32)
        Sodium.require(key.withUnsafeMutableBytes { output in
            master.withUnsafeBytes { masterBuffer in
                crypto_kdf_derive_from_key(output.baseAddress!.assumingMemoryBound(to: UInt8.self), 32, id,
                                           kdfContext, masterBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }, "crypto_kdf_derive_from_key")
        return key
    }

    /// The AEAD key and the key-check key, derived from the master key.
    static func subkeys(_ master: SecureBytes) -> (aead: SecureBytes, check: SecureBytes) {
        (subkey(master, aeadKeyID), subkey(master, checkKeyID))
    }

    /// The key check of a 64-byte header prefix.
    static func check(_ checked: [UInt8], checkKey: SecureBytes) -> [UInt8] {
        Sodium.blake2b(checked, length: checkLength, key: checkKey)
    }

    /// True when `master` is the key of this vault (no AEAD work).
    package static func matches(_ sealed: Sealed, master: SecureBytes) -> Bool {
        matches(sealed, checkKey: subkey(master, checkKeyID))
    }

    static func matches(_ sealed: Sealed, checkKey: SecureBytes) -> Bool {
        let expected = check(Array(sealed.bytes[0..<checkedLength]), checkKey: checkKey)
        return expected.withUnsafeBytes { a in
            Array(sealed.check).withUnsafeBytes { b in sodium_memcmp(a.baseAddress!, b.baseAddress!, checkLength) == 0 }
        }
    }

    /// Seals `plaintext` under `master`; `header` carries the limits, salt and nonce.
    package static func seal(_ plaintext: SecureBytes, master: SecureBytes, header: Header) -> [UInt8] {
        precondition(header.salt.count == KDF.saltLength && header.nonce.count == nonceLength)
        let keys = subkeys(master)
        var out = header.bytes
        out += Sodium.blake2b(out, length: checkLength, key: keys.check)
        let associated = out
        var body = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var bodyLength: UInt64 = 0
        Sodium.require(plaintext.withUnsafeBytes { message in
            keys.aead.withUnsafeBytes { key in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &body, &bodyLength,
                    message.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                    associated, UInt64(associated.count), nil, header.nonce,
                    key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }, "crypto_aead_xchacha20poly1305_ietf_encrypt")
        return out + body
    }

    /// Opens a parsed vault with its master key: exit 4 when the key check fails,
    /// exit 5 when the body does not authenticate.
    package static func open(_ sealed: Sealed, master: SecureBytes) throws(LommeError) -> SecureBytes {
        let keys = subkeys(master)
        guard matches(sealed, checkKey: keys.check) else {
            throw LommeError(.wrongPassphrase, "wrong passphrase for this vault; try again (a damaged header gives this message too)")
        }
        let associated = Array(sealed.bytes[0..<headerLength])
        let body = Array(sealed.bytes[headerLength...])
        let plaintext = SecureBytes(count: body.count - tagLength)
        var length: UInt64 = 0
        let result = plaintext.withUnsafeMutableBytes { output in
            keys.aead.withUnsafeBytes { key in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, nil,
                    body, UInt64(body.count), associated, UInt64(associated.count), sealed.header.nonce,
                    key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard result == 0 else {
            throw LommeError(.damaged, "the vault file is damaged or was tampered with (the passphrase is right, but the sealed body does not authenticate); restore it from the .bak next to it or re-import")
        }
        return plaintext
    }

    /// Derives the master key from a passphrase and opens the vault.
    package static func open(_ sealed: Sealed, passphrase: SecureBytes) throws(LommeError) -> (master: SecureBytes, plaintext: SecureBytes) {
        let master = try KDF.derive(passphrase: passphrase, salt: sealed.header.salt, limits: sealed.header.limits)
        return (master, try open(sealed, master: master))
    }
}
