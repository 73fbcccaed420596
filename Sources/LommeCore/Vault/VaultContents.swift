import Glibc

/// What the vault holds once opened: the config, when it was created and updated, the
/// config it replaced (one step of rollback), a `device` section reserved for device
/// keys, and any keys a newer version added (kept as they are).
package struct VaultContents: Sendable, Equatable {
    package var config: Config?
    package var created: Instant
    package var updated: Instant
    package var previous: Previous?
    /// This device's keys and what it pinned and imported (`device`); nil before it has keys.
    package var identity: DeviceIdentity?
    /// A `device` section without keys (from a newer version, say), kept as it is.
    var deviceWithoutKeys: JSON
    /// Where `config` came from; nil when a version before this was recorded stored it.
    package var source: ConfigSource?
    /// The parent's side: children, the issue record (empty on a child's vault).
    package var household: Household
    /// Keys this version does not know, in their order.
    package var unknown: [JSON.Member]

    package struct Previous: Sendable, Equatable {
        package var config: Config
        package var updated: Instant
        package var replaced: Instant
    }

    /// A child's device: it took a parent's sealed code (an issuer is pinned) and has no
    /// household of its own (no household key, no children). The commands of a parent's
    /// machine (`recovery kit`, `child …`) say so there instead of acting.
    package var isChildsDevice: Bool {
        identity?.pinnedIssuer != nil && household.root == nil && household.children.isEmpty
    }

    package init(config: Config? = nil, now: Instant = .now()) {
        self.config = config
        created = now
        updated = now
        previous = nil
        identity = nil
        deviceWithoutKeys = .object([])
        household = Household()
        unknown = []
    }

    /// Stores `config` from `source`, keeping the one it replaces as `previous`. On a
    /// parent's machine with a household key, a config changed here (not taken from another
    /// parent's machine) takes the next revision and ends a conflict (docs/SYNC.md, "The
    /// revision").
    package mutating func store(_ config: Config, source: ConfigSource? = nil, now: Instant = .now()) {
        if household.root != nil, self.config?.json.text != config.json.text || household.revision == nil {
            if case .parent? = source {} else {
                household.revision = (household.revision ?? 0) + 1
                household.configBy = nil
                household.conflict = []
            }
        }
        if let old = self.config {
            previous = Previous(config: old, updated: updated, replaced: now)
        }
        if self.config?.clientSecret != config.clientSecret { household.secretSet = now }
        self.config = config
        self.source = source
        updated = now
    }

    static let known: Set<String> = ["version", "config", "created", "updated", "previous", "device", Household.key]

    package var json: JSON {
        var members = [JSON.Member("version", .number("1"))]
        if let config { members.append(JSON.Member("config", config.json)) }
        members.append(JSON.Member("created", .string(created.text)))
        members.append(JSON.Member("updated", .string(updated.text)))
        if let previous {
            members.append(JSON.Member("previous", .object([
                JSON.Member("config", previous.config.json),
                JSON.Member("updated", .string(previous.updated.text)),
                JSON.Member("replaced", .string(previous.replaced.text)),
            ])))
        }
        members.append(JSON.Member("device", identity?.json ?? deviceWithoutKeys))
        if let source { members.append(JSON.Member(ConfigSource.key, source.json)) }
        if !household.isEmpty { members.append(JSON.Member(Household.key, household.json)) }
        return .object(members + unknown)
    }

    /// The plaintext: the JSON padded with spaces to a multiple of `VaultContents.padding`.
    package func plaintext() -> SecureBytes {
        var text = Array(json.text.utf8)
        defer { SecureBytes.wipe(&text) }
        let padded = (text.count / VaultContents.padding + 1) * VaultContents.padding
        let out = SecureBytes(count: padded)
        out.withUnsafeMutableBytes { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0x20)
            buffer.copyBytes(from: text)
        }
        return out
    }

    package static let padding = 256

    /// Reads an opened vault's plaintext; anything unexpected is exit 5.
    package init(plaintext: SecureBytes) throws(LommeError) {
        func damaged(_ why: String) -> LommeError {
            LommeError(.damaged, .vaultContentsDamaged, "the vault opened but its contents are not understood (\(why)); restore the .bak or re-import")
        }
        var bytes = plaintext.bytes
        defer { SecureBytes.wipe(&bytes) }
        guard let json = try? JSON.parse(bytes), case .object(let members) = json else { throw damaged("not a JSON object") }
        guard case .number("1")? = json["version"] else {
            throw LommeError(.damaged, .vaultNewerFormat, "the vault's contents have a version this lomme-vault does not know; upgrade lomme-vault")
        }
        if let configJSON = json["config"] {
            do { config = try Config(json: configJSON, checksums: false) } catch { throw damaged("config: \(error.message)") }
        } else {
            config = nil
        }
        guard let created = json["created"]?.stringValue.flatMap(Instant.init(text:)),
              let updated = json["updated"]?.stringValue.flatMap(Instant.init(text:))
        else {
            throw damaged("no created/updated time")
        }
        self.created = created
        self.updated = updated
        if let previousJSON = json["previous"] {
            guard let configJSON = previousJSON["config"], let stored = previousJSON["updated"]?.stringValue.flatMap(Instant.init(text:)),
                  let replaced = previousJSON["replaced"]?.stringValue.flatMap(Instant.init(text:)),
                  let old = try? Config(json: configJSON, checksums: false)
            else { throw damaged("previous config") }
            previous = Previous(config: old, updated: stored, replaced: replaced)
        } else {
            previous = nil
        }
        let device = json["device"] ?? .object([])
        identity = try DeviceIdentity(json: device)
        deviceWithoutKeys = identity == nil ? device : .object([])
        household = try json[Household.key].map { (section) throws(LommeError) in try Household(json: section) } ?? Household()
        // A source this version does not understand is kept as it is, like any unknown key.
        let source = json[ConfigSource.key].flatMap(ConfigSource.init(json:))
        self.source = source
        unknown = members.filter { !VaultContents.known.contains($0.key) && !($0.key == ConfigSource.key && source != nil) }
    }

    /// Now in Unix milliseconds (the issue time of a sealed code).
    package static func nowMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }
}
