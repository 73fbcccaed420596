import ArgumentParser
import LommeVault

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlock", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'unlock' is not available in this version yet")
    }
}
