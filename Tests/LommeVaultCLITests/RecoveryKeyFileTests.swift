import Foundation
import LommeTestSupport
import Testing

/// A recovery key read from a file (`--recovery-file`), through the built binary: the key
/// as printed, with Windows line endings too, and nothing more (a character appended is a
/// typo, exit 64); a file another user owns, or a link to one, is refused as a key file is
/// (its owner could have read it, or put a key of their own there, which `--restore` would
/// make the household's); one that others may read gets the warning a passphrase file gets.
@Suite("Recovery key files")
struct RecoveryKeyFileTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// A parent's vault with a kit (PNG), and the key its QR code holds (without `LVR1:`).
    static func parentWithKit(_ box: CLI.Sandbox) throws -> (Machine, String) {
        let parent = Machine(box, "parent")
        let kit = box.path + "/kit.png"
        let made = parent.run(["init", "--parent", "--recovery-kit", kit])
        try #require(made.status == 0, "\(made.stderr)")
        let read = CLI.run([], shell: "zbarimg --quiet --raw '\(kit)'").out.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(read.hasPrefix("LVR1:") && read.count == 5 + 35 + 6, "\(read)")
        return (parent, String(read.dropFirst(5)))
    }

    @Test func theKeyAsPrintedWithWindowsLineEndingsAndNothingMore() throws {
        let box = CLI.Sandbox()
        let (parent, key) = try Self.parentWithKit(box)
        let groups = key.split(separator: "-")
        // As printed on the sheet, in two lines, saved by a Windows editor.
        let crlf = box.write("crlf.txt", groups.prefix(4).joined(separator: " - ") + "\r\n" + groups.dropFirst(4).joined(separator: " - ") + "\r\n")
        let verified = parent.run(["recovery", "verify", "--recovery-file", crlf])
        #expect(verified.status == 0 && verified.stderr.contains("opens"), "\(verified.stderr)")
        // A character more, or a whole group more, is no recovery key.
        for (name, text) in [("one", key + "A"), ("group", key + "-" + groups[0]), ("after", key + "\r\nX\r\n")] {
            let longer = parent.run(["recovery", "verify", "--recovery-file", box.write(name + ".txt", text)])
            #expect(longer.status == 64 && longer.stderr.split(separator: "\n").count == 1, "\(name): \(longer.stderr)")
        }
    }

    @Test func anotherUsersFileOrALinkToItIsRefused() throws {
        try #require(getuid() == 0, "chown needs root")
        let box = CLI.Sandbox()
        let (parent, key) = try Self.parentWithKit(box)
        let theirs = box.write("theirs.txt", key + "\n")
        #expect(chown(theirs, 65534, 65534) == 0)
        symlink(theirs, box.path + "/link.txt")
        let before = readFile(parent.vault)
        for file in [theirs, box.path + "/link.txt"] {
            let verified = parent.run(["recovery", "verify", "--recovery-file", file])
            #expect(verified.status == 1 && verified.reason == .secretFileNotOwn && verified.stderr.contains("belongs to another user (uid 65534)")
                    && verified.stderr.split(separator: "\n").count == 1, "\(file): \(verified.stderr)")
            let unlocked = parent.run(["unlock", "--with", "recovery", "--recovery-file", file, "--no-prompt"])
            #expect(unlocked.status == 1 && unlocked.reason == .secretFileNotOwn, "\(file): \(unlocked.stderr)")
            // --restore: no household is founded on a key someone else could have put there.
            let laptop = Machine(box, "laptop")
            let restored = laptop.run(["init", "--parent", "--restore", "--recovery-file", file])
            #expect(restored.status == 1 && restored.reason == .secretFileNotOwn, "\(file): \(restored.stderr)")
            #expect(!FileManager.default.fileExists(atPath: laptop.vault), "a household was restored from another user's file")
        }
        #expect(readFile(parent.vault) == before)
        // The same key in a file of one's own, behind a link of one's own: taken.
        let own = box.write("own.txt", key + "\n")
        symlink(own, box.path + "/own-link.txt")
        #expect(parent.run(["recovery", "verify", "--recovery-file", box.path + "/own-link.txt"]).status == 0)
    }

    /// Mode 644: read, with the warning a passphrase file of that mode gets (the same words,
    /// from the same place: `SecretFile.readableWarning`).
    @Test func aFileOthersMayReadIsWarnedOfAsAPassphraseFileIs() throws {
        let box = CLI.Sandbox()
        let (parent, key) = try Self.parentWithKit(box)
        let file = box.write("kit.txt", key + "\n", mode: 0o644)
        let verified = parent.run(["recovery", "verify", "--recovery-file", file])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("lomme-vault: warning: the recovery key file \(file) can be read by other users (mode 644); make it yours alone: chmod 600 \(file)"),
                "\(verified.stderr)")
        // 0600: no warning.
        _ = box.write("own.txt", key + "\n")
        let quiet = parent.run(["recovery", "verify", "--recovery-file", box.path + "/own.txt"])
        #expect(quiet.status == 0 && !quiet.stderr.contains("warning"), "\(quiet.stderr)")
    }
}
