import ArgumentParser
import LommeVault

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "init", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'init' is not available in this version yet")
    }
}
