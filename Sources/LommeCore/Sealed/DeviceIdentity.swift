/// What the vault's `device` section holds for sealed provisioning: this device's key
/// pairs, the issuer pinned on first use, the last code imported and the last one issued.
///
///     "device": {"receiving": {"public": HEX, "secret": HEX},
///                "signing":   {"public": HEX, "secret": HEX},
///                "issuer":    {"key": HEX, "pinned": TIME},
///                "lastEnvelope": {"id": HEX, "issued": SECONDS, "issuedMs": MS,
///                                 "issuer": HEX, "credential": HEX},
///                "lastIssued": SECONDS, "lastIssuedMs": MS}
package struct DeviceIdentity: Sendable {
    package var receiving: ReceivingKeyPair
    package var signing: IssuerKeyPair
    /// The Ed25519 key of the parent whose codes this device accepts (pinned on first use).
    package var pinnedIssuer: IssuerKey?
    package var pinnedSince: Instant?
    /// The last sealed code imported: the same id again changes nothing, an older issue
    /// time is a rollback, and `lomme-vault receipt` names it.
    package var lastEnvelope: ImportedCode?
    /// The issue time (Unix milliseconds) of the last sealed code this device issued: the
    /// next one is issued at least a millisecond later, so two codes of one issuer never
    /// compare equal, and none is dated after the moment it was made.
    package var lastIssuedMs: Int64?
    /// The household key pinned with the issuer, and the newest vouch seen (a child).
    package var household: HouseholdPin?
    /// The issue time (Unix milliseconds) of the last code imported from each issuer (by
    /// `Vouch.id`): a household of several parents' machines is checked for replays and
    /// roll backs issuer by issuer, and across issuers by the config's revision, so two
    /// machines' clocks never decide (docs/SYNC.md, "The revision").
    package var lastByIssuer: [String: Int64] = [:]
    /// Members this version does not know, kept as they are.
    package var unknown: [JSON.Member] = []
    static let known: Set<String> = ["receiving", "signing", "issuer", "lastEnvelope", "lastIssued", "lastIssuedMs", "household", "lastByIssuer"]

    /// The last sealed code imported, as the device keeps it.
    package struct ImportedCode: Sendable, Equatable {
        package var id: [UInt8]
        /// Its issue time, Unix milliseconds (a format-2 code's seconds × 1000).
        package var issuedMs: Int64
        /// Who issued it and the credential fingerprint it carried (format 3): what a
        /// receipt is made for and names. Nil for a code recorded before receipts.
        package var issuer: IssuerKey?
        package var credential: [UInt8]?
        /// The config's revision it carried (nil: none, a household of one machine).
        package var revision: UInt64?

        package init(id: [UInt8], issuedMs: Int64, issuer: IssuerKey? = nil, credential: [UInt8]? = nil, revision: UInt64? = nil) {
            self.id = id
            self.issuedMs = issuedMs
            self.issuer = issuer
            self.credential = credential
            self.revision = revision
        }
    }

    package static func generate() -> DeviceIdentity {
        DeviceIdentity(receiving: .generate(), signing: .generate())
    }

    package init(receiving: ReceivingKeyPair, signing: IssuerKeyPair) {
        self.receiving = receiving
        self.signing = signing
    }

    /// Reads the section; nil when it holds no keys (a vault made before device keys).
    package init?(json: JSON) throws(LommeError) {
        guard json["receiving"] != nil || json["signing"] != nil else { return nil }
        func damaged(_ what: String) -> LommeError {
            LommeError(.damaged, .vaultDeviceKeysDamaged, "the vault's device keys are not understood (\(what)); restore the .bak")
        }
        func pair(_ name: String, secretSize: Int) throws(LommeError) -> ([UInt8], SecureBytes) {
            guard let section = json[name], let publicHex = section["public"]?.stringValue, let secretHex = section["secret"]?.stringValue,
                let publicKey = Sodium.unhex(publicHex), let secretKey = SecretHex.decode(secretHex, count: secretSize)
            else { throw damaged(name) }
            return (publicKey, secretKey)
        }
        let (boxPublic, boxSecret) = try pair("receiving", secretSize: PublicKeyCrypto.boxSecretKeySize)
        let (signPublic, signSecret) = try pair("signing", secretSize: PublicKeyCrypto.signSecretKeySize)
        guard let receiving = ReceivingKeyPair(publicKey: boxPublic, secretKey: boxSecret) else { throw damaged("receiving") }
        guard let signing = IssuerKeyPair(publicKey: signPublic, secretKey: signSecret) else { throw damaged("signing") }
        self.init(receiving: receiving, signing: signing)
        if let issuer = json["issuer"] {
            guard let key = issuer["key"]?.stringValue.flatMap(IssuerKey.init(hex:)) else {
                throw damaged("issuer")
            }
            pinnedIssuer = key
            pinnedSince = issuer["pinned"]?.stringValue.flatMap(Instant.init(text:))
        }
        func milliseconds(_ section: JSON, seconds: String, ms: String) throws(LommeError) -> Int64? {
            if let value = section[ms] {
                guard case .number(let text) = value, let ms = Int64(text), ms >= 0 else { throw damaged(ms) }
                return ms
            }
            guard let value = section[seconds] else { return nil }
            guard case .number(let text) = value, let whole = Int64(text), whole >= 0, whole <= Envelope.maxTime else {
                throw damaged(seconds)
            }
            return whole * 1000
        }
        if let last = json["lastEnvelope"] {
            guard let hex = last["id"]?.stringValue, let id = Sodium.unhex(hex),
                let issuedMs = try milliseconds(last, seconds: "issued", ms: "issuedMs")
            else { throw damaged("lastEnvelope") }
            var code = ImportedCode(id: id, issuedMs: issuedMs)
            if let issuer = last["issuer"] {
                guard let key = issuer.stringValue.flatMap(IssuerKey.init(hex:)) else {
                    throw damaged("lastEnvelope")
                }
                code.issuer = key
            }
            if let credential = last["credential"] {
                guard let value = credential.stringValue.flatMap(Sodium.unhex), value.count == SealedExtensions.credentialSize else {
                    throw damaged("lastEnvelope")
                }
                code.credential = value
            }
            if let revision = last["revision"] {
                guard let value = revision.uint64Value else { throw damaged("lastEnvelope") }
                code.revision = value
            }
            lastEnvelope = code
        }
        lastIssuedMs = try milliseconds(json, seconds: "lastIssued", ms: "lastIssuedMs")
        if let section = json["household"] {
            guard let pin = HouseholdPin(json: section) else { throw damaged("household") }
            household = pin
        }
        if case .object(let members)? = json["lastByIssuer"] {
            for member in members {
                guard case .number(let text) = member.value, let ms = Int64(text), ms >= 0 else { throw damaged("lastByIssuer") }
                lastByIssuer[member.key] = ms
            }
        }
        if case .object(let members) = json { unknown = members.filter { !DeviceIdentity.known.contains($0.key) } }
    }

    package var json: JSON {
        var members = [
            JSON.Member("receiving", .object([
                JSON.Member("public", .string(Sodium.hex(receiving.publicKey.bytes))),
                JSON.Member("secret", .string(SecretHex.encode(receiving.secretKey))),
            ])),
            JSON.Member("signing", .object([
                JSON.Member("public", .string(signing.publicKey.hex)),
                JSON.Member("secret", .string(SecretHex.encode(signing.secretKey))),
            ])),
        ]
        if let pinnedIssuer {
            var issuer = [JSON.Member("key", .string(pinnedIssuer.hex))]
            if let pinnedSince { issuer.append(JSON.Member("pinned", .string(pinnedSince.text))) }
            members.append(JSON.Member("issuer", .object(issuer)))
        }
        if let lastEnvelope {
            var code = [
                JSON.Member("id", .string(Sodium.hex(lastEnvelope.id))),
                JSON.Member("issued", .number(String(lastEnvelope.issuedMs / 1000))),
                JSON.Member("issuedMs", .number(String(lastEnvelope.issuedMs))),
            ]
            if let issuer = lastEnvelope.issuer { code.append(JSON.Member("issuer", .string(issuer.hex))) }
            if let credential = lastEnvelope.credential { code.append(JSON.Member("credential", .string(Sodium.hex(credential)))) }
            if let revision = lastEnvelope.revision { code.append(JSON.Member("revision", .number(String(revision)))) }
            members.append(JSON.Member("lastEnvelope", .object(code)))
        }
        if let household { members.append(JSON.Member("household", household.json)) }
        if !lastByIssuer.isEmpty {
            members.append(JSON.Member("lastByIssuer", .object(lastByIssuer.keys.sorted().map { JSON.Member($0, .number(String(lastByIssuer[$0]!))) })))
        }
        if let lastIssuedMs {
            // The seconds too, for a lomme-vault from before the milliseconds.
            members.append(JSON.Member("lastIssued", .number(String(lastIssuedMs / 1000))))
            members.append(JSON.Member("lastIssuedMs", .number(String(lastIssuedMs))))
        }
        return .object(members + unknown)
    }
}

extension VaultContents {
    /// The device keys, made now if the vault has none yet.
    package mutating func ensureDeviceIdentity() -> DeviceIdentity {
        if let identity { return identity }
        let made = DeviceIdentity.generate()
        identity = made
        return made
    }
}

extension DeviceIdentity: Equatable {
    package static func == (a: DeviceIdentity, b: DeviceIdentity) -> Bool {
        a.receiving.publicKey == b.receiving.publicKey && a.receiving.secretKey.isEqual(to: b.receiving.secretKey)
            && a.signing.publicKey == b.signing.publicKey && a.signing.secretKey.isEqual(to: b.signing.secretKey)
            && a.pinnedIssuer == b.pinnedIssuer && a.pinnedSince == b.pinnedSince && a.lastEnvelope == b.lastEnvelope
            && a.lastIssuedMs == b.lastIssuedMs && a.household == b.household && a.unknown == b.unknown
            && a.lastByIssuer == b.lastByIssuer
    }
}
