import Foundation
import LommeTestSupport
import Testing

/// A recovery kit file is written only into a folder of the user's own, through the built
/// binary: `init --parent --recovery-kit FILE` and `recovery kit --output FILE` refuse a
/// folder that other users may write into (without the sticky bit), one another user owns,
/// and a symbolic link in place of the folder — the check `issue --all --output-dir` makes,
/// the same code — and then nothing is made or changed; nor is a kit ever written over a file.
@Suite("Kit files go only into a folder of one's own")
struct KitFolderTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// Folders a kit may not go into, each with the words that say why.
    static func unsafeFolders(in box: CLI.Sandbox) -> [(folder: String, words: String)] {
        var folders: [(String, String)] = []
        let open = box.path + "/open"
        mkdir(open, 0o755)
        chmod(open, 0o777)
        folders.append((open, "other users may write into it"))
        mkdir(box.path + "/real", 0o700)
        symlink(box.path + "/real", box.path + "/link")
        folders.append((box.path + "/link", "symbolic link"))
        if getuid() == 0 {
            let theirs = box.path + "/theirs"
            mkdir(theirs, 0o755)
            chown(theirs, 65534, 65534)
            folders.append((theirs, "belongs to another user"))
        }
        return folders
    }

    @Test func initRefusesAKitInAFolderOthersCanWriteOrOwn() throws {
        let box = CLI.Sandbox()
        for (index, (folder, words)) in Self.unsafeFolders(in: box).enumerated() {
            let parent = Machine(box, "parent\(index)")
            let kit = folder + "/kit.pdf"
            let made = parent.run(["init", "--parent", "--recovery-kit", kit])
            #expect(made.status == 1 && made.stderr.contains(words) && made.stderr.split(separator: "\n").count == 1, "\(folder): \(made.stderr)")
            #expect(!FileManager.default.fileExists(atPath: kit) && !FileManager.default.fileExists(atPath: box.path + "/real/kit.pdf"))
            #expect(!FileManager.default.fileExists(atPath: parent.vault), "\(folder): a vault was made without its kit")
        }
        // A folder others may write into with the sticky bit (as /tmp) is fine: they cannot
        // replace what is ours. The kit is the user's alone.
        let sticky = box.path + "/sticky"
        mkdir(sticky, 0o755)
        chmod(sticky, 0o1777)
        let parent = Machine(box, "sticky")
        #expect(parent.run(["init", "--parent", "--recovery-kit", sticky + "/kit.pdf"]).status == 0)
        #expect(CLI.mode(sticky + "/kit.pdf") == 0o600)
    }

    @Test func recoveryKitRefusesAKitInAFolderOthersCanWriteOrOwn() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent"], stdin: "").status == 0)  // no terminal: no kit yet
        let before = readFile(parent.vault)
        for (folder, words) in Self.unsafeFolders(in: box) {
            let kit = folder + "/kit.svg"
            let made = parent.run(["recovery", "kit", "--output", kit])
            #expect(made.status == 1 && made.stderr.contains(words) && made.stderr.hasSuffix("nothing was changed\n"), "\(folder): \(made.stderr)")
            #expect(!FileManager.default.fileExists(atPath: kit) && !FileManager.default.fileExists(atPath: box.path + "/real/kit.svg"))
            #expect(readFile(parent.vault) == before, "\(folder): the vault changed")
        }
        // Its own folder, by a relative path: written, mode 0600.
        let made = CLI.run(["recovery", "kit", "--output", "kit.svg", "--vault", parent.vault, "--passphrase-file", parent.folder + "/pw"],
                           shell: "cd '\(parent.folder)' && exec \"$LV\" \"$@\"")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(CLI.mode(parent.folder + "/kit.svg") == 0o600)
    }

    /// A file already where the kit would go (it may be another kit) is never written over:
    /// refused, the file as it was, nothing made or changed.
    @Test func aKitIsNeverWrittenOverAFile() throws {
        let box = CLI.Sandbox()
        let existing = box.write("kit.pdf", "another kit, maybe\n")
        let parent = Machine(box, "parent")
        let made = parent.run(["init", "--parent", "--recovery-kit", existing])
        #expect(made.status == 1 && made.reason == .outputFileExists, "\(made.stderr)")
        #expect(readFile(existing) == Array("another kit, maybe\n".utf8))
        #expect(!FileManager.default.fileExists(atPath: parent.vault), "a vault was made without its kit")
        try #require(parent.run(["init", "--parent"], stdin: "").status == 0)  // no terminal: no kit yet
        let before = readFile(parent.vault)
        let again = parent.run(["recovery", "kit", "--output", existing])
        #expect(again.status == 1 && again.reason == .outputFileExists, "\(again.stderr)")
        #expect(readFile(existing) == Array("another kit, maybe\n".utf8))
        #expect(readFile(parent.vault) == before)
    }
}
