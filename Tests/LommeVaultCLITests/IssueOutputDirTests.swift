import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `issue --all --output-dir a/b/c`: the missing folders are made, mode 0700 as the vault's
/// folder, only inside a folder that passes the output folder's check and is no link.
@Suite("issue --all --output-dir: missing folders")
struct IssueOutputDirTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func missingFoldersAreMadeOwnAndNeverThroughALink() throws {
        let (box, parent, _, _) = try ChildDeviceTests.household()
        let deep = box.path + "/codes/round/one"
        let made = parent.run(["issue", "--all", "--output-dir", deep])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: deep + "/anna.png"))
        for folder in [box.path + "/codes", box.path + "/codes/round", deep] {
            #expect(Self.mode(folder) == 0o700, "\(folder): \(String(Self.mode(folder), radix: 8))")
        }
        // A relative path is made from the working folder.
        let relative = CLI.run(["issue", "--all", "--output-dir", "rel/codes", "--passphrase-file", parent.folder + "/pw"],
                               environment: ["LOMME_VAULT": parent.vault], shell: "cd '\(box.path)' && exec \"$LV\" \"$@\"")
        #expect(relative.status == 0 && Self.mode(box.path + "/rel") == 0o700 && FileManager.default.fileExists(atPath: box.path + "/rel/codes/anna.png"), "\(relative.stderr)")

        let before = readFile(parent.vault)
        func refused(_ folder: String, _ words: String, madeNothingIn parentFolder: String) {
            let result = parent.run(["issue", "--all", "--output-dir", folder])
            #expect(result.status == 1 && result.reason == .outputFolderUnsafe && result.stderr.contains(words) && result.stderr.hasSuffix("nothing was issued\n"), "\(folder): \(result.stderr)")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: parentFolder)) == [], "\(folder): something was made")
        }
        mkdir(box.path + "/real", 0o700)
        symlink(box.path + "/real", box.path + "/link")
        refused(box.path + "/link/new/codes", "is a symbolic link, which is not followed", madeNothingIn: box.path + "/real")
        let open = box.path + "/open"
        mkdir(open, 0o700)
        chmod(open, 0o777)
        refused(open + "/new", "other users may write into it", madeNothingIn: open)
        if getuid() == 0 {
            let theirs = box.path + "/theirs"
            mkdir(theirs, 0o755)
            chown(theirs, 65534, 65534)
            refused(theirs + "/new", "belongs to another user", madeNothingIn: theirs)
        }
        #expect(readFile(parent.vault) == before, "a refused folder recorded a code")
    }
}
