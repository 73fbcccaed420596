import ArgumentParser
import LommeVault

struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'get' is not available in this version yet")
    }
}
