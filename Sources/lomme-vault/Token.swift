import ArgumentParser
import LommeVault

struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'token' is not available in this version yet")
    }
}
