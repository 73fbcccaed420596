import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// `issue --all` checks that every child's code fits a QR code before it records any, with
/// a trial code per child: the trial must carry everything the real code will — the
/// household key, its vouch and the rotation from the old key — or a child's code near the
/// limit passes the check and is then recorded and never made.
@Suite("issue --all's preflight codes")
struct IssueAllPreflightTests {
    @Test func eachTrialCarriesWhatTheRealCodeCarries() throws {
        // A parent with a kit, then a new kit: the household key, its vouch and a rotation.
        let box = ServiceBox()
        let pw = box.file("pw", servicePhrase)
        let options = UnlockOptions(source: .file(pw))
        var contents = VaultContents()
        contents.store(sampleConfig())
        let first = RecoveryKey.generate()
        _ = try Provisioning(box.context(ScriptedInteraction())).createVault(contents: contents, source: .file(pw), noPrompt: false,
                                                                            refusal: "", recovery: first)
        let recovery = RecoveryService(box.context(ScriptedInteraction()), options)
        let kit = try recovery.planKit(old: .photo(text: first.qrText, path: "kit.jpg"))
        try recovery.store(kit)
        try #require(kit.replaced)

        let devices = [ReceivingKeyPair.generate(), ReceivingKeyPair.generate()]
        let household = HouseholdService(box.context(ScriptedInteraction()), options)
        for (name, device) in zip(["anna", "ola"], devices) {
            var addition = HouseholdService.Addition(name: name, key: device.publicKey, account: "97104133219")
            addition.fields = ["note=" + String(repeating: "x", count: name == "anna" ? 10 : 600)]
            addition.yes = true
            _ = try household.add(addition)
        }

        let service = IssueService(box.context(ScriptedInteraction()))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var plan = try service.planAll(.init(from: nil, recipient: .plain, lifetime: 3600, checksums: true, unlock: options), nowMs: now)
        try #require(plan.items.count == 2)
        for (item, device) in zip(plan.items, devices) {
            let real = try service.issue(item, of: &plan, nowMs: now)
            #expect(item.trial.utf8.count == real.payload.utf8.count, "\(item.child.name): the trial is not the real code's size")
            let trial = try Envelope(text: item.trial).open(with: device, now: now / 1000, checksums: false)
            let made = try Envelope(text: real.payload).open(with: device, now: now / 1000, checksums: false)
            // The same statements, but for the credential fingerprint (a stand-in in the trial).
            var carried = made.extensions, tried = trial.extensions
            carried.credential = nil
            tried.credential = nil
            #expect(carried.household == kit.root.publicKey && carried.vouch != nil, "the real code carries the household")
            #expect(tried == carried, "\(item.child.name): the trial lacks what the real code carries")
            #expect(trial.extensions.credential?.count == made.extensions.credential?.count)
            #expect(trial.config == made.config)
        }
    }
}
