/// One sealed code the parent issued:
///
///     {"child": "anna", "recipient": FINGERPRINT, "id": HEX, "issued": SECONDS,
///      "expires": SECONDS, "credential": HEX, "carried": HEX,
///      "handedOut": SECONDS | null, "confirmed": SECONDS}
///
/// `child` is absent for a code sealed to a key that is no child's. `credential` is the
/// household's keyed hash of the clientId and clientSecret the code carried, `carried` the
/// keyed hashes of the rest of what it carried (`CarriedFields`). A code is recorded before
/// it leaves the machine, and `handedOut` says when its file was written and synced or its
/// drawing finished (null: not handed out; absent: recorded by a version before this was
/// kept, counted as handed out). `confirmed` is when the child's receipt for it was checked.
package struct IssueRecord: Sendable, Equatable {
    package var child: String?
    package var recipient: String
    package var id: String
    package var issued: Int64
    package var expires: Int64
    package var credential: String
    package var carried: CarriedFields?
    package var handedOut: HandOut
    package var confirmed: Int64?
    /// The parent's machine that issued the code (`Vouch.id` of its issuer); nil: this one.
    package var by: IssuerID?
    /// The config's revision the code carried (nil: none). Of two codes to one child, the
    /// one of the higher revision is their last (a child refuses the older after it).
    package var revision: UInt64?
    package var unknown: [JSON.Member] = []

    /// Whether a code reached the child's side of the parent's machine.
    package enum HandOut: Sendable, Equatable {
        /// Recorded by a version that did not tell (counted as handed out).
        case unrecorded
        /// Recorded, and not (yet) handed out: the file was not written, or the drawing
        /// was interrupted.
        case no
        case at(Int64)

        package var isHandedOut: Bool { self != .no }
    }

    static let known: Set<String> = ["child", "recipient", "id", "issued", "expires", "credential", "carried", "handedOut", "confirmed", "by", "revision"]

    package init(child: String?, recipient: String, id: String, issued: Int64, expires: Int64, credential: String,
                 carried: CarriedFields? = nil, handedOut: HandOut = .no) {
        self.child = child
        self.recipient = recipient
        self.id = id
        self.issued = issued
        self.expires = expires
        self.credential = credential
        self.carried = carried
        self.handedOut = handedOut
    }

    init?(json: JSON) {
        guard case .object(let members) = json, let recipient = json["recipient"]?.stringValue, let id = json["id"]?.stringValue,
              case .number(let issuedText)? = json["issued"], let issued = Int64(issuedText),
              case .number(let expiresText)? = json["expires"], let expires = Int64(expiresText),
              let credential = json["credential"]?.stringValue
        else { return nil }
        let child: String?
        switch json["child"] {
        case nil, .null?: child = nil
        case .string(let name)?: child = name
        default: return nil
        }
        self.init(child: child, recipient: recipient, id: id, issued: issued, expires: expires, credential: credential)
        switch json["carried"] {
        case nil: carried = nil
        case .string(let hex)?:
            guard let fields = CarriedFields(hex: hex) else { return nil }
            carried = fields
        default: return nil
        }
        switch json["handedOut"] {
        case nil: handedOut = .unrecorded
        case .null?: handedOut = .no
        case .number(let text)?:
            guard let at = Int64(text) else { return nil }
            handedOut = .at(at)
        default: return nil
        }
        switch json["confirmed"] {
        case nil: confirmed = nil
        case .number(let text)?:
            guard let at = Int64(text) else { return nil }
            confirmed = at
        default: return nil
        }
        if let value = json["by"] {
            guard let id = value.stringValue.flatMap(IssuerID.init(hex:)) else { return nil }
            by = id
        }
        if let value = json["revision"] {
            guard let number = value.uint64Value else { return nil }
            revision = number
        }
        unknown = members.filter { !IssueRecord.known.contains($0.key) }
    }

    var json: JSON {
        var members: [JSON.Member] = []
        if let child { members.append(JSON.Member("child", .string(child))) }
        members += [
            JSON.Member("recipient", .string(recipient)),
            JSON.Member("id", .string(id)),
            JSON.Member("issued", .number(String(issued))),
            JSON.Member("expires", .number(String(expires))),
            JSON.Member("credential", .string(credential)),
        ]
        if let carried { members.append(JSON.Member("carried", .string(carried.hex))) }
        switch handedOut {
        case .unrecorded: break
        case .no: members.append(JSON.Member("handedOut", .null))
        case .at(let time): members.append(JSON.Member("handedOut", .number(String(time))))
        }
        if let confirmed { members.append(JSON.Member("confirmed", .number(String(confirmed)))) }
        if let by { members.append(JSON.Member("by", .string(by.hex))) }
        if let revision { members.append(JSON.Member("revision", .number(String(revision)))) }
        return .object(members + unknown)
    }
}
