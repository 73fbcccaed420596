import ArgumentParser
import LommeVault

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'lock' is not available in this version yet")
    }
}
