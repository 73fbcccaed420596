import Glibc
import LommeCore
import LommeVaultKit

/// `--version`, `get FIELD` and `scan --raw PHOTO…` without ArgumentParser.
///
/// Why this exists: scripts call `get` several times per run, so its start-up is the hot path
/// (within 2x a Swift program that only prints a line); `scan --raw` of a small photo of
/// another application's code takes a few milliseconds after start-up, and is held to
/// zbarimg's time (bench/scan-cli). ArgumentParser builds its
/// whole tree of subcommands by reflection before it looks at the first argument (Mirror, protocol
/// conformance lookups that walk every conformance record, types demangled by name): callgrind
/// counted 7.5 of `--version`'s 10.4 million instructions there, 12.6 of `get`'s 16.4 million,
/// against 2.2 million for the whole floor program (docs/history/bench-results.md).
///
/// Only the exact shapes below are recognised; anything else (help, another option, an option
/// given twice, `--vault=PATH`, `-n` with `--newline`, a missing value) goes to ArgumentParser
/// unchanged, so its messages and exit codes stay the only ones. What a recognised `get` does
/// is `Get.run`'s own code: the same preparation (hardening before any secret is read), the same
/// reader, the same output; a recognised `scan` is `Scan.show`, as `Scan.run` calls it.
/// LOMME_VAULT_FAST_PATH=off turns this off (the tests compare both).
enum FastPath {
    enum Command: Equatable {
        case version
        case get(field: String, vault: String?, never: Bool, always: Bool, noPrompt: Bool)
        case scan(photos: [String], noNewline: Bool)
    }

    /// The command when `arguments` (without the program name) is one of
    /// `--version`, `get FIELD [-n | --newline] [--vault PATH] [--no-prompt]` or
    /// `scan --raw [-n] PHOTO…`, options in any order, each at most once; nil for anything else.
    static func recognise(_ arguments: [String]) -> Command? {
        if arguments == ["--version"] { return .version }
        if arguments.first == "scan" { return recogniseScan(arguments.dropFirst()) }
        guard arguments.first == "get" else { return nil }
        var field: String?, vault: String?
        var never = false, always = false, noPrompt = false
        /// Sets a flag the first time; false when it was given already.
        func first(_ flag: inout Bool) -> Bool {
            defer { flag = true }
            return !flag
        }
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "-n": guard first(&never) else { return nil }
            case "--newline": guard first(&always) else { return nil }
            case "--no-prompt": guard first(&noPrompt) else { return nil }
            case "--vault":
                guard vault == nil, let path = rest.popFirst(), !path.hasPrefix("-") else { return nil }
                vault = path
            default:
                guard field == nil, !argument.hasPrefix("-") else { return nil }
                field = argument
            }
        }
        guard let field, !(never && always) else { return nil }
        return .get(field: field, vault: vault, never: never, always: always, noPrompt: noPrompt)
    }

    /// `scan --raw [-n] PHOTO…`: photos that do not look like options, at least one.
    static func recogniseScan(_ arguments: ArraySlice<String>) -> Command? {
        var raw = false, never = false, photos: [String] = []
        for argument in arguments {
            switch argument {
            case "--raw": guard !raw else { return nil }; raw = true
            case "-n": guard !never else { return nil }; never = true
            default:
                guard !argument.hasPrefix("-"), !argument.isEmpty else { return nil }
                photos.append(argument)
            }
        }
        guard raw, !photos.isEmpty else { return nil }
        return .scan(photos: photos, noNewline: never)
    }

    /// Runs the command if `arguments` is one this file handles; false to hand them to ArgumentParser.
    static func run(_ arguments: [String]) throws(LommeError) -> Bool {
        if let setting = getenv("LOMME_VAULT_FAST_PATH"), String(cString: setting) == "off" { return false }
        switch recognise(arguments) {
        case nil:
            return false
        case .version:
            try Terminal.output(LommeVersion.string + "\n")
        case let .get(field, vault, never, always, noPrompt):
            let context = try VaultLocation.prepare(vault: vault)
            let config = try ConfigService(context).config(UnlockOptions(source: .terminal, noPrompt: noPrompt))
            try Get.show(field, of: config, newline: NewlineOptions.wanted(never: never, always: always))
        case let .scan(photos, noNewline):
            if let failure = try Scan.show(photos, raw: true, noNewline: noNewline) {
                Terminal.reason(failure.reason)
                exit(failure.code.rawValue)
            }
        }
        return true
    }
}
