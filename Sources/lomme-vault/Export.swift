import ArgumentParser
import LommeVault

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'export' is not available in this version yet")
    }
}
