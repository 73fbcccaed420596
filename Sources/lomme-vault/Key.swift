import ArgumentParser
import LommeVault

struct Key: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "key", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'key' is not available in this version yet")
    }
}
