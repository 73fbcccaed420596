import ArgumentParser
import LommeVault

struct Issue: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "issue", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'issue' is not available in this version yet")
    }
}
