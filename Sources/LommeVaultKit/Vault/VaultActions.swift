import LommeCore

/// The vault operations the commands are made of, each a few lines in the CLI.
package enum VaultActions {
    /// The KDF limits for a new vault or a new passphrase, from the settings' KDF value
    /// (`LOMME_VAULT_KDF`); calibrating takes a moment, shown as progress.
    package static func newLimits(_ context: VaultContext) throws(LommeError) -> KDFLimits {
        let setting = context.settings.kdf
        if setting == nil || setting == "calibrate" || setting == "" {
            return try context.interaction.progress("calibrating the key derivation…") { () throws(LommeError) in
                try KDF.limitsForNewVault(environment: setting)
            }
        }
        return try KDF.limitsForNewVault(environment: setting)
    }

    /// A fresh header (new salt and nonce) for `limits`.
    static func newHeader(_ limits: KDFLimits) -> VaultFormat.Header {
        VaultFormat.Header(limits: limits, salt: Sodium.randomBytes(KDF.saltLength), nonce: Sodium.randomBytes(VaultFormat.nonceLength))
    }

    /// Creates a vault holding `contents`, sealed under a new passphrase. Refuses to
    /// replace an existing vault. Returns the limits used and how long one derivation took.
    @discardableResult
    package static func create(_ context: VaultContext, contents: VaultContents, source: PassphraseSource) throws(LommeError) -> (limits: KDFLimits, seconds: Double) {
        let store = context.store
        if store.exists {
            throw LommeError.failure("a vault already exists at \(store.path); use `lomme-vault passwd` to change its passphrase, or move it away first")
        }
        let phrase = try Passphrase.new(source, context.interaction)
        let limits = try newLimits(context)
        let header = newHeader(limits)
        let start = KDF.monotonicSeconds()
        let master = try Session.derive(phrase, header, context.interaction)
        let seconds = KDF.monotonicSeconds() - start
        let bytes = VaultFormat.seal(contents.plaintext(), master: master, header: header)
        try store.withWriteLock { () throws(LommeError) in
            if store.exists {
                throw LommeError.failure("a vault appeared at \(store.path) meanwhile; nothing was written")
            }
            try store.write(bytes)
        }
        return (limits, seconds)
    }

    /// Re-seals `opened` after `change`, under the write lock: same key and salt,
    /// fresh nonce. If the file changed since it was opened, the change is applied to
    /// the current contents instead.
    package static func update(_ opened: OpenedVault, _ change: (inout VaultContents) throws(LommeError) -> Void) throws(LommeError) {
        let store = opened.store
        try store.withWriteLock { () throws(LommeError) in
            let current = try VaultFormat.parse(try store.read())
            var contents: VaultContents
            if current.bytes == opened.sealed.bytes {
                contents = opened.contents
            } else {
                guard VaultFormat.matches(current, master: opened.master) else {
                    throw LommeError.failure("the vault's passphrase was changed while this command ran; nothing was written, run it again")
                }
                contents = try VaultContents(plaintext: VaultFormat.open(current, master: opened.master))
            }
            try change(&contents)
            var header = current.header
            header.nonce = Sodium.randomBytes(VaultFormat.nonceLength)
            try store.write(VaultFormat.seal(contents.plaintext(), master: opened.master, header: header))
        }
    }

    /// Re-seals the vault under a new passphrase: new salt, limits from
    /// `LOMME_VAULT_KDF`, new nonce. The `.bak` becomes the new vault too, so no file
    /// under the old passphrase (or the old key) stays; the old unlocked session and its
    /// cached tokens are removed. Returns true when a session was removed.
    package static func changePassphrase(_ context: VaultContext, old: UnlockOptions, new: PassphraseSource) throws(LommeError) -> Bool {
        let store = context.store
        let sealed = try VaultFormat.parse(try store.read())
        let oldMaster = try Session.deriveWithPassphrase(context, sealed, old, prompt: "Current passphrase for \(store.path): ")
        if new == .terminal && old.noPrompt {
            throw LommeError(.locked, "--no-prompt: give the new passphrase with --new-passphrase-fd or --new-passphrase-file")
        }
        let phrase = try Passphrase.new(new, context.interaction)
        let limits = try newLimits(context)
        let header = newHeader(limits)
        let newMaster = try Session.derive(phrase, header, context.interaction)
        try store.withWriteLock { () throws(LommeError) in
            let current = try VaultFormat.parse(try store.read())
            guard VaultFormat.matches(current, master: oldMaster) else {
                throw LommeError.failure("the vault changed while this command ran; nothing was written, run it again")
            }
            let plaintext = try VaultFormat.open(current, master: oldMaster)
            try store.write(VaultFormat.seal(plaintext, master: newMaster, header: header), backup: .same)
        }
        TokenCache.forgetAll(vaultID: Session.vaultID(salt: sealed.header.salt), keyring: context.keyring)
        return (try? Session.lock(context.keyring, salt: sealed.header.salt)) ?? false
    }
}
