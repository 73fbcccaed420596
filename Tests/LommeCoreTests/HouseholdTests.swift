import LommeCore
import LommeTestSupport
import Testing

/// The household's pieces in the vault's plaintext: children, the record, the keyed
/// credential fingerprint, secretExpires, and round-tripping what this version does not know.
@Suite("Household")
struct HouseholdTests {
    static let key = ReceivingKeyPair.generate().publicKey
    static let other = ReceivingKeyPair.generate().publicKey

    static func child(_ name: String = "anna", key: ReceivingKey = key) -> Child {
        Child(name: name, receivingKey: key, accountNr: "97104133219", fields: [JSON.Member("name", .string("Anna"))], added: Instant(text: "2026-11-25T10:00:00Z")!)
    }

    /// A child's key stored before non-canonical keys were refused (bit 255 set) is read in
    /// its canonical form: the vault still opens, and the child is the device's own key.
    @Test func aStoredNonCanonicalKeyIsReadCanonically() throws {
        var household = Household()
        household.children = [Self.child()]
        var high = Self.key.bytes
        high[31] |= 0x80
        let stored = household.json.text.replacing(Self.key.text, with: Bech32.encode(prefix: "lvk", data: high))
        #expect(stored != household.json.text)
        let json = try JSON.parse(Array(stored.utf8))
        #expect(try Household(json: json).children.first?.receivingKey == Self.key)
    }

    @Test func childNames() {
        for good in ["anna", "Ola", "Åse", "bjørn-2", "x_y", "9", String(repeating: "a", count: 32)] {
            #expect(Child.isValidName(good), "\(good)")
        }
        for bad in ["", "-anna", "_a", "an na", "anna/..", "../x", "a\u{1B}b", "émile", String(repeating: "a", count: 33), "a.png"] {
            #expect(!Child.isValidName(bad), "\(bad)")
        }
        #expect(thrown { try Child.checkName("lvk1abc") }?.reason == .childNameLikeKey)
        #expect(thrown { try Child.checkName("LVK1abc") }?.reason == .childNameLikeKey)
    }

    @Test func fieldsTheHouseholdKeeps() throws {
        #expect(try Child.field("name=Anna") == JSON.Member("name", .string("Anna")))
        #expect(try Child.field("note=a=b") == JSON.Member("note", .string("a=b")))
        for reserved in ["clientId", "clientSecret", "secret", "userId", "accountNr", "cardAccountNr", "secretExpires"] {
            let error = #expect(throws: LommeError.self) { try Child.field("\(reserved)=x") }
            #expect(error?.code == .usage && error?.message.contains("may not set \(reserved)") == true)
        }
        #expect(throws: LommeError.self) { try Child.field("noequals") }
        #expect(throws: LommeError.self) { try Child.field("with space=x") }
    }

    @Test func aChildsConfigIsTheStoredOneWithTheirAccountAndFields() {
        let stored = sampleConfig(extras: [JSON.Member("name", .string("Household")), JSON.Member("tokenUrl", .string("https://bank.example/token"))])
        let config = Self.child().config(from: stored)
        #expect(config.accountNr == "97104133219" && config.clientSecret == stored.clientSecret && config.userId == stored.userId)
        #expect(config.extras == [JSON.Member("name", .string("Anna")), JSON.Member("tokenUrl", .string("https://bank.example/token"))])
    }

