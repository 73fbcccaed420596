import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A new recovery kit keeps every child, through the built binary: the whole chain of
/// rotations travels in every code and in the new kit's QR code, so a child that missed one
/// or two new kits follows the parent's next code, and a laptop restored from the newest
/// kit takes every child back from a stolen laptop in either order; the stolen laptop
/// cannot come back by leaving its household statements out, whatever the flags; a forged
/// rotation takes nothing over.
@Suite("The household key's chain of new kits")
struct HouseholdKeyChainTests {
    typealias Household = RecoveryKitTests.Household
    typealias Machine = HouseholdStoryTests.Machine

    /// `parent` makes a new kit as a PNG, given the old one's text; returns the new kit's
    /// QR text (as zbarimg reads it) and the PNG.
    static func newKit(_ parent: Machine, old: String, in box: CLI.Sandbox, name: String) throws -> (text: String, png: String) {
        let png = box.path + "/" + name + ".png"
        let made = parent.run(["recovery", "kit", "--output", png, "--recovery-file", box.write(name + "-old.txt", old + "\n")])
        try #require(made.status == 0, "\(made.stderr)")
        let read = CLI.run([], shell: "zbarimg --quiet --raw '\(png)'").out.trimmingCharacters(in: .whitespacesAndNewlines)
        return (read, png)
    }

    /// A child's device, copied with its passphrase: the same device state, imported into
    /// in another order.
    static func copy(of device: String, as name: String, in box: CLI.Sandbox) -> [String] {
        #expect(CLI.run([], shell: "cp -a '\(box.path)/\(device)' '\(box.path)/\(name)' && cp '\(box.path)/\(device).pw' '\(box.path)/\(name).pw'").status == 0)
        return ["--vault", box.path + "/" + name + "/vault", "--passphrase-file", box.path + "/" + name + ".pw"]
    }

