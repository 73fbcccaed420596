import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// One rule for every slot change, through the built binary: no file the tool leaves in
/// the vault's folder opens with a removed key (a replaced recovery kit, an old passphrase),
/// and no slot is dropped unasked (`passwd --rotate` takes the kit along, or changes
/// nothing); `passwd` asks the current passphrase of any session but one the recovery kit
/// opened.
@Suite("A removed key opens nothing, and no slot is dropped unasked")
struct RemovedKeyTests {
    typealias Household = RecoveryKitTests.Household

    /// Every regular file in the vault's folder (the vault, its .bak, anything else).
    static func files(of vault: String) -> [String] {
        let folder = (vault as NSString).deletingLastPathComponent
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map { folder + "/" + $0 }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && !path.hasSuffix(".lock")
        }
    }

    @Test func aReplacedKitOpensNoFileInTheFolder() throws {
        let home = try Household()
        let box = home.box
        let old = box.write("old.txt", home.key + "\n")
        let made = home.parent.run(["recovery", "kit", "--output", box.path + "/kit2.png", "--recovery-file", old])
        try #require(made.status == 0, "\(made.stderr)")
        let new = box.write("new.txt", CLI.run([], shell: "zbarimg --quiet --raw '\(box.path)/kit2.png'").out)
        let files = Self.files(of: home.parent.vault)
        #expect(files.contains(home.parent.vault + ".bak"), "\(files)")
        for file in files {
            let opened = CLI.run(["recovery", "verify", "--vault", file, "--recovery-file", old, "--no-prompt"])
            #expect(opened.status == 4, "\(file) opens with the replaced kit: \(opened.stderr)")
        }
        #expect(CLI.run(["recovery", "verify", "--vault", home.parent.vault, "--recovery-file", new, "--no-prompt"]).status == 0)
    }

    @Test func passwdRotateTakesTheKitAlongOrChangesNothing() throws {
        let home = try Household()
        let box = home.box
        let env = ["LOMME_VAULT": home.parent.vault]
        let kit = box.write("kit.txt", home.key + "\n"), newPhrase = box.write("new", "a rotated passphrase 2026\n")
        let oldPhrase = home.parent.folder + "/pw"
        let before = Self.files(of: home.parent.vault).map { readFile($0) }
        // No terminal and no kit: refused, nothing written.
        let refused = CLI.run(["passwd", "--rotate", "--passphrase-file", oldPhrase, "--new-passphrase-file", newPhrase, "--no-prompt"], environment: env)
        #expect(refused.status == 3 && refused.reason == .recoveryKitNeeded && refused.stderr.contains("--recovery-file") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(Self.files(of: home.parent.vault).map { readFile($0) } == before, "a refused passwd --rotate changed the folder")
        // A wrong kit: exit 4, nothing written.
        let wrong = CLI.run(["passwd", "--rotate", "--passphrase-file", oldPhrase, "--new-passphrase-file", newPhrase, "--no-prompt",
                             "--recovery-file", box.write("other.txt", RecoveryKitTests.otherKey())], environment: env)
        #expect(wrong.status == 4 && Self.files(of: home.parent.vault).map { readFile($0) } == before, "\(wrong.stderr)")
        // With the kit: a new file key, the recovery slot kept, the kit still opens the vault.
        let rotated = CLI.run(["passwd", "--rotate", "--passphrase-file", oldPhrase, "--new-passphrase-file", newPhrase, "--no-prompt",
                               "--recovery-file", kit], environment: env)
        #expect(rotated.status == 0 && rotated.stderr.contains("file key") && !rotated.stderr.contains("Removed slot"), "\(rotated.stderr)")
        let slots = CLI.run(["slots", "--json"], environment: env)
        #expect(slots.out.contains("\"recovery\""), "\(slots.out)")
        #expect(CLI.run(["recovery", "verify", "--recovery-file", kit, "--no-prompt"], environment: env).status == 0)
        // The old passphrase opens no file in the folder; the new one opens them all.
        for file in Self.files(of: home.parent.vault) {
            #expect(CLI.run(["get", "clientId", "--vault", file, "--passphrase-file", oldPhrase, "--no-prompt"]).status == 4, "\(file)")
            #expect(CLI.run(["get", "clientId", "--vault", file, "--passphrase-file", newPhrase, "--no-prompt"]).status == 0, "\(file)")
        }
    }

    /// A vault whose recovery slot is gone (unenrolled) keeps its household key: `recovery
    /// verify` then says the kit opens nothing, exit 6, never that it opens the vault.
    @Test func verifyOfAVaultWithoutARecoverySlotIsNotASuccess() throws {
        let home = try Household()
        let box = home.box
        let removed = home.parent.run(["unenroll", "recovery"])
        try #require(removed.status == 0, "\(removed.stderr)")
        let verified = home.parent.run(["recovery", "verify", "--recovery-file", box.write("kit.txt", home.key)])
        #expect(verified.status == 6 && !verified.stderr.contains("opens \(home.parent.vault)"), "\(verified.stderr)")
        #expect(verified.stderr.split(separator: "\n").count == 1)
    }

    /// A live session opened by the passphrase (or a key file) does not stand for the
    /// current passphrase: a program of the user's cannot replace it. One the recovery kit
    /// opened does (the way back from a forgotten passphrase).
    @Test func passwdWithoutTheCurrentPassphraseOnlyAfterARecoveryUnlock() throws {
        let home = try Household()
        let box = home.box
        let env = ["LOMME_VAULT": home.parent.vault]
        defer { _ = CLI.run(["lock"], environment: env) }
        let newPhrase = box.write("new", "a passphrase set without the old 2026\n")
        #expect(CLI.run(["unlock", "--passphrase-file", home.parent.folder + "/pw"], environment: env).status == 0)
        let before = readFile(home.parent.vault)
        let refused = CLI.run(["passwd", "--new-passphrase-file", newPhrase, "--no-prompt"], environment: env)
        #expect(refused.status == 3 && refused.reason == .passphraseNeeded, "\(refused.stderr)")
        #expect(readFile(home.parent.vault) == before)
        // A key file's session neither.
        let keyFile = box.path + "/vault.key"
        #expect(CLI.run(["enroll", "keyfile", keyFile, "--passphrase-file", home.parent.folder + "/pw"], environment: env).status == 0)
        #expect(CLI.run(["lock"], environment: env).status == 0)
        #expect(CLI.run(["unlock", "--with", "keyfile", keyFile], environment: env).status == 0)
        let afterKeyFile = readFile(home.parent.vault)
        #expect(CLI.run(["passwd", "--new-passphrase-file", newPhrase, "--no-prompt"], environment: env).status == 3)
        #expect(readFile(home.parent.vault) == afterKeyFile)
        // The recovery kit's session: the new passphrase without the old.
        #expect(CLI.run(["lock"], environment: env).status == 0)
        #expect(CLI.run(["unlock", "--with", "recovery", "--recovery-file", box.write("kit.txt", home.key), "--no-prompt"], environment: env).status == 0)
        let changed = CLI.run(["passwd", "--new-passphrase-file", newPhrase, "--no-prompt"], environment: env)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(CLI.run(["get", "clientId", "--passphrase-file", newPhrase, "--no-prompt"], environment: env).status == 0)
    }
}
