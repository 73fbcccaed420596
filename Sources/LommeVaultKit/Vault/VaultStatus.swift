import Glibc
import LommeCore

/// What `status` shows. Never prompts, never refreshes the session's timeout.
package struct VaultStatus: Sendable {
    package var path: String
    package var exists: Bool
    package var limits: KDFLimits?
    package var unlocked = false
    package var idle: UInt32?
    package var deadline: UInt64?
    package var kernelTimeout: String?
    package var keyringProblem: String?
    /// How `lines` says it: turned off, or refused by the kernel.
    package var keyringSummary: String?
    package var fields: [String]?
    package var created: Instant?
    package var updated: Instant?
    package var hasPrevious = false
    /// Fingerprints of this machine's receiving key and issuer (signing) key, and of the
    /// pinned issuer: `receivingKey`, `issuer` and `pinnedIssuer` in `status --json`.
    package var receivingKey: String?
    package var signingKey: String?
    package var pinnedIssuer: String?
    /// The household key: a parent's own (it has the kit) or the one a child pinned, with
    /// its newest vouch's time; `household` in `status --json` (unlocked).
    package var household: (fingerprint: String, own: Bool, vouch: UInt64)?
    /// Where the stored config came from (nil: not recorded, or no config).
    package var source: ConfigSource?
    /// The key slots (a version 1 file: its one passphrase).
    package var slots: [SlotService.Info] = []
    /// The stored secret, masked, and when it was set.
    package var secret: (masked: String, set: Instant?)?
    /// A parent's children and how many of them have no code with the current secret.
    package var children: (count: Int, notCurrent: Int)?
    /// When the stored config was issued (a sealed code), by whom.
    package var issued: (seconds: Int64, issuer: String)?
    /// The secret-expiry warning (stderr).
    package var warning: String?
    /// A parent's machine not heard from for 14 days, a config made two ways (stderr).
    package var householdWarnings: [String] = []
    /// The household's parents' machines (several parents): name, issuer, this machine, last heard.
    package var parents: [(name: String, issuer: String, thisMachine: Bool, heard: Instant?)] = []
    package var configConflict = false

    package static func read(_ context: VaultContext) throws(LommeError) -> VaultStatus {
        let store = context.store
        var status = VaultStatus(path: store.path, exists: store.exists)
        guard status.exists else { return status }
        let sealed = try VaultFormat.parse(try store.read())
        status.limits = sealed.v1Limits ?? sealed.slots.lazy.compactMap { PassphraseSlot(parameters: $0.parameters) }.first?.limits
        status.slots = sealed.version == VaultFormat.version1 ? [] : sealed.slots.map(SlotService(context).info)
        if let keys = sealed.publicKeys {
            // Public, in the header: shown while locked; the key check covers them, so a
            // swapped key makes the next open fail (exit 5).
            status.receivingKey = keys.receiving?.fingerprint
            status.signingKey = keys.issuer?.fingerprint
            status.pinnedIssuer = keys.pinnedIssuer?.fingerprint
        }
        do {
            _ = try context.keyring.find(Session.keyDescription(salt: sealed.salt))
        } catch {
            status.keyringProblem = error.reason
            status.keyringSummary = error.summary
        }
        if status.keyringProblem == nil, let (master, state) = Session.fromKeyring(context, sealed, refresh: false) {
            status.unlocked = true
            status.idle = state.idle
            status.deadline = state.deadline
            status.kernelTimeout = state.kernelTimeout
            let contents = try VaultContents(plaintext: VaultFormat.open(sealed, master: master))
            status.fields = contents.config.map { Config.fieldNames + $0.extras.map(\.key) } ?? []
            status.created = contents.created
            status.updated = contents.updated
            status.hasPrevious = contents.previous != nil
            status.source = contents.source
            if let identity = contents.identity {
                status.receivingKey = identity.receiving.publicKey.fingerprint
                status.signingKey = identity.signing.fingerprint
                status.pinnedIssuer = identity.pinnedIssuer?.fingerprint
                if let pin = identity.household { status.household = (pin.fingerprint, false, pin.vouch.version) }
                if case .sealed(let issuer)? = contents.source, let last = identity.lastEnvelope {
                    status.issued = (last.issuedMs / 1000, issuer.fingerprint)
                }
            }
            if let config = contents.config {
                status.secret = (Config.maskedSecret(config.clientSecret), contents.household.secretSet)
            }
            let household = contents.household
            if let root = household.root { status.household = (root.fingerprint, true, root.vouch.version) }
            if !household.children.isEmpty {
                let index = Household.RecordIndex(household.issued)
                status.children = (household.children.count,
                                   household.children.filter { !household.state(of: $0, config: contents.config, index: index).current }.count)
            }
            status.warning = contents.secretWarning(now: Int64(time(nil)))
            let me = contents.identity?.issuerID
            status.householdWarnings = household.parentWarnings(now: .now(), me: me)
            status.configConflict = !household.conflict.isEmpty
            status.parents = household.parents.filter { !$0.removed }.map {
                ($0.name, $0.key.issuer.fingerprint, $0.id == me, household.sync?.heard[$0.id.hex])
            }
        }
        return status
    }

    /// `label:` padded so the values line up (the widest label is "receiving key").
    static func row(_ label: String, _ value: String) -> String {
        label + ":" + String(repeating: " ", count: max(1, 14 - label.count)) + value
    }

    package var lines: [String] {
        let row = VaultStatus.row
        var out = [row("vault", path)]
        guard exists else { return out + [row("state", "no vault (create one with `lomme-vault init` or `lomme-vault import`)")] }
        if let limits { out.append(row("kdf", "\(limits)")) }
        if let keyringSummary {
            out.append(row("state", "locked; \(keyringSummary)"))
        } else if unlocked, let idle, let deadline {
            // Time left in one style, DurationText.rough's ("59m", "11h59m"): the kernel's
            // count ("59m", whole units) read back, and the deadline's own.
            let left = deadline > UInt64(time(nil)) ? deadline - UInt64(time(nil)) : 0
            let kernel = kernelTimeout.flatMap(DurationText.parse).map { ", \(DurationText.rough(UInt64($0))) left now" } ?? ""
            out.append(row("state", "unlocked (locks after \(DurationText.format(UInt64(idle))) without use\(kernel); in \(DurationText.rough(left)) at the latest)"))
        } else {
            out.append(row("state", "locked"))
        }
        if let fields { out.append(row("fields", fields.isEmpty ? "(no config imported yet)" : fields.joined(separator: ", "))) }
        else if exists { out.append(row("fields", "(unlock to list them)")) }
        if let fields, !fields.isEmpty {
            out.append(row("source", source?.description ?? "not recorded (stored by an older lomme-vault)"))
        }
        if let issued {
            let age = Int64(time(nil)) - issued.seconds
            out.append(row("issued", "\(Instant(seconds: issued.seconds).shown) by \(issued.issuer) (\(DurationText.rough(UInt64(max(0, age)))) ago)"))
        }
        if let secret {
            out.append(row("secret", secret.masked + (secret.set.map { ", set \($0.shown)" } ?? "")))
        }
        if let children {
            let stale = children.notCurrent == 0 ? "all current"
                : "\(children.notCurrent) not current: `lomme-vault child list` says why, `lomme-vault issue --all` gives new codes"
            out.append(row("children", "\(children.count) (\(stale))"))
        }
        if let created { out.append(row("created", created.shown)) }
        if let updated { out.append(row("updated", "\(updated.shown)\(hasPrevious ? " (the previous config is kept)" : "")")) }
        if let receivingKey, let signingKey {
            out.append(row("receiving key", "\(receivingKey) (a parent seals codes to it with `lomme-vault issue --to`; `lomme-vault key` prints it)"))
            out.append(row("issuer", "\(signingKey) (this machine's: a child compares it when importing a code issued here)"))
            out.append(row("pinned issuer", pinnedIssuer.map { "\($0) (sealed codes are accepted from this issuer only)" } ?? "none yet"))
            if let household {
                let when = Instant(milliseconds: Int64(clamping: household.vouch)).shown
                out.append(row("household", household.own
                    ? "\(household.fingerprint) (its recovery kit is this vault's; newest vouch \(when))"
                    : "\(household.fingerprint) (pinned: its vouch of \(when) says which issuers speak for it)"))
            }
        } else if unlocked {
            out.append(row("receiving key", "none yet (`lomme-vault key` makes this machine's keys)"))
        } else {
            out.append(row("receiving key", "(unlock to see the receiving key and issuer fingerprints)"))
        }
        if !parents.isEmpty {
            out.append(row("parents", parents.map { "\($0.name) (\($0.thisMachine ? "this machine" : $0.heard.map { "heard from \($0.shown)" } ?? "not heard from yet"))" }
                .joined(separator: ", ") + " (`lomme-vault parent list`)"))
        }
        if !slots.isEmpty {
            out.append(row("slots", slots.map { "\($0.id) \($0.kind) (\($0.details))" }.joined(separator: "; ") + " (`lomme-vault slots`)"))
        }
        return out
    }

    package var json: JSON {
        var members = [JSON.Member("vault", .string(path)), JSON.Member("exists", .bool(exists))]
        guard exists else { return .object(members) }
        if let limits {
            members.append(JSON.Member("kdf", .object([
                JSON.Member("algorithm", .string("argon2id13")),
                JSON.Member("opslimit", .number(String(limits.opslimit))),
                JSON.Member("memlimit", .number(String(limits.memlimit))),
            ])))
        }
        members.append(JSON.Member("unlocked", .bool(unlocked)))
        if let keyringProblem { members.append(JSON.Member("keyringUnavailable", .string(keyringProblem))) }
        if let idle { members.append(JSON.Member("idleTimeout", .number(String(idle)))) }
        if let deadline { members.append(JSON.Member("lockAt", .string(Instant(seconds: Int64(clamping: deadline)).text))) }
        if let fields { members.append(JSON.Member("fields", .array(fields.map { .string($0) }))) }
        if let created { members.append(JSON.Member("created", .string(created.text))) }
        if let updated { members.append(JSON.Member("updated", .string(updated.text))) }
        if unlocked { members.append(JSON.Member("previous", .bool(hasPrevious))) }
        if let fields, !fields.isEmpty { members.append(JSON.Member("source", source?.statusJSON ?? .null)) }
        if let issued { members.append(JSON.Member("issued", .string(Instant(seconds: issued.seconds).text))) }
        if let secret, let set = secret.set { members.append(JSON.Member("secretSet", .string(set.text))) }
        if let children {
            members.append(JSON.Member("children", .number(String(children.count))))
            members.append(JSON.Member("childrenNotCurrent", .number(String(children.notCurrent))))
        }
        if let receivingKey { members.append(JSON.Member("receivingKey", .string(receivingKey))) }
        if let signingKey { members.append(JSON.Member("issuer", .string(signingKey))) }
        if let pinnedIssuer { members.append(JSON.Member("pinnedIssuer", .string(pinnedIssuer))) }
        if let household { members.append(JSON.Member("household", .string(household.fingerprint))) }
        if !parents.isEmpty {
            members.append(JSON.Member("parents", .array(parents.map { parent in
                .object([JSON.Member("name", .string(parent.name)), JSON.Member("issuer", .string(parent.issuer)),
                         JSON.Member("thisMachine", .bool(parent.thisMachine)), JSON.Member("lastHeard", parent.heard.map { .string($0.text) } ?? .null)])
            })))
            members.append(JSON.Member("configConflict", .bool(configConflict)))
        }
        if !slots.isEmpty { members.append(JSON.Member("slots", .array(slots.map(\.json)))) }
        return .object(members)
    }
}