    @Test func aRestoreFromTheNewestKitWinsEveryChildBackFromTheStolenLaptop() throws {
        let home = try Household()
        let box = home.box
        // A new kit; Anna gets no code after it, so her device still holds the first household key.
        let kit = try Self.newKit(home.parent, old: home.key, in: box, name: "kit2")
        #expect(kit.text.hasPrefix("LVR1:") && kit.text.contains("/"), "the new kit's code carries the rotation: \(kit.text.prefix(60))")
        let pinnedBefore = try home.pinned()
        #expect(pinnedBefore.child != pinnedBefore.parent)
        // The laptop is stolen: the thief keeps a copy; a new laptop is restored from a photo of the new kit.
        let thief = Machine(box, "thief")
        #expect(CLI.run([], shell: "rm -rf '\(thief.folder)' && cp -a '\(home.parent.folder)' '\(thief.folder)' && rm -rf '\(home.parent.folder)'").status == 0)
        let laptop = Machine(box, "laptop")
        let restored = laptop.run(["init", "--parent", "--restore", "--recovery-image", HouseholdStoryTests.photo(kit.png)])
        try #require(restored.status == 0, "\(restored.stderr)")
        #expect(laptop.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        #expect(laptop.run(["child", "add", "anna", "--key", home.anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        // The restored laptop's code is issued first, the thief's after it.
        #expect(laptop.run(["issue", "--to", "anna", "--output", box.path + "/restored.png"]).status == 0)
        #expect(thief.run(["issue", "--to", "anna", "--output", box.path + "/stolen.png"]).status == 0)
        let other = Self.copy(of: "anna", as: "anna-other-order", in: box)

        // The restored laptop's code first: taken without a question, and the thief's then refused.
        let first = home.anna.run(["import", box.path + "/restored.png", "--yes", "--no-check"])
        #expect(first.status == 0 && first.stderr.contains("vouches for it") && !first.stderr.contains("--trust-new-issuer"), "\(first.stderr)")
        let annaVault = box.path + "/anna/vault"
        let before = readFile(annaVault)
        let stolen = home.anna.run(["import", box.path + "/stolen.png", "--yes", "--no-check"])
        #expect(stolen.status == 7 && readFile(annaVault) == before, "\(stolen.stderr)")

        // The thief's code first (offline, it cannot be helped): then the restored laptop's,
        // issued earlier, is still taken, and from then on the thief's are refused.
        let thiefFirst = CLI.run(["import", box.path + "/stolen.png", "--yes", "--no-check"] + other)
        #expect(thiefFirst.status == 0, "\(thiefFirst.stderr)")
        let back = CLI.run(["import", box.path + "/restored.png", "--yes", "--no-check"] + other)
        #expect(back.status == 0 && !back.stderr.contains("roll back"), "the restore is not locked out: \(back.stderr)")
        #expect(thief.run(["issue", "--to", "anna", "--output", box.path + "/stolen2.png"]).status == 0)
        let otherVault = box.path + "/anna-other-order/vault"
        let kept = readFile(otherVault)
        let again = CLI.run(["import", box.path + "/stolen2.png", "--yes", "--no-check"] + other)
        #expect(again.status == 7 && readFile(otherVault) == kept, "\(again.stderr)")
        let status = CLI.run(["status", "--json", "--vault", otherVault])
        let laptopIssuer = laptop.run(["key", "--issuer"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status.out.contains(laptopIssuer), "the restored laptop is the pinned issuer: \(status.out)")
    }

    /// Two new kits in a row: a child that missed both takes the parent's next code.
    @Test func aChildThatMissedTwoNewKitsTakesTheNextCode() throws {
        let home = try Household()
        let box = home.box
        let second = try Self.newKit(home.parent, old: home.key, in: box, name: "kit2")
        let third = try Self.newKit(home.parent, old: second.text, in: box, name: "kit3")
        #expect(third.text.count > second.text.count, "the third kit carries two rotations")
        try home.give(from: home.parent, name: "after.png")
        let pinned = try home.pinned()
        #expect(pinned.child != nil && pinned.child == pinned.parent, "the child follows both new kits")
    }

    /// The stolen laptop's issuer, revoked by the restore, signing a code without the
    /// household's statements (an older lomme-vault, or the household section deleted from
    /// the stolen vault): refused with and without --trust-new-issuer, and no message
    /// suggests the flag.
    @Test func aRevokedLaptopCannotComeBackWithAFlag() throws {
        let home = try Household()
        let box = home.box
        let thief = Machine(box, "thief")
        #expect(CLI.run([], shell: "rm -rf '\(thief.folder)' && cp -a '\(home.parent.folder)' '\(thief.folder)' && rm -rf '\(home.parent.folder)'").status == 0)
        let laptop = Machine(box, "laptop")
        try #require(laptop.run(["init", "--parent", "--restore", "--recovery-file", box.write("kit.txt", home.key)]).status == 0)
        #expect(laptop.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        #expect(laptop.run(["child", "add", "anna", "--key", home.anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        try home.give(from: laptop, name: "restored.png")
        // The thief's issuer key, from the stolen vault and its passphrase, signs a plain sealed code.
        let stolen = try RecoveryKitTests.plaintext(thief.vault, thief.folder + "/pw")
        let signing = try #require((stolen["device"] as? [String: Any])?["signing"] as? [String: String])
        let publicKey = try #require(Sodium.unhex(signing["public"]!)), secretKey = try #require(Sodium.unhex(signing["secret"]!))
        let issuer = try #require(IssuerKeyPair(publicKey: publicKey, secretKey: SecureBytes(copying: secretKey)))
        let code = try Envelope.seal(try Config(jsonBytes: Array(Sample.configB.utf8), checksums: false), to: home.anna.key, issuer: issuer,
                                     issuedMs: Int64(Date().timeIntervalSince1970 * 1000) + 60_000, lifetime: 3600)
        let annaVault = box.path + "/anna/vault"
        let before = readFile(annaVault)
        for flags in [[], ["--trust-new-issuer"]] {
            let refused = home.anna.run(["import", "--stdin", "--yes", "--no-check"] + flags, stdin: code)
            #expect(refused.status == 7 && !refused.stderr.contains("--trust-new-issuer"), "\(flags): \(refused.stderr)")
            #expect(readFile(annaVault) == before, "\(flags) changed the child's vault")
        }
    }

    /// Someone who knows the household's public key (any child's code shows it to the child)
    /// makes a household key of their own and a "rotation" from the pinned key to it with a
    /// signature the pinned key never made: refused, nothing of it stored, flag or not.
    @Test func aForgedRotationTakesNothingOver() throws {
        let home = try Household()
        let box = home.box
        let pinned = try #require(try home.pinned().child.flatMap(Sodium.unhex))
        let strangerRoot = RecoveryKey.generate().householdKey, strangerIssuer = IssuerKeyPair.generate()
        var extensions = SealedExtensions(credential: [UInt8](repeating: 1, count: 16))
        extensions.household = strangerRoot.publicKey
        extensions.vouch = try Vouch.make(strangerRoot, version: UInt64(Date().timeIntervalSince1970 * 1000) + 10_000_000,
                                          issuers: [strangerIssuer.publicKey.id])
        extensions.rotations = [try #require(RootRotation(bytes: pinned + [UInt8](repeating: 0x5A, count: 64)))]
        let code = try Envelope.seal(try Config(jsonBytes: Array(Sample.configA.utf8), checksums: false), to: home.anna.key, issuer: strangerIssuer,
                                     issuedMs: Int64(Date().timeIntervalSince1970 * 1000) + 60_000, lifetime: 3600, extensions: extensions)
        let annaVault = box.path + "/anna/vault"
        let before = readFile(annaVault)
        for flags in [[], ["--trust-new-issuer"]] {
            let refused = home.anna.run(["import", "--stdin", "--yes", "--no-check"] + flags, stdin: code)
            #expect(refused.status == 7 && refused.reason == .householdStatementsBroken, "\(flags): \(refused.stderr)")
            #expect(readFile(annaVault) == before)
        }
    }
}
