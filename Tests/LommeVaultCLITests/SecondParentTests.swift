import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A second parent's machine joins the household, through the built binary: `init --parent
/// --join` makes a vault and keys (no kit, no config) and says what to do next; `key
/// --parent` shows the parent key as text and as a QR code zbarimg reads back; `parent add`
/// on the machine that holds the household takes the key typed or photographed, and only
/// with this household's recovery kit vouches for it and hands the household over — without
/// the kit, with another household's, or with a typo in the key, nothing is written; the new
/// machine imports the hand-over and issues; `parent list` shows both machines on both.
@Suite("A second parent's machine joins")
struct SecondParentTests {
    typealias Machine = HouseholdStoryTests.Machine

    @Test func joiningMakesKeysWithoutKitOrConfigAndSaysWhatNext() throws {
        let home = try TwoParents(joined: false)
        let far = home.far
        let joined = far.run(["init", "--parent", "--join"])
        try #require(joined.status == 0, "\(joined.stderr)")
        // stdout: the parent key alone, for a script; stderr: the three steps.
        let key = joined.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(joined.out == key + "\n" && key.hasPrefix("lvp1") && !key.contains("\n"), "\(joined.out)")
        for step in ["lomme-vault key --parent", "lomme-vault parent add NAME --key KEY", "recovery kit", "lomme-vault import FILE", "lomme-vault sync DIR"] {
            #expect(joined.stderr.contains(step), "next steps name \(step): \(joined.stderr)")
        }
        // A vault and keys, no kit (no file but the vault and the passphrase) and no config.
        let files = try FileManager.default.subpathsOfDirectory(atPath: far.folder).sorted()
        #expect(Set(files).isSubset(of: ["data", "data/vault", "data/vault.lock", "pw"]) && files.contains("data/vault"), "\(files)")
        let plain = try RecoveryKitTests.plaintext(far.vault, far.folder + "/pw")
        #expect(plain["config"] == nil && (plain["household"] as? [String: Any])?["root"] == nil, "\(plain.keys.sorted())")
        #expect(far.run(["get", "clientId"]).status != 0, "no config yet")
        // Until the household is handed over, far's has none to list or issue from.
        let list = far.run(["parent", "list"])
        #expect(list.status == 6 && list.reason == .notJoining, "\(list.status) \(list.stderr)")

        // key --parent: the same key as text, and as a QR code that reads back to it.
        #expect(far.run(["key", "--parent", "--text"]).out == key + "\n")
        let png = far.folder + "/key.png"
        let drawn = far.run(["key", "--parent", "--output", png])
        #expect(drawn.status == 0 && drawn.out == key + "\n", "\(drawn.stderr)")
        let read = HouseholdStoryTests.decoded(png).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(read.lowercased() == key, "zbarimg read \(read)")
    }

