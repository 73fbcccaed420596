import Glibc
import LommeCore

/// `set FIELD`: replaces one field of the stored config. The value is read here, never
/// from argv: on a terminal it is asked (a secret without echo, typed twice), otherwise
/// it is standard input's first line. Replacing the clientSecret names the children whose
/// last code carries the old one.
package struct SetService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    /// Where the value comes from.
    package enum ValueSource: Sendable {
        /// Asked through the interaction.
        case terminal
        /// The first line of standard input.
        case standardInput
    }

    package struct Request: Sendable {
        package var field: String
        package var source: ValueSource
        package var checksums = true
        /// `set --new NAME`: add an extra field the config does not have yet.
        package var new = false
        package var unlock = UnlockOptions()
        package init(field: String, source: ValueSource) {
            self.field = field
            self.source = source
        }
    }

    package struct Outcome: Sendable {
        /// The field's name as stored (`secret` is `clientSecret`, `clientsecret` too).
        package var field: String
        /// False when the value was the one stored already: nothing was written.
        package var changed: Bool
        /// The children not current after the change, each with why.
        package var stale: [(name: String, reasons: [ChildState.Reason])]
        /// The secret-expiry warning, if the config now carries one that is near.
        package var warning: String?
    }

    /// The field `typed` names in `config`, for `get`, `set` and `unset` alike (`verb`): a
    /// known field in any case, an extra field of the config (exactly, whatever its
    /// characters, else in any case), or with `new` a field it does not have yet.
    /// Any other name is "no such field" (exit 6), one rule whatever the name: a near miss
    /// of a field is refused naming it, and `set` of a near miss of an extra field names
    /// `--new` too (the name may be meant as a new field); a mistyped name never becomes a
    /// new field.
    package static func resolve(_ typed: String, in config: Config, new: Bool, verb: String = "set") throws(LommeError) -> String {
        let extras = config.extras.map(\.key)
        guard extras.contains(typed) || !typed.isEmpty && typed.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw LommeError.usage(.fieldNameInvalid, "a field name is printable ASCII without spaces, as clientSecret or tokenUrl; \(JSON.printable(typed)) is not")
        }
        let existing = FieldNames.known(typed) ?? extras.first { $0 == typed } ?? extras.first { $0.lowercased() == typed.lowercased() }
        if let existing {
            if new { throw LommeError.usage(.fieldExists, "\(existing) is a field already; set it with `lomme-vault set \(existing)` (--new adds a field the config does not have)") }
            return existing
        }
        if new {
            guard typed.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == "." }) else {
                throw LommeError.usage(.fieldNameInvalid, "a new field's name is letters, digits, _, - and . (as nickname or apiKey); \(JSON.printable(typed)) is not")
            }
            return typed
        }
        let add = verb == "set" ? "; to add it as a new field: `lomme-vault set --new \(typed)`" : ""
        if let near = FieldNames.nearest(typed, among: Config.knownFieldNames + extras) {
            let orNew = verb == "set" && FieldNames.known(near) == nil ? "; or, to add it as a new field: `lomme-vault set --new \(typed)`" : ""
            throw LommeError(.notFound, .fieldNearMiss, "there is no field \(JSON.printable(typed)); did you mean \(near)? (`lomme-vault \(verb) \(JSON.printable(near))`)\(orNew)\(verb == "get" ? "" : "; nothing was stored")")
        }
        throw noField(typed, in: config, add)
    }

    /// "No such field" (exit 6), naming the fields `config` has.
    package static func noField(_ name: String, in config: Config, _ then: String = "") -> LommeError {
        LommeError(.notFound, .fieldUnknown, "the stored config has no field \(JSON.printable(name)) (its fields: \(ConfigService.fieldNames(config).map(JSON.printable).joined(separator: ", ")))\(then)")
    }

    package func run(_ request: Request) throws(LommeError) -> Outcome {
        let opened = try openWithConfig(request.unlock)
        let field = try Self.resolve(request.field, in: opened.contents.config!, new: request.new)
        let (value, updated) = try checkedValue(field, request, in: opened.contents.config!)
        var outcome = Outcome(field: field, changed: false, stale: [], warning: nil)
        guard updated != opened.contents.config else {
            // The same value again: nothing to write (as `import` of the same config).
            outcome.warning = opened.contents.secretWarning(now: Int64(time(nil)))
            return outcome
        }
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            guard let current = contents.config else { throw LommeError(.notFound, .noConfig, "the stored config disappeared meanwhile; nothing was written") }
            let field = try Self.resolve(request.field, in: current, new: request.new)  // again, under the write lock
            let config = try Self.replacing(field, with: value, in: current, checksums: request.checksums)
            contents.store(config, source: .local)
            outcome.changed = true
            outcome.stale = Self.stale(contents)
            outcome.warning = contents.secretWarning(now: Int64(time(nil)))
        }
        return outcome
    }

    /// The value and the config it makes, which must pass every rule (the check digits of
    /// the field set only: the stored ones were checked, or waived with --no-check, when they
    /// were stored). On a terminal a value that fails its rule is said and asked again,
    /// three tries in all, as a passphrase is; from standard input it ends the command.
    func checkedValue(_ field: String, _ request: Request, in config: Config) throws(LommeError) -> (String, Config) {
        let tries = request.source == .terminal ? Self.tries : 1
        var attempt = 1
        while true {
            let value = try read(field, request.source)
            do throws(LommeError) {
                return (value, try Self.replacing(field, with: value, in: config, checksums: request.checksums))
            } catch where error.code == .refused && attempt < tries {
                context.interaction.notice("\(error.message); type it again.")
                attempt += 1
            }
        }
    }

    /// How many values a terminal may type before `set` gives up (as the passphrase's tries).
    package static let tries = 3

    /// `unset NAME`: removes an extra field of the stored config (never one of the four).
    package func unset(_ typed: String, unlock: UnlockOptions) throws(LommeError) -> Outcome {
        let opened = try openWithConfig(unlock)
        var outcome = Outcome(field: typed, changed: false, stale: [], warning: nil)
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            guard var config = contents.config else { throw LommeError(.notFound, .noConfig, "the stored config disappeared meanwhile; nothing was written") }
            let field = try Self.resolve(typed, in: config, new: false, verb: "unset")
            if Config.fieldNames.contains(field) {
                throw LommeError.usage(.fieldRequired, "\(field) is one of the four fields every config has; change it with `lomme-vault set \(field)`")
            }
            guard config.extras.contains(where: { $0.key == field }) else {
                throw LommeError(.notFound, .fieldUnknown, "the stored config has no field \(field); nothing was changed")
            }
            config.extras.removeAll { $0.key == field }
            contents.store(config, source: .local)
            outcome.field = field
            outcome.changed = true
            outcome.stale = Self.stale(contents)
            outcome.warning = contents.secretWarning(now: Int64(time(nil)))
        }
        return outcome
    }

    func openWithConfig(_ unlock: UnlockOptions) throws(LommeError) -> OpenedVault {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "there is no vault at \(store.path); create one with `lomme-vault init --parent`, then store the bank's config with `lomme-vault import --stdin < config.json`")
        }
        let opened = try Session.open(context, unlock)
        guard opened.contents.config != nil else {
            throw LommeError(.notFound, .noConfig, "no config is stored in this vault yet; store the bank's with `lomme-vault import --stdin < config.json` (then delete the file), and `set` replaces one field of it")
        }
        return opened
    }

    /// The children not current with the stored config, each with why.
    static func stale(_ contents: VaultContents) -> [(name: String, reasons: [ChildState.Reason])] {
        let household = contents.household
        let index = Household.RecordIndex(household.issued)
        return household.children.compactMap { child in
            let state = household.state(of: child, config: contents.config, index: index)
            return state.current ? nil : (child.name, state.reasons)
        }
    }

    /// `config` with `field` set to `value`, checked.
    static func replacing(_ field: String, with value: String, in config: Config, checksums: Bool) throws(LommeError) -> Config {
        var config = config
        switch field {
        case Config.Field.clientId:
            try Config.check(clientId: value)
            config.clientId = value
        case Config.Field.clientSecret:
            try Config.check(clientSecret: value)
            config.clientSecret = value
        case Config.Field.userId:
            let digits = NorwegianNumbers.normalize(value)
            try Config.check(userId: digits, checksums: checksums)
            config.userId = digits
        case Config.Field.accountNr:
            let digits = NorwegianNumbers.normalize(value)
            try Config.check(accountNr: digits, checksums: checksums)
            config.accountNr = digits
        default:
            try Config.check(extra: field, value)
            if field == Config.Field.tokenUrl {
                do throws(LommeError) { _ = try TokenURL(value, source: Config.Field.tokenUrl) } catch { throw error.with(code: .refused) }
            }
            let member = JSON.Member(field, .string(value))
            if let index = config.extras.firstIndex(where: { $0.key == field }) {
                config.extras[index] = member
            } else {
                config.extras.append(member)
            }
        }
        try config.validate(checksums: false)
        return config
    }

    /// The value: asked (a secret twice, without echo) or standard input's first line.
    func read(_ field: String, _ source: ValueSource) throws(LommeError) -> String {
        let secret = FieldNames.isSecret(field)
        switch source {
        case .terminal:
            let interaction = context.interaction
            guard interaction.canAsk else {
                throw LommeError(.locked, .noTerminalToAsk, "no terminal to ask for \(field) on; give the value on standard input: `lomme-vault set \(field) < FILE`")
            }
            guard secret else { return try interaction.ask("\(field): ") }
            for _ in 0..<3 {
                let first = try interaction.askSecret("\(field) (not shown): ")
                let second = try interaction.askSecret("\(field) again: ")
                if first.bytes == second.bytes { return first.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
                interaction.notice("The two did not match; type it again.")
            }
            throw LommeError.failure(.newSecretNotSet, "the two entries of \(field) did not match three times; nothing was changed")
        case .standardInput:
            var bytes = try ConfigInput.readSmallFile("-", limit: ConfigInput.maximumSize, what: "value on standard input")
            defer { SecureBytes.wipe(&bytes) }
            var line = bytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first.map(Array.init) ?? []
            defer { SecureBytes.wipe(&line) }
            if line.last == 0x0D { line.removeLast() }
            guard !line.isEmpty else {
                throw LommeError.usage(.inputEmpty, "standard input's first line is empty; give the value of \(field) on it, as `echo VALUE | lomme-vault set \(field)`")
            }
            guard let text = String(validating: line, as: UTF8.self) else {
                throw LommeError.refused(.inputNotText, "the value on standard input is not UTF-8 text")
            }
            return text
        }
    }
}
