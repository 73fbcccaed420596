import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// The parent's household through the library: `child add | list | rekey | remove`,
/// `set`, and `issue --to NAME` / `--all` with the record they keep.
@Suite("Household services")
struct HouseholdServiceTests {
    /// A parent's vault holding sampleConfig(), and its passphrase file.
    static func parent() throws -> (ServiceBox, UnlockOptions) {
        let box = ServiceBox()
        let pw = box.file("pw", servicePhrase)
        var contents = VaultContents()
        contents.store(sampleConfig())
        _ = try Provisioning(box.context(ScriptedInteraction())).createVault(contents: contents, source: .file(pw), noPrompt: false, refusal: "")
        return (box, UnlockOptions(source: .file(pw)))
    }

    static func contents(_ box: ServiceBox, _ options: UnlockOptions) throws -> VaultContents {
        try Session.open(box.context(ScriptedInteraction()), options, useKeyring: false).contents
    }

    static func addition(_ name: String, _ key: ReceivingKey = ReceivingKeyPair.generate().publicKey, account: String = "97104133219") -> HouseholdService.Addition {
        var request = HouseholdService.Addition(name: name, key: key, account: account)
        request.yes = true
        return request
    }

    @Test func addShowsTheFingerprintAndAsks() throws {
        let (box, options) = try Self.parent()
        let key = ReceivingKeyPair.generate().publicKey
        var request = Self.addition("anna", key)
        request.yes = false
        request.fields = ["name=Anna"]
        let declined = ScriptedInteraction([.no])
        #expect(throws: LommeError.failure(.declined, "not added; nothing changed")) { try HouseholdService(box.context(declined), options).add(request) }
        #expect(declined.questions.first?.contains(key.fingerprint) == true)
        #expect(declined.notices.contains { $0.contains(key.fingerprint) })
        #expect(try Self.contents(box, options).household.children.isEmpty)

        let noTerminal = ScriptedInteraction(canAsk: false)
        let refused = #expect(throws: LommeError.self) { try HouseholdService(box.context(noTerminal), options).add(request) }
        #expect(refused?.reason == .noTerminalToConfirm)

        let child = try HouseholdService(box.context(ScriptedInteraction([.yes])), options).add(request)
        #expect(child.fields == [JSON.Member("name", .string("Anna"))])
        #expect(try Self.contents(box, options).household.children == [child])
    }

    @Test func namesAndKeysAreUniqueAndChecked() throws {
        let (box, options) = try Self.parent()
        let service = HouseholdService(box.context(ScriptedInteraction()), options)
        let key = ReceivingKeyPair.generate().publicKey
        _ = try service.add(Self.addition("anna", key))
        let sameName = #expect(throws: LommeError.self) { try service.add(Self.addition("ANNA")) }
        #expect(sameName?.code == .failure && sameName?.reason == .childNameTaken && sameName?.message.contains("child rekey anna") == true)
        let sameKey = #expect(throws: LommeError.self) { try service.add(Self.addition("ola", key)) }
        #expect(sameKey?.reason == .childKeyTaken && sameKey?.message.contains("anna's") == true)
        let own = try #require(try Self.contents(box, options).identity).receiving.publicKey
        #expect(throws: LommeError.self) { try service.add(Self.addition("self", own)) }
        #expect((#expect(throws: LommeError.self) { try service.add(Self.addition("bad name")) })?.code == .usage)
        let account = #expect(throws: LommeError.self) { try service.add(Self.addition("ola", account: "12345678901")) }
        #expect(account?.code == .refused && account?.message.hasPrefix("--account: accountNr fails") == true)
        var unchecked = Self.addition("ola", account: "12345678901")
        unchecked.checksums = false
        _ = try service.add(unchecked)
        var field = Self.addition("kari")
        field.fields = ["clientSecret=mine"]
        #expect((#expect(throws: LommeError.self) { try service.add(field) })?.code == .usage)
        #expect(try Self.contents(box, options).household.children.map(\.name) == ["anna", "ola"])
    }