    @Test func withoutThisHouseholdsKitOrWithATypoNothingIsVouchedOrWritten() throws {
        let home = try TwoParents(joined: false)
        let box = home.box, mor = home.mor, far = home.far
        try #require(far.run(["init", "--parent", "--join"]).status == 0)
        let key = try home.parentKey(far)
        let handOver = box.path + "/far.lvh"
        let before = readFile(mor.vault)
        func nothingWritten(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(TwoParents.unchanged(mor.vault, before), "\(what): the vault is untouched", sourceLocation: sourceLocation)
            #expect(!FileManager.default.fileExists(atPath: handOver), "\(what): no hand-over written", sourceLocation: sourceLocation)
        }

        // No recovery key: no terminal to type it on and no --recovery-file.
        let noKit = mor.run(["parent", "add", "far", "--key", key, "--output", handOver, "--yes", "--as", "mor"])
        #expect(noKit.status != 0 && noKit.reason == .noTerminalToAsk && noKit.stderr.contains("--recovery-file"), "\(noKit.status) \(noKit.stderr)")
        nothingWritten("without the kit")
        // Another household's kit: exit 4.
        let other = Machine(box, "other")
        let otherPDF = box.path + "/other-kit.pdf"
        try #require(other.run(["init", "--parent", "--recovery-kit", otherPDF]).status == 0)
        let otherKit = box.write("other-kit.txt", try RecoveryKitTests.readKit(otherPDF, in: box).qr + "\n")
        let wrongKit = mor.run(["parent", "add", "far", "--key", key, "--recovery-file", otherKit, "--output", handOver, "--yes", "--as", "mor"])
        #expect(wrongKit.status == 4 && wrongKit.reason == .recoveryKeyWrong, "\(wrongKit.status) \(wrongKit.stderr)")
        nothingWritten("with another household's kit")
        // A typo in the parent key (one character changed: the checksum catches it): exit 64.
        var typo = Array(key)
        let index = typo.count - 10
        typo[index] = typo[index] == "q" ? "p" : "q"
        let typoed = mor.run(["parent", "add", "far", "--key", String(typo), "--recovery-file", home.kit, "--output", handOver, "--yes"])
        #expect(typoed.status == 64 && typoed.reason == .parentKeyTypo, "\(typoed.status) \(typoed.stderr)")
        nothingWritten("with a typo in the key")
        // A child's receiving key where the parent key goes: exit 64.
        let receiving = mor.run(["parent", "add", "far", "--key", home.anna.key.text, "--recovery-file", home.kit, "--output", handOver, "--yes"])
        #expect(receiving.status == 64 && receiving.reason == .parentKeyNotOne && receiving.stderr.contains("lvp1"), "\(receiving.status) \(receiving.stderr)")
        nothingWritten("with a receiving key")
        // Nothing of it reached the household: mor's has no other parent, far's is still waiting.
        #expect(mor.run(["parent", "list", "--json"]).out == "[]\n")
        #expect(far.run(["parent", "list"]).status == 6, "far's is still waiting to be handed the household")

        // With this household's kit and the key typed, it is added and handed over.
        let added = mor.run(["parent", "add", "far", "--key", key, "--recovery-file", home.kit, "--output", handOver, "--yes", "--as", "mor"])
        try #require(added.status == 0, "\(added.stderr)")
        #expect(CLI.mode(handOver) == 0o600, "the hand-over holds the secret: mode 0600")
        let imported = far.run(["import", handOver, "--yes"])
        #expect(imported.status == 0 && imported.stderr.contains("joined the household"), "\(imported.stderr)")
        #expect(home.sameSecret(mor, far), "the hand-over carried the config")
        #expect(try home.childFacts(far) == home.childFacts(mor))
    }

