import ArgumentParser
import LommeCore
import LommeVaultKit

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Vault path, locked or unlocked (and for how long), fields present, receiving key and issuer fingerprints.",
        discussion: "Never asks for the passphrase and does not count as a use of an unlocked session. Exit 6 when there is no vault."
    )

    @Flag(name: .customLong("json"), help: "Print the status as JSON.") var json = false
    @OptionGroup var vault: VaultLocation

    func run() throws {
        let report = try StatusService(try vault.prepare()).run()
        if let warning = report.warning { Terminal.error(warning) }
        report.householdWarnings.forEach { Terminal.error("warning: " + $0) }
        if json { try Terminal.output(report.json.text + "\n") } else { try Terminal.labelled(report.lines) }
        if !report.exists {
            Terminal.reason(.noVault)
            throw ExitCode(LommeError.Code.notFound.rawValue)
        }
    }
}
