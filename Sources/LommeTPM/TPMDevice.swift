import LommeCore

/// A TPM 2.0 reached through a TCTI string: nil or "" = "device:/dev/tpmrm0" (the kernel's
/// resource manager); else anything Tss2_TctiLdr_Initialize takes
/// ("swtpm:host=127.0.0.1,port=2321", "device:/dev/tpm0", …). Each call opens its own
/// connection and closes it before returning (swtpm serves one client at a time).
package struct TPMDevice: Sendable {
    package static let defaultTCTI = "device:/dev/tpmrm0"
    /// The largest secret a sealed data object holds here (the TPM allows up to 128 bytes).
    package static let maxSecret = 64
    /// The largest auth value: the object's name algorithm's digest size (SHA-256).
    package static let maxAuth = 32

    package let tcti: String

    package init(tcti: String?) {
        self.tcti = (tcti ?? "").isEmpty ? Self.defaultTCTI : tcti!
    }

    /// Creates a sealed data object holding `secret` (≤ 64 bytes) under the owner hierarchy's
    /// storage primary key (TPMTemplates.storagePrimary, created again each time: nothing
    /// persistent is left in the TPM). `auth` (nil = empty, ≤ 32 bytes) becomes the object's
    /// auth value, subject to dictionary-attack protection. `pcrs` (SHA-256 bank, 0…23, may be
    /// empty): the object's policy is PolicyPCR(current values) [+ PolicyAuthValue when auth
    /// != nil]; with no pcrs the object opens with its auth value (userWithAuth).
    package func seal(_ secret: SecureBytes, auth: SecureBytes?, pcrs: [Int]) throws(LommeError) -> TPMSealedObject {
        try TPMInput.check(secret: secret, auth: auth, pcrs: pcrs)
        return try TPMConnection.with(tcti: tcti) { connection throws(LommeError) in
            try TPMSeal(connection: connection).seal(secret, auth: auth, pcrs: pcrs)
        }
    }

    /// Loads and unseals `object` through a salted session with parameter encryption, so
    /// neither the auth value nor the secret crosses the bus in clear (TPMUnseal).
    package func unseal(_ object: TPMSealedObject, auth: SecureBytes?, pcrs: [Int]) throws(LommeError) -> SecureBytes {
        try TPMInput.check(secret: nil, auth: auth, pcrs: pcrs)
        return try TPMConnection.with(tcti: tcti) { connection throws(LommeError) in
            try TPMUnseal(connection: connection).unseal(object, auth: auth, pcrs: pcrs)
        }
    }

    /// The dictionary-attack state, nil when it cannot be read (no TPM, or it refuses).
    package func lockoutState() -> TPMLockoutState? {
        try? TPMConnection.with(tcti: tcti) { connection throws(LommeError) in
            try TPMLockoutState.read(connection)
        }
    }

    /// Whether the TPM's lockout hierarchy has an authorization value (TPMA_PERMANENT's
    /// lockoutAuthSet). Without one, any local user can reset the dictionary-attack counter
    /// (`tpm2_dictionarylockout -c`) and so guess a PIN without limit. Throws when no TPM
    /// answers; nil when the TPM answers but its answer to this question cannot be read
    /// (which a caller must take as "not known to be set").
    package func lockoutAuthorization() throws(LommeError) -> Bool? {
        try TPMConnection.with(tcti: tcti) { connection throws(LommeError) in
            try? TPMLockoutState.lockoutAuthorizationIsSet(connection)
        }
    }
}

/// What `TPMDevice.seal` returns and `unseal` takes: the two blobs the TPM made (only this
/// TPM's storage primary key can load them) and that key's Name when they were made.
package struct TPMSealedObject: Sendable, Equatable {
    /// TPM2B_PUBLIC, marshalled (Tss2_MU_TPM2B_PUBLIC_Marshal).
    package var publicArea: [UInt8]
    /// TPM2B_PRIVATE, marshalled: the secret and auth value, encrypted by the TPM.
    package var privateArea: [UInt8]
    /// The storage primary's Name (TPM2B_NAME contents: algorithm + SHA-256 of its public area).
    package var primaryName: [UInt8]

    package init(publicArea: [UInt8], privateArea: [UInt8], primaryName: [UInt8]) {
        self.publicArea = publicArea
        self.privateArea = privateArea
        self.primaryName = primaryName
    }
}

/// The TPM's dictionary-attack counters (TPM_PT_LOCKOUT_COUNTER, TPM_PT_MAX_AUTH_FAIL,
/// TPM_PT_LOCKOUT_INTERVAL): it locks out when failedTries reaches maxTries and forgets
/// one failure every recoverySeconds.
package struct TPMLockoutState: Sendable, Equatable {
    package var failedTries: UInt32
    package var maxTries: UInt32
    package var recoverySeconds: UInt32

    package init(failedTries: UInt32, maxTries: UInt32, recoverySeconds: UInt32) {
        self.failedTries = failedTries
        self.maxTries = maxTries
        self.recoverySeconds = recoverySeconds
    }

    /// Wrong tries left before lockout.
    package var triesLeft: UInt32 { maxTries > failedTries ? maxTries - failedTries : 0 }
}

/// The arguments' limits, checked before the TPM is reached.
enum TPMInput {
    static func check(secret: SecureBytes?, auth: SecureBytes?, pcrs: [Int]) throws(LommeError) {
        if let secret, secret.count > TPMDevice.maxSecret || secret.count == 0 {
            throw .failure(.tpmInputOutOfRange, "a TPM slot holds 1 to \(TPMDevice.maxSecret) bytes, not \(secret.count)")
        }
        if let auth, auth.count > TPMDevice.maxAuth {
            throw .failure(.tpmInputOutOfRange, "a TPM auth value has at most \(TPMDevice.maxAuth) bytes, not \(auth.count)")
        }
        if let bad = pcrs.first(where: { !(0...23).contains($0) }) {
            throw .usage(.pcrUnknown, "PCR \(bad) does not exist: the SHA-256 bank has PCRs 0 to 23")
        }
    }
}