    @Test func theHouseholdRoundTripsWithWhatItDoesNotKnow() throws {
        var contents = VaultContents(config: sampleConfig())
        contents.household.children = [Self.child(), Self.child("ola", key: Self.other)]
        let fingerprint = contents.household.credentialFingerprint(of: sampleConfig())
        let carried = contents.household.carried(by: Self.child().config(from: sampleConfig()))
        contents.household.record(IssueRecord(child: "anna", recipient: Self.key.fingerprint, id: "00ff", issued: 10, expires: 20, credential: fingerprint,
                                              carried: carried, handedOut: .at(10)), now: 10)
        contents.household.record(IssueRecord(child: nil, recipient: Self.other.fingerprint, id: "0101", issued: 11, expires: 21, credential: fingerprint), now: 11)
        // What a newer version might add, at every level.
        guard case .object(var top) = contents.json else { Issue.record("not an object"); return }
        let index = try #require(top.firstIndex { $0.key == "household" })
        guard case .object(var household) = top[index].value else { Issue.record("no household"); return }
        household.append(JSON.Member("future", .string("kept")))
        for (i, member) in household.enumerated() where member.key == "children" || member.key == "issued" {
            guard case .array(let items) = member.value else { continue }
            household[i] = JSON.Member(member.key, .array(items.map { item in
                guard case .object(let fields) = item else { return item }
                return .object(fields + [JSON.Member("later", .number("1"))])
            }))
        }
        top[index] = JSON.Member("household", .object(household))
        let deviceIndex = try #require(top.firstIndex { $0.key == "device" })
        var device = contents
        _ = device.ensureDeviceIdentity()
        guard case .object(let deviceMembers) = device.identity?.json else { Issue.record("no device"); return }
        top[deviceIndex] = JSON.Member("device", .object(deviceMembers + [JSON.Member("futureKey", .string("kept too"))]))
        let text = JSON.object(top).text
        let read = try VaultContents(plaintext: SecureBytes(copying: Array(text.utf8)))
        #expect(read.json.text == text, "the whole plaintext comes back as it was")
        #expect(read.household.children.map(\.name) == ["anna", "ola"] && read.household.issued.count == 2)
        #expect(read.household.issued[1].child == nil)
        #expect(read.household.state(of: Self.child(), config: sampleConfig()).current)
        #expect(read.household.issued.map(\.handedOut) == [.at(10), .no])
        // And a vault from before the household reads unchanged, with none.
        let old = #"{"version":1,"config":\#(sampleConfig().json.text),"created":"2025-01-01T00:00:00Z","updated":"2025-01-01T00:00:00Z","device":{}}"#
        let before = try VaultContents(plaintext: SecureBytes(copying: Array(old.utf8)))
        #expect(before.household.isEmpty && before.json.text == old)
    }

    @Test func theCredentialFingerprintIsKeyedAndTracksOnlyIdAndSecret() {
        var one = Household(), two = Household()
        let config = sampleConfig()
        let a = one.credentialFingerprint(of: config), b = two.credentialFingerprint(of: config)
        #expect(a.count == 32 && a != b, "another household's key gives another fingerprint: not a plain hash of the secret")
        #expect(!a.contains(Sodium.hex(Sodium.blake2b(Array(config.clientSecret.utf8), length: 16))))
        #expect(one.credentialFingerprint(of: config) == a, "the same key, the same fingerprint")
        var moved = config
        moved.accountNr = "97104133219"
        moved.extras = [JSON.Member("name", .string("x"))]
        #expect(one.credentialFingerprint(of: moved) == a, "the account and fields are not the credential")
        #expect(one.credentialFingerprint(of: sampleConfig(secret: "renewed")) != a)
        var renamed = config
        renamed.clientId = "another-client"
        #expect(one.credentialFingerprint(of: renamed) != a)
        // "ab"+"c" and "a"+"bc" are different credentials.
        var x = config, y = config
        (x.clientId, x.clientSecret, y.clientId, y.clientSecret) = ("ab", "c", "a", "bc")
        #expect(one.credentialFingerprint(of: x) != one.credentialFingerprint(of: y))
    }

    /// A record to `child`'s key carrying `config`, handed out or not.
    static func record(_ household: inout Household, _ id: String, at time: Int64, carrying config: Config, child: Child = child(),
                       handedOut: Bool = true, expires: Int64? = nil) {
        let credential = household.credentialFingerprint(of: config)
        let carried = household.carried(by: config)
        household.record(IssueRecord(child: child.name, recipient: child.receivingKey.fingerprint, id: id, issued: time, expires: expires ?? time + 1,
                                     credential: credential, carried: carried, handedOut: handedOut ? .at(time) : .no), now: time)
    }

