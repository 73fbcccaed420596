import ArgumentParser
import Glibc
import LommeCore
import LommeVaultKit

/// Where the vault is: `--vault`, for every vault command (`status` and `lock` take only this).
struct VaultLocation: ParsableArguments {
    @Option(name: .customLong("vault"), help: ArgumentHelp("The vault file (default: $LOMME_VAULT, else $XDG_DATA_HOME/lomme-vault/vault).", valueName: "path"))
    var vault: String?

    /// Turns core dumps and ptrace off, and builds what the services work with: the
    /// settings from --vault and the environment, and the terminal to ask on.
    func prepare() throws(LommeError) -> VaultContext { try Self.prepare(vault: vault) }

    /// `prepare()` for a `--vault` value found without ArgumentParser (FastPath).
    static func prepare(vault: String?) throws(LommeError) -> VaultContext {
        Hardening.apply()
        var environment: [String: String] = [:]
        for name in VaultSettings.environmentNames {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return VaultContext(settings: try VaultSettings(option: vault, environment: environment), interaction: TerminalInteraction())
    }
}

/// The vault and how to get its passphrase: for the commands that open it.
struct VaultOptions: ParsableArguments {
    @OptionGroup var location: VaultLocation
    @OptionGroup var passphrase: PassphraseOptions

    var vault: String? { location.vault }
    var noPrompt: Bool { passphrase.noPrompt }
    var source: PassphraseSource { passphrase.source }
    var unlockOptions: UnlockOptions { passphrase.unlockOptions }
    func prepare() throws(LommeError) -> VaultContext { try location.prepare() }
    func withholdPassphraseDescriptor() { passphrase.withholdPassphraseDescriptor() }
}

/// Where the passphrase comes from, when a command needs it.
struct PassphraseOptions: ParsableArguments {
    @Option(name: .customLong("passphrase-fd"), help: ArgumentHelp("Read the passphrase from this open file descriptor (first line).", valueName: "n"))
    var passphraseFD: Int32?

    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp("Read the passphrase from this file (first line).", valueName: "path"))
    var passphraseFile: String?

    @Flag(name: .customLong("no-prompt"), help: "Never ask on the terminal; a locked vault is exit code 3.")
    var noPrompt = false

    func validate() throws { _ = try Self.source(passphraseFD, passphraseFile) }

    static func source(_ fd: Int32?, _ file: String?) throws(ValidationError) -> PassphraseSource {
        try SecretSource.from(fd: fd, file: file, noun: "passphrase", option: "passphrase")
    }

    var source: PassphraseSource { (try? Self.source(passphraseFD, passphraseFile)) ?? .terminal }

    var unlockOptions: UnlockOptions { UnlockOptions(source: source, noPrompt: noPrompt) }

    /// Before `exec` hands over: closes the `--passphrase-fd` descriptor, or points it at
    /// /dev/null when it is standard input, output or error, so the command cannot read
    /// the passphrase from it (or reopen it through /dev/fd). Every descriptor lomme-vault
    /// opens itself is close-on-exec.
    func withholdPassphraseDescriptor() {
        guard let fd = passphraseFD else { return }
        guard fd <= 2 else {
            close(fd)
            return
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        if null >= 0 {
            dup2(null, fd)
            close(null)
        } else {
            close(fd)
        }
    }
}

/// `get`'s newline rule: `-n` never, `--newline` always, else only on a terminal.
struct NewlineOptions: ParsableArguments {
    @Flag(name: .customShort("n"), help: "Never end the output with a newline.")
    var noNewline = false

    @Flag(name: .customLong("newline"), help: "Always end the output with a newline.")
    var newline = false

    func validate() throws {
        if noNewline && newline { throw ValidationError("-n and --newline contradict each other; give one") }
    }

    var wanted: Bool { Self.wanted(never: noNewline, always: newline) }

    static func wanted(never: Bool, always: Bool) -> Bool { always || (!never && Terminal.isTerminal(STDOUT_FILENO)) }
}
