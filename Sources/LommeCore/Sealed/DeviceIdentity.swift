/// What the vault's `device` section holds for sealed provisioning: this device's key
/// pairs, the issuer pinned on first use, and the last envelope imported.
///
///     "device": {"receiving": {"public": HEX, "secret": HEX},
///                "signing":   {"public": HEX, "secret": HEX},
///                "issuer":    {"key": HEX, "pinned": TIME},
///                "lastEnvelope": {"id": HEX, "issued": SECONDS}}
package struct DeviceIdentity: Sendable {
    package var receiving: ReceivingKeyPair
    package var signing: SigningKeyPair
    /// The Ed25519 key of the parent whose codes this device accepts (pinned on first use).
    package var pinnedIssuer: [UInt8]?
    package var pinnedSince: String?
    /// The id and issue time of the last sealed config imported: the same id again changes
    /// nothing, an older issue time is a rollback.
    package var lastEnvelope: (id: [UInt8], issued: Int64)?
    /// The issue time of the last sealed code this device issued: the next one is issued
    /// at least a second later, so two codes of one issuer never compare equal.
    package var lastIssued: Int64?
    /// Members this version does not know, kept as they are.
    package var unknown: [JSON.Member] = []
    static let known: Set<String> = ["receiving", "signing", "issuer", "lastEnvelope", "lastIssued"]

    package static func generate() -> DeviceIdentity {
        DeviceIdentity(receiving: .generate(), signing: .generate())
    }

    package init(receiving: ReceivingKeyPair, signing: SigningKeyPair) {
        self.receiving = receiving
        self.signing = signing
    }

    /// Reads the section; nil when it holds no keys (a vault made before device keys).
    package init?(json: JSON) throws(LommeError) {
        guard json["receiving"] != nil || json["signing"] != nil else { return nil }
        func damaged(_ what: String) -> LommeError {
            LommeError(.damaged, "the vault's device keys are not understood (\(what)); restore the .bak")
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
        guard let signing = SigningKeyPair(publicKey: signPublic, secretKey: signSecret) else { throw damaged("signing") }
        self.init(receiving: receiving, signing: signing)
        if let issuer = json["issuer"] {
            guard let hex = issuer["key"]?.stringValue, let key = Sodium.unhex(hex), key.count == PublicKeyCrypto.signPublicKeySize else {
                throw damaged("issuer")
            }
            pinnedIssuer = key
            pinnedSince = issuer["pinned"]?.stringValue
        }
        if let last = json["lastEnvelope"] {
            guard let hex = last["id"]?.stringValue, let id = Sodium.unhex(hex), case .number(let issued)? = last["issued"],
                let seconds = Int64(issued)
            else { throw damaged("lastEnvelope") }
            lastEnvelope = (id, seconds)
        }
        if let issued = json["lastIssued"] {
            guard case .number(let text) = issued, let seconds = Int64(text) else { throw damaged("lastIssued") }
            lastIssued = seconds
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
                JSON.Member("public", .string(Sodium.hex(signing.publicKey))),
                JSON.Member("secret", .string(SecretHex.encode(signing.secretKey))),
            ])),
        ]
        if let pinnedIssuer {
            var issuer = [JSON.Member("key", .string(Sodium.hex(pinnedIssuer)))]
            if let pinnedSince { issuer.append(JSON.Member("pinned", .string(pinnedSince))) }
            members.append(JSON.Member("issuer", .object(issuer)))
        }
        if let lastEnvelope {
            members.append(JSON.Member("lastEnvelope", .object([
                JSON.Member("id", .string(Sodium.hex(lastEnvelope.id))),
                JSON.Member("issued", .number(String(lastEnvelope.issued))),
            ])))
        }
        if let lastIssued { members.append(JSON.Member("lastIssued", .number(String(lastIssued)))) }
        return .object(members + unknown)
    }
}

extension VaultContents {
    /// This device's keys, if the vault has them.
    package func deviceIdentity() throws(LommeError) -> DeviceIdentity? {
        try DeviceIdentity(json: device)
    }

    /// The device keys, made and stored now if the vault has none yet.
    package mutating func ensureDeviceIdentity() throws(LommeError) -> DeviceIdentity {
        if let identity = try deviceIdentity() { return identity }
        let identity = DeviceIdentity.generate()
        device = identity.json
        return identity
    }
}