    @Test func currentMeansTheLastHandedOutCodeCarriesEverythingTheChildGetsNow() {
        var household = Household()
        let child = Self.child()
        #expect(household.state(of: child, config: sampleConfig()).reasons == [.noCodeYet])
        let stored = sampleConfig()
        Self.record(&household, "01", at: 1, carrying: child.config(from: stored))
        #expect(household.state(of: child, config: stored).current)
        // A newer code recorded and never handed out changes nothing: the last handed out counts.
        Self.record(&household, "02", at: 3, carrying: child.config(from: sampleConfig(secret: "newer")), handedOut: false)
        let state = household.state(of: child, config: stored)
        #expect(state.current && state.lastHandedOut?.id == "01" && state.pending?.id == "02")
        #expect(household.state(of: child, config: sampleConfig(secret: "newer")).reasons == [.secretRenewed])
        // Each part of what the child gets, changed on its own.
        func changed(_ edit: (inout Config) -> Void) -> [ChildState.Reason] {
            var config = stored
            edit(&config)
            return household.state(of: child, config: config).reasons
        }
        #expect(changed { $0.extras.append(JSON.Member("secretExpires", .string("2027-02-24"))) } == [.expiryChanged])
        #expect(changed { $0.extras.append(JSON.Member("tokenUrl", .string("https://bank.example/token"))) } == [.tokenUrlChanged])
        #expect(changed { $0.userId = "01010112345" } == [.userIdChanged])
        #expect(changed { $0.extras.append(JSON.Member("nickname", .string("x"))) } == [.fieldsChanged])
        let both = changed { (config: inout Config) in
            config.clientId = "another"
            config.userId = "01010112345"
        }
        #expect(both == [.secretRenewed, .userIdChanged])
        var moved = child
        moved.accountNr = "12345678903"
        #expect(household.state(of: moved, config: stored).reasons == [.accountChanged], "the child's own account")
        var named = child
        named.fields = [JSON.Member("name", .string("Anne"))]
        #expect(household.state(of: named, config: stored).reasons == [.fieldsChanged], "the child's own fields")
        #expect(household.state(of: child, config: nil).reasons == [.noConfig])
        var rekeyed = child
        rekeyed.receivingKey = Self.other
        #expect(household.state(of: rekeyed, config: stored).reasons == [.newDevice])
        var fresh = Household()
        Self.record(&fresh, "03", at: 5, carrying: child.config(from: stored), handedOut: false)
        #expect(fresh.state(of: child, config: stored).reasons == [.neverHandedOut])
        let marked = fresh.markHandedOut(id: "03", at: 6)
        #expect(marked && fresh.state(of: child, config: stored).current)
        let unknown = fresh.markHandedOut(id: "99", at: 6)
        #expect(!unknown)
    }

    @Test func aRecordFromBeforeHandOutsIsHonestAboutWhatItDoesNotKnow() throws {
        var household = Household()
        let child = Self.child()
        let credential = household.credentialFingerprint(of: child.config(from: sampleConfig()))
        // As an older lomme-vault wrote it: no `carried`, no `handedOut`.
        household.record(IssueRecord(child: "anna", recipient: Self.key.fingerprint, id: "01", issued: 1, expires: 2, credential: credential,
                                     handedOut: .unrecorded), now: 1)
        #expect(household.json.text.contains("handedOut") == false)
        let state = household.state(of: child, config: sampleConfig())
        #expect(state.lastHandedOut?.id == "01" && !state.current && state.reasons == [.carriedNotRecorded])
        #expect(household.state(of: child, config: sampleConfig(secret: "new")).reasons == [.secretRenewed])
    }

    /// `child list --json` writes the tokens: programs match them, so they never change,
    /// whatever the wording people read becomes.
    @Test func whyAChildIsNotCurrentHasAStableTokenAndAWordingForPeople() {
        let tokens = ["noConfig", "noCodeYet", "newDevice", "neverHandedOut", "secretRenewed", "userIdChanged", "tokenUrlChanged",
                      "expiryChanged", "accountChanged", "fieldsChanged", "carriedNotRecorded"]
        #expect(ChildState.Reason.allCases.map(\.token) == tokens)
        #expect(tokens.allSatisfy { ChildState.Reason(rawValue: $0)?.token == $0 })
        #expect(ChildState.Reason.allCases.allSatisfy { $0.wording != $0.token && !$0.wording.isEmpty })
        #expect(ChildState.Reason.wording([.secretRenewed, .expiryChanged]) == "secret renewed, expiry changed")
    }