    @Test func unknownChildrenAreExitSixNamingTheKnownOnes() throws {
        let (box, options) = try Self.parent()
        let service = HouseholdService(box.context(ScriptedInteraction()), options)
        _ = try service.add(Self.addition("anna"))
        _ = try service.add(Self.addition("ola"))
        let error = #expect(throws: LommeError.self) { try service.remove("kari", yes: true) }
        #expect(error?.code == .notFound && error?.reason == .noSuchChild && error?.message.hasSuffix("the children are anna, ola") == true)
        let issue = #expect(throws: LommeError.self) {
            try IssueService(box.context(ScriptedInteraction())).run(.init(from: nil, recipient: .named("kari"), lifetime: 60, checksums: true, unlock: options), nowMs: 100_000)
        }
        #expect(issue?.reason == .noSuchChild && issue?.message.contains("the children are anna, ola") == true)
        _ = try service.remove("Ola", yes: true)
        #expect(try service.list().children.map(\.child.name) == ["anna"])
    }

    @Test func issueToANameSealsTheChildsConfigAndRecordsIt() throws {
        let (box, options) = try Self.parent()
        let childKeys = ReceivingKeyPair.generate()
        var add = Self.addition("anna", childKeys.publicKey)
        add.fields = ["name=Anna"]
        _ = try HouseholdService(box.context(ScriptedInteraction()), options).add(add)
        let issuer = IssueService(box.context(ScriptedInteraction()))
        let issued = try issuer.run(.init(from: nil, recipient: .named("anna"), lifetime: 3600, checksums: true, unlock: options), nowMs: 1_000_250)
        #expect(issued.child == "anna" && issued.recipient == childKeys.publicKey)
        let envelope = try Envelope(text: issued.payload)
        let opened = try envelope.open(with: childKeys, now: 1000, checksums: true)
        #expect(opened.config.accountNr == "97104133219" && opened.config.clientSecret == sampleConfig().clientSecret)
        #expect(opened.config.extras == [JSON.Member("name", .string("Anna"))])
        let contents = try Self.contents(box, options)
        let record = try #require(contents.household.issued.last)
        #expect(record.child == "anna" && record.id == Sodium.hex(envelope.id) && record.issued == 1000 && record.expires == 4600)
        #expect(record.recipient == childKeys.publicKey.fingerprint && record.handedOut == .no)
        #expect(envelope.issuedMs == 1_000_250 && opened.extensions.credential.map(Sodium.hex) == record.credential)
        let household = HouseholdService(box.context(ScriptedInteraction()), options)
        // Recorded, not handed out: not current, and said why.
        #expect(try household.list().children.map(\.state.reasons) == [[.neverHandedOut]])
        #expect(try household.list().children.first?.json["notCurrent"] == .array([.string("neverHandedOut")]), "--json: the token")
        try issuer.handedOut(issued, now: 1001)
        let listed = try household.list().children
        #expect(listed.map(\.state.current) == [true] && listed.first?.state.lastHandedOut?.issued == 1000)
        #expect(listed.first?.state.lastHandedOut?.expires == 4600 && listed.first?.state.lastHandedOut?.handedOut == .at(1001))
        // The key of a child counts as that child.
        let byKey = try IssueService(box.context(ScriptedInteraction()))
            .run(.init(from: nil, recipient: .key(childKeys.publicKey), lifetime: 60, checksums: true, unlock: options), nowMs: 2_000_000)
        #expect(byKey.child == "anna" && byKey.config.accountNr == "97104133219")
    }

    @Test func rekeyMovesTheChildToTheNewDevice() throws {
        let (box, options) = try Self.parent()
        let old = ReceivingKeyPair.generate(), new = ReceivingKeyPair.generate()
        let service = HouseholdService(box.context(ScriptedInteraction()), options)
        _ = try service.add(Self.addition("anna", old.publicKey))
        try Self.handOut(box, options, to: "anna", nowMs: 10_000)
        #expect(try service.list().children.map(\.state.current) == [true])
        let declined = ScriptedInteraction([.no])
        #expect(throws: LommeError.failure(.declined, "not replaced; anna's receiving key stays \(old.publicKey.fingerprint)")) {
            try HouseholdService(box.context(declined), options).rekey("anna", to: new.publicKey, yes: false)
        }
        #expect(declined.questions.first?.contains(new.publicKey.fingerprint) == true)
        let unchanged = try service.rekey("anna", to: old.publicKey, yes: true)
        #expect(!unchanged.changed && unchanged.child.receivingKey == old.publicKey)
        let moved = try HouseholdService(box.context(ScriptedInteraction([.yes])), options).rekey("ANNA", to: new.publicKey, yes: false)
        #expect(moved.changed && moved.child.receivingKey == new.publicKey && moved.child.name == "anna")
        #expect(try service.list().children.map(\.state.reasons) == [[.newDevice]])
        let issued = try Self.handOut(box, options, to: "anna", nowMs: 20_000)
        #expect(try Envelope(text: issued.payload).open(with: new, now: 20).config.accountNr == "97104133219")
        #expect(throws: LommeError.self) { try Envelope(text: issued.payload).open(with: old, now: 20) }
        #expect(try service.list().children.map(\.state.current) == [true])
    }

    @Test func setReplacesTheSecretAndNamesWhoNeedsANewCode() throws {
        let (box, options) = try Self.parent()
        let household = HouseholdService(box.context(ScriptedInteraction()), options)
        _ = try household.add(Self.addition("anna"))
        _ = try household.add(Self.addition("ola"))
        try Self.handOut(box, options, to: "anna", nowMs: 10_000)
        #expect(try household.list().children.map(\.state.current) == [true, false])

        var request = SetService.Request(field: "secret", source: .terminal)
        request.unlock = options
        let typo = ScriptedInteraction([.secret("new one"), .secret("new 0ne"), .secret("new one"), .secret("new one")])
        let outcome = try SetService(box.context(typo)).run(request)
        #expect(typo.questions == ["clientSecret (not shown): ", "clientSecret again: ", "clientSecret (not shown): ", "clientSecret again: "])
        #expect(outcome.field == "clientSecret" && outcome.changed && outcome.stale.map(\.name) == ["anna", "ola"])
        #expect(outcome.stale.map(\.reasons) == [[.secretRenewed], [.noCodeYet]])
        let contents = try Self.contents(box, options)
        #expect(contents.config?.clientSecret == "new one" && contents.source == .local && contents.previous?.config == sampleConfig())
        #expect(try household.list().children.map(\.state.current) == [false, false])

        let again = try SetService(box.context(ScriptedInteraction([.secret("new one"), .secret("new one")]))).run(request)
        #expect(!again.changed)

        var bad = SetService.Request(field: "userId", source: .terminal)
        bad.unlock = options
        let refused = #expect(throws: LommeError.self) { try SetService(box.context(ScriptedInteraction(Array(repeating: .text("01010112346"), count: 3)))).run(bad) }
        #expect(refused?.code == .refused)
        var date = SetService.Request(field: "secretExpires", source: .terminal)
        date.unlock = options
        #expect((#expect(throws: LommeError.self) { try SetService(box.context(ScriptedInteraction(Array(repeating: .text("2027-02-30"), count: 3)))).run(date) })?.code == .refused)
        try Self.handOut(box, options, to: "anna", nowMs: 20_000)
        let expiry = try SetService(box.context(ScriptedInteraction([.text("2027-02-24")]))).run(date)
        #expect(expiry.changed && expiry.stale.map(\.name) == ["anna", "ola"] && expiry.stale.first?.reasons == [.expiryChanged])
        #expect(try Self.contents(box, options).config?.value(of: "secretExpires") == "2027-02-24")
    }

    @Test func setNeedsAStoredConfig() throws {
        let box = ServiceBox()
        let pw = box.file("pw", servicePhrase)
        _ = try Provisioning(box.context(ScriptedInteraction())).createVault(source: .file(pw), noPrompt: false, refusal: "")
        var request = SetService.Request(field: "clientId", source: .terminal)
        request.unlock = UnlockOptions(source: .file(pw))
        let error = #expect(throws: LommeError.self) { try SetService(box.context(ScriptedInteraction([.text("x")]))).run(request) }
        #expect(error?.code == .notFound && error?.reason == .noConfig)
    }

    @Test func issueAllChecksEveryChildBeforeWritingAnything() throws {
        let (box, options) = try Self.parent()
        let household = HouseholdService(box.context(ScriptedInteraction()), options)
        _ = try household.add(Self.addition("anna"))
        _ = try household.add(Self.addition("ola"))
        // A child whose config cannot be made (an account that is no longer 11 digits).
        let opened = try Session.open(box.context(ScriptedInteraction()), options, useKeyring: false)
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            contents.household.children[1].accountNr = "123"
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: box.vault))
        let request = IssueService.Request(from: nil, recipient: .plain, lifetime: 60, checksums: true, unlock: options)
        let error = #expect(throws: LommeError.self) { try IssueService(box.context(ScriptedInteraction())).planAll(request, nowMs: 50_000) }
        #expect(error?.message.hasPrefix("ola: accountNr must be") == true && error?.message.hasSuffix("nothing was issued") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: box.vault)) == before, "nothing written or recorded")

        try VaultActions.update(try Session.open(box.context(ScriptedInteraction()), options, useKeyring: false)) { (contents: inout VaultContents) throws(LommeError) in
            contents.household.children[1].accountNr = "12345678903"
        }
        let service = IssueService(box.context(ScriptedInteraction()))
        var plan = try service.planAll(request, nowMs: 50_000)
        #expect(plan.items.map(\.reason) == ["no code yet", "no code yet"])
        var codes: [IssueService.Issued] = []
        for item in plan.items { codes.append(try service.issue(item, of: &plan, nowMs: 50_000)) }
        // One millisecond apart, never ahead of the clock by more.
        #expect(codes.map { try! Envelope(text: $0.payload).issuedMs } == [50_000, 50_001] && codes.map(\.child) == ["anna", "ola"])
        #expect(try Self.contents(box, options).household.issued.map(\.child) == ["anna", "ola"])
        #expect(try service.planAll(request, nowMs: 60_000).items.map(\.reason) == ["never handed out", "never handed out"])
        for code in codes { try service.handedOut(code, now: 51) }
        #expect(try service.planAll(request, nowMs: 60_000).items.map(\.reason).allSatisfy { $0.hasPrefix("current") })
    }

    /// Issues a code to `name` and marks it handed out, as `issue --to NAME --output` does.
    @discardableResult
    static func handOut(_ box: ServiceBox, _ options: UnlockOptions, to name: String, nowMs: Int64) throws -> IssueService.Issued {
        let service = IssueService(box.context(ScriptedInteraction()))
        let issued = try service.run(.init(from: nil, recipient: .named(name), lifetime: 60, checksums: true, unlock: options), nowMs: nowMs)
        try service.handedOut(issued, now: nowMs / 1000)
        return issued
    }

    /// What was checked before the question is checked again under the write lock: a key
    /// taken by a `child add` while `rekey` asked is refused, and so is a child removed
    /// while `issue --all` waited for the next code.
    @Test func rekeyAndIssueAllCheckAgainUnderTheWriteLock() throws {
        let (box, options) = try Self.parent()
        let service = HouseholdService(box.context(ScriptedInteraction()), options)
        _ = try service.add(Self.addition("anna"))
        let contested = ReceivingKeyPair.generate().publicKey
        let racing = ScriptedInteraction([.yesAfter { _ = try service.add(Self.addition("ola", contested)) }])
        let error = #expect(throws: LommeError.self) { try HouseholdService(box.context(racing), options).rekey("anna", to: contested, yes: false) }
        #expect(error?.reason == .childKeyTaken && error?.message.contains("ola's") == true, "\(String(describing: error))")
        let children = try Self.contents(box, options).household.children
        #expect(children.map(\.name) == ["anna", "ola"] && children[0].receivingKey != contested, "two children never share a key")

        let issuer = IssueService(box.context(ScriptedInteraction()))
        var plan = try issuer.planAll(.init(from: nil, recipient: .plain, lifetime: 60, checksums: true, unlock: options), nowMs: 1_000_000)
        _ = try service.remove("ola", yes: true)
        let gone = #expect(throws: LommeError.self) { try issuer.issue(plan.items[1], of: &plan, nowMs: 1_000_000) }
        #expect(gone?.code == .notFound && gone?.reason == .childChangedMeanwhile)
        #expect(try Self.contents(box, options).household.issued.isEmpty, "no code was sealed or recorded for ola")
    }
}
