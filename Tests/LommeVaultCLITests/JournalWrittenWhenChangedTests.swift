import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A machine writes its journal again only when what it says changed (or its file is gone,
/// or it is a day old): a folder carried by git gets a commit when something happened, not
/// at every sync of a cron job.
@Suite("Two parents: a journal is written when it changed")
struct JournalWrittenWhenChangedTests {
    @Test func anUnchangedJournalIsNotWrittenAgainAndAChangedOneIs() throws {
        let home = try TwoParents()
        let folder = home.box.path + "/shared"
        try TwoParents.require(home.sync(home.mor, folder), "first sync on mor")
        try TwoParents.require(home.sync(home.far, folder), "first sync on far")
        let journal = home.box.path + "/shared/" + home.journalName(home.mor)
        try TwoParents.require(home.sync(home.mor), "sync on mor after far's")
        let before = readFile(journal)
        #expect(!before.isEmpty)
        let again = home.sync(home.mor)
        #expect(again.status == 0 && readFile(journal) == before, "nothing changed: the file stays as it was: \(again.stderr)")
        // A change on mor: its journal is written anew.
        let eve = try home.device("eve")
        try TwoParents.require(home.mor.run(["child", "add", "eve", "--key", eve.key.text, "--account", "12345678903", "--yes"]), "child add")
        try TwoParents.require(home.sync(home.mor), "sync after the change")
        #expect(readFile(journal) != before)
        // Its file deleted from the folder: written again at the next sync.
        try FileManager.default.removeItem(atPath: journal)
        try TwoParents.require(home.sync(home.mor), "sync after the file went")
        #expect(FileManager.default.fileExists(atPath: journal))
    }
}
