import ArgumentParser
import LommeVault

struct Passwd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "passwd", abstract: "(not built yet)", shouldDisplay: false)

    func run() throws {
        throw LommeError.failure("'passwd' is not available in this version yet")
    }
}
