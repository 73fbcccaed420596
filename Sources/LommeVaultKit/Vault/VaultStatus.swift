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
    package var created: String?
    package var updated: String?
    package var hasPrevious = false
    /// Fingerprints of this device's receiving and signing keys, and of the pinned issuer.
    package var receivingKey: String?
    package var signingKey: String?
    package var pinnedIssuer: String?
    /// Where the stored config came from (nil: not recorded, or no config).
    package var source: ConfigSource?

    package static func read(_ context: VaultContext) throws(LommeError) -> VaultStatus {
        let store = context.store
        var status = VaultStatus(path: store.path, exists: store.exists)
        guard status.exists else { return status }
        let sealed = try VaultFormat.parse(try store.read())
        status.limits = sealed.header.limits
        do {
            _ = try context.keyring.find(Session.keyDescription(salt: sealed.header.salt))
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
            if let identity = try contents.deviceIdentity() {
                status.receivingKey = identity.receiving.publicKey.fingerprint
                status.signingKey = identity.signing.fingerprint
                status.pinnedIssuer = identity.pinnedIssuer.map(Fingerprint.of)
            }
        }
        return status
    }

    package var lines: [String] {
        var out = ["vault:    \(path)"]
        guard exists else { return out + ["state:    no vault (create one with `lomme-vault init` or `lomme-vault import`)"] }
        if let limits { out.append("kdf:      \(limits)") }
        if let keyringSummary {
            out.append("state:    locked; \(keyringSummary)")
        } else if unlocked, let idle, let deadline {
            let left = deadline > UInt64(time(nil)) ? deadline - UInt64(time(nil)) : 0
            let kernel = kernelTimeout.map { ", \($0) left now" } ?? ""
            out.append("state:    unlocked (locks after \(DurationText.format(UInt64(idle))) without use\(kernel); in \(DurationText.format(left)) at the latest)")
        } else {
            out.append("state:    locked")
        }
        if let fields { out.append("fields:   " + (fields.isEmpty ? "(no config imported yet)" : fields.joined(separator: ", "))) }
        else if exists { out.append("fields:   (unlock to list them)") }
        if let fields, !fields.isEmpty {
            out.append("source:   " + (source?.description ?? "not recorded (stored by an older lomme-vault)"))
        }
        if let created { out.append("created:  \(created)") }
        if let updated { out.append("updated:  \(updated)\(hasPrevious ? " (the previous config is kept)" : "")") }
        if let receivingKey, let signingKey {
            out.append("device:   receiving key \(receivingKey) (`lomme-vault key` shows it)")
            out.append("issuer:   signing key \(signingKey) (what a child checks after importing a code you sealed)")
            out.append("pinned:   " + (pinnedIssuer.map { "\($0) (sealed codes are accepted from this issuer only)" } ?? "no issuer yet"))
        } else if unlocked {
            out.append("device:   no device key yet (`lomme-vault key` makes one)")
        } else {
            out.append("device:   (unlock to see the device key fingerprints)")
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
        if let deadline { members.append(JSON.Member("lockAt", .string(VaultContents.timestamp(Int(deadline))))) }
        if let fields { members.append(JSON.Member("fields", .array(fields.map { .string($0) }))) }
        if let created { members.append(JSON.Member("created", .string(created))) }
        if let updated { members.append(JSON.Member("updated", .string(updated))) }
        if unlocked { members.append(JSON.Member("previous", .bool(hasPrevious))) }
        if let fields, !fields.isEmpty { members.append(JSON.Member("source", source?.statusJSON ?? .null)) }
        if let receivingKey { members.append(JSON.Member("receivingKey", .string(receivingKey))) }
        if let signingKey { members.append(JSON.Member("signingKey", .string(signingKey))) }
        if let pinnedIssuer { members.append(JSON.Member("pinnedIssuer", .string(pinnedIssuer))) }
        members.append(JSON.Member("deviceKey", .null))
        return .object(members)
    }
}
