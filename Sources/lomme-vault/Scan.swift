import ArgumentParser
import LommeVault

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "scan", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'scan' is not available in this version yet")
    }
}
