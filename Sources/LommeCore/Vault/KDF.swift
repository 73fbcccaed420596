import CSodium
import Glibc

/// Argon2id13 limits, as stored in the vault header.
package struct KDFLimits: Sendable, Equatable, CustomStringConvertible {
    package var opslimit: UInt32
    package var memlimit: UInt64

    package init(opslimit: UInt32, memlimit: UInt64) {
        self.opslimit = opslimit
        self.memlimit = memlimit
    }

    /// The most a header may ask for; anything beyond is refused before the KDF runs.
    package static let maximumOpslimit: UInt32 = 10
    package static let maximumMemlimit: UInt64 = 1 << 30
    package static let minimumMemlimit: UInt64 = 8192

    package static let moderate = KDFLimits(opslimit: 3, memlimit: 256 << 20)
    package static let interactive = KDFLimits(opslimit: 2, memlimit: 64 << 20)
    /// For tests: no protection against guessing.
    package static let minimum = KDFLimits(opslimit: 1, memlimit: 8192)

    package var isWithinCaps: Bool {
        (1...KDFLimits.maximumOpslimit).contains(opslimit)
            && (KDFLimits.minimumMemlimit...KDFLimits.maximumMemlimit).contains(memlimit)
    }

    package var description: String {
        let mebibytes = memlimit >> 20
        let memory = mebibytes > 0 ? "\(mebibytes) MiB" : "\(memlimit >> 10) KiB"
        return "Argon2id, \(opslimit) pass\(opslimit == 1 ? "" : "es"), \(memory)"
    }
}

/// Passphrase → 32-byte master key with Argon2id13 (`crypto_pwhash`), and the
/// limits a new vault gets.
package enum KDF {
    package static let keyLength = 32
    package static let saltLength = Int(crypto_pwhash_argon2id_SALTBYTES)

    /// Derives the master key. Refuses limits outside the caps without running.
    package static func derive(passphrase: SecureBytes, salt: [UInt8], limits: KDFLimits) throws(LommeError) -> SecureBytes {
        guard limits.isWithinCaps else {
            throw LommeError(.damaged, .kdfParametersOutOfRange, "the vault header asks for KDF limits beyond what lomme-vault allows (\(limits.opslimit) passes, \(limits.memlimit) bytes); the file is damaged or forged")
        }
        precondition(salt.count == saltLength)
        Sodium.initialize()
        let key = SecureBytes(count: keyLength)
        let result = key.withUnsafeMutableBytes { output in
            passphrase.withUnsafeBytes { password in
                crypto_pwhash(
                    output.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(keyLength),
                    password.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(password.count),
                    salt, UInt64(limits.opslimit), Int(limits.memlimit), crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        guard result == 0 else {
            throw LommeError.failure(.outOfMemory, "deriving the key needs \(limits.memlimit >> 20) MiB of memory, which the system refused; free some memory and try again")
        }
        return key
    }

    /// The limits for a new vault, from `LOMME_VAULT_KDF` (`calibrate`, the default,
    /// `moderate`, `interactive` or `minimum`).
    package static func limitsForNewVault(environment value: String?) throws(LommeError) -> KDFLimits {
        switch value ?? "calibrate" {
        case "", "calibrate": return calibrate()
        case "moderate": return .moderate
        case "interactive": return .interactive
        case "minimum": return .minimum
        case let other:
            throw LommeError.usage(.kdfSettingUnknown, "LOMME_VAULT_KDF is \"\(JSON.printable(other))\"; use calibrate, moderate, interactive or minimum")
        }
    }

    /// Aims at about `target` seconds on this machine: one timed run at 1 pass and
    /// 256 MiB, then the number of passes (2…10) that fits; on a machine where one pass
    /// already takes more than a second, less memory instead (not below 64 MiB).
    package static func calibrate(target: Double = 0.75) -> KDFLimits {
        let probe = KDFLimits(opslimit: 1, memlimit: 256 << 20)
        let password = SecureBytes.random(count: 16)
        let salt = Sodium.randomBytes(saltLength)
        let start = monotonicSeconds()
        guard (try? derive(passphrase: password, salt: salt, limits: probe)) != nil else { return .interactive }
        let onePass = max(monotonicSeconds() - start, 0.001)
        if onePass > 1.0 {
            let memory = max(UInt64(Double(256 << 20) * target / onePass) & ~((1 << 20) - 1), 64 << 20)
            return KDFLimits(opslimit: 1, memlimit: memory)
        }
        // Rounded up: a probe on a busy machine tends to be fast rather than slow, and
        // rounding down could land under half a second.
        let passes = min(max(Int((target / onePass).rounded(.up)), 2), Int(KDFLimits.maximumOpslimit))
        return KDFLimits(opslimit: UInt32(passes), memlimit: 256 << 20)
    }

    package static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
