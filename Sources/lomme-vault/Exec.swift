import ArgumentParser
import LommeVault

struct Exec: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "exec", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'exec' is not available in this version yet")
    }
}