    @Test func theRecordKeepsEveryChildsLastCodeAndDropsOnlyExpiredOnes() {
        var household = Household()
        // 1001 children, one code each, all expired by the end: every one is kept.
        let children = (0...1000).map { Self.child("c\($0)", key: ReceivingKeyPair.generate().publicKey) }
        for (i, child) in children.enumerated() {
            Self.record(&household, String(i), at: Int64(i), carrying: child.config(from: sampleConfig()), child: child, expires: Int64(i) + 10)
        }
        #expect(household.issued.count == 1001 && household.issued.first?.id == "0")
        let index = Household.RecordIndex(household.issued)
        #expect(children.allSatisfy { household.state(of: $0, config: sampleConfig(), index: index).current })
        // A second round for the first child: its first code is dropped once expired, the
        // others stay (each is its child's last).
        Self.record(&household, "again", at: 5000, carrying: children[0].config(from: sampleConfig()), child: children[0], expires: 6000)
        #expect(household.issued.count == 1001 && !household.issued.contains { $0.id == "0" })
        // Not expired: kept even when not the last.
        Self.record(&household, "third", at: 5001, carrying: children[0].config(from: sampleConfig()), child: children[0], handedOut: false)
        #expect(household.issued.contains { $0.id == "again" } && household.issued.count == 1002)
        // Expired, not handed out, and superseded: dropped; the last handed-out one stays.
        Self.record(&household, "fourth", at: 7000, carrying: children[0].config(from: sampleConfig()), child: children[0], handedOut: false)
        #expect(household.issued.contains { $0.id == "again" } && !household.issued.contains { $0.id == "third" })
        #expect(household.state(of: children[0], config: sampleConfig()).lastHandedOut?.id == "again")
    }

    @Test func secretExpiresIsARealDate() {
        #expect(SecretExpiry.start(of: "2027-02-24") == 1_803_427_200)
        #expect(SecretExpiry.start(of: "2028-02-29") != nil)
        for bad in ["2027-02-29", "2027-13-01", "2027-2-24", "27-02-24", "2027-02-24T00:00:00Z", "1999-12-31", "２０２７-02-24", "2027/02/24", ""] {
            #expect(SecretExpiry.start(of: bad) == nil, "\(bad)")
        }
        #expect(throws: LommeError.self) { try Config(json: .object(sampleConfig().json.objectMembers + [JSON.Member("secretExpires", .string("2027-02-30"))])) }
        #expect(throws: LommeError.self) { try Config(json: .object(sampleConfig().json.objectMembers + [JSON.Member("secretExpires", .number("20270224"))])) }
        #expect(throws: Never.self) { try Config(json: .object(sampleConfig().json.objectMembers + [JSON.Member("secretExpires", .string("2027-02-24"))])) }
    }

    @Test func theWarningStartsFourteenDaysBefore() {
        let config = sampleConfig(extras: [JSON.Member("secretExpires", .string("2027-02-24"))])
        let day = SecretExpiry.start(of: "2027-02-24")!
        #expect(SecretExpiry.warning(config, now: day - 15 * 86400, for: .child) == nil)
        #expect(SecretExpiry.warning(config, now: day - 14 * 86400 + 3600, for: .child)?.contains("expires on 2027-02-24 (in 14 days)") == true)
        #expect(SecretExpiry.warning(config, now: day - 86400, for: .parent)?.contains("expires tomorrow") == true)
        #expect(SecretExpiry.warning(config, now: day + 86399, for: .child)?.contains("expires today") == true)
        let after = SecretExpiry.warning(config, now: day + 86400, for: .child)
        #expect(after?.contains("expired on 2027-02-24") == true && after?.contains("ask the parent for a new code") == true)
        #expect(SecretExpiry.warning(config, now: day, for: .parent)?.contains("`lomme-vault set clientSecret`") == true)
        #expect(SecretExpiry.warning(sampleConfig(), now: day, for: .child) == nil)
    }
}

extension JSON {
    var objectMembers: [JSON.Member] {
        if case .object(let members) = self { return members }
        return []
    }
}

@Suite("Durations, rough")
struct RoughDurationTests {
    @Test func theTwoLargestUnitsNextToEachOther() {
        #expect(DurationText.rough(0) == "0s" && DurationText.rough(45) == "45s" && DurationText.rough(150) == "2m30s")
        #expect(DurationText.rough(7201) == "2h" && DurationText.rough(7260) == "2h1m" && DurationText.rough(86399) == "23h59m")
        #expect(DurationText.rough(10800) == "3h" && DurationText.rough(6 * 86400 + 4 * 3600 + 59) == "6d4h")
    }
}