    @Test func aPhotoOfTheParentKeyAddsTheMachineWhichThenIssuesAndBothListTheParents() throws {
        let home = try TwoParents(joined: false)
        let box = home.box, mor = home.mor, far = home.far
        try #require(far.run(["init", "--parent", "--join"]).status == 0)
        let key = try home.parentKey(far)
        // A photograph of the key's QR code on far's screen: turned, blurred, a JPEG.
        let png = far.folder + "/key.png"
        try #require(far.run(["key", "--parent", "--output", png]).status == 0)
        let photo = box.path + "/far-key-photo.jpg"
        let made = CLI.run([], shell: "convert '\(png)' -background white -rotate 4 -blur 0x0.8 -quality 85 '\(photo)'")
        try #require(made.status == 0, "convert: \(made.stderr)")
        let handOver = box.path + "/far.lvh"
        let added = mor.run(["parent", "add", "far", "--key-image", photo, "--recovery-file", home.kit, "--output", handOver, "--yes", "--as", "mor"])
        try #require(added.status == 0, "\(added.stderr)")
        // Both of far's fingerprints are the ones its key shows.
        let farKey = try ParentKey(text: key)
        #expect(added.stderr.contains(farKey.issuer.fingerprint), "\(added.stderr)")
        #expect(added.stderr.contains("written to \(handOver)"), "\(added.stderr)")

        let imported = far.run(["import", handOver, "--yes"])
        try #require(imported.status == 0 && imported.stderr.contains("joined the household"), "\(imported.stderr)")
        // The same hand-over again changes nothing.
        let again = far.run(["import", handOver, "--yes"])
        #expect(again.status == 0, "\(again.stderr)")
        // far's machine issues; Anna's device takes it without --trust-new-issuer.
        let taken = home.take(try home.issue(from: far, "from-far.png"))
        #expect(taken.status == 0 && taken.stderr.contains("far's machine"), "\(taken.stderr)")

        // parent list on both: names, issuer fingerprints, this machine, last heard from.
        let morIssuer = mor.run(["key", "--issuer"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let farIssuer = farKey.issuer.fingerprint
        for (machine, me) in [(mor, "mor"), (far, "far")] {
            let listed = try home.parents(machine)
            #expect(Set(listed.keys) == ["mor", "far"], "\(listed)")
            #expect(listed["mor"]?["issuer"] as? String == morIssuer && listed["far"]?["issuer"] as? String == farIssuer, "\(listed)")
            #expect(listed[me]?["thisMachine"] as? Bool == true && listed[me == "mor" ? "far" : "mor"]?["thisMachine"] as? Bool == false)
            #expect(listed[me]?["lastHeard"] is NSNull, "this machine is never 'heard from': \(listed)")
            let table = machine.run(["parent", "list"])
            #expect(table.status == 0 && table.out.contains(morIssuer) && table.out.contains(farIssuer) && table.out.contains("this machine"), "\(table.out)")
        }
        // far heard from mor (the hand-over); mor has not heard from far before a sync.
        #expect(try home.parents(far)["mor"]?["lastHeard"] as? String != nil)
        #expect(try home.parents(mor)["far"]?["lastHeard"] is NSNull)
        #expect(mor.run(["parent", "list"]).out.contains("not heard from yet"))
        let folder = box.path + "/sync"
        for machine in [far, mor] { try TwoParents.require(home.sync(machine, folder), "sync on \(machine.name)") }
        let heard = try #require(try home.parents(mor)["far"]?["lastHeard"] as? String)
        // ISO in --json, the local time for people.
        #expect(heard.hasSuffix("Z") && mor.run(["parent", "list"]).out.contains("last heard from " + (Instant(text: heard)?.shown ?? "?")))
    }
    /// The hand-over as a QR code (what `parent add` shows on a terminal when it fits),
    /// photographed: `import PHOTO` on the new machine takes it as it takes the file; `scan`
    /// names it and the parent key; a photo of the hand-over where the parent key goes is
    /// refused with what it is.
    @Test func aPhotoOfTheHandOverJoinsAsItsFileDoes() throws {
        let home = try TwoParents(joined: false)
        let box = home.box, mor = home.mor, far = home.far
        try #require(far.run(["init", "--parent", "--join"]).status == 0)
        let keyPNG = far.folder + "/key.png"
        try #require(far.run(["key", "--parent", "--output", keyPNG]).status == 0)
        let scannedKey = CLI.run(["scan", keyPNG])
        #expect(scannedKey.status == 0 && scannedKey.out.contains("a parent's machine key") && scannedKey.out.contains("parent add"), "\(scannedKey.out)")
        let handOver = box.path + "/far.lvh"
        try TwoParents.require(mor.run(["parent", "add", "far", "--key-image", keyPNG, "--recovery-file", home.kit,
                                        "--output", handOver, "--yes", "--as", "mor"]), "parent add")
        // The code `parent add` draws on a terminal: LVH1: and Base45 of the file, made here
        // by qrencode and photographed (turned, blurred, a JPEG).
        let text = HouseholdFile.textPrefix + Base45.encode(readFile(handOver))
        let textFile = box.write("hand-over.txt", text)
        let png = box.path + "/hand-over.png", photo = box.path + "/hand-over.jpg"
        try #require(CLI.run([], shell: "qrencode -l M -s 6 -o '\(png)' < '\(textFile)'").status == 0)
        try #require(CLI.run([], shell: "convert '\(png)' -background white -rotate 3 -blur 0x0.6 -quality 90 '\(photo)'").status == 0)
        let scanned = CLI.run(["scan", photo])
        #expect(scanned.status == 0 && scanned.out.contains("a household handed over") && scanned.out.contains("lomme-vault import"), "\(scanned.out)")
        // A photo of the hand-over where a parent key goes: refused, saying what it is.
        let wrong = mor.run(["parent", "add", "far2", "--key-image", photo, "--recovery-file", home.kit, "--output", box.path + "/x.lvh", "--yes"])
        #expect(wrong.status == 7 && wrong.reason == .parentKeyNotOne, "\(wrong.status) \(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.path + "/x.lvh"))

        let imported = far.run(["import", photo, "--yes"])
        #expect(imported.status == 0 && imported.stderr.contains("joined the household"), "\(imported.stderr)")
        #expect(home.sameSecret(mor, far), "the photographed hand-over carried the config")
        #expect(try home.childFacts(far) == home.childFacts(mor))
        // The same code again changes nothing.
        let again = far.run(["import", photo, "--yes"])
        #expect(again.status == 0 && again.stderr.contains("nothing new"), "\(again.stderr)")
    }
}
