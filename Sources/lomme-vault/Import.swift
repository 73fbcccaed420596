import ArgumentParser
import LommeVault

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'import' is not available in this version yet")
    }
}
