import ArgumentParser
import LommeVault

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'status' is not available in this version yet")
    }
}
