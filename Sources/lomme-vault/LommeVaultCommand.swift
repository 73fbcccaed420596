import ArgumentParser
import LommeVault

struct LommeVaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lomme-vault",
        abstract: "Move a bank API configuration by QR code and keep it sealed.",
        discussion: """
            A parent issues the configuration as a QR code; a child photographs it and imports it \
            into a vault sealed with a passphrase; other programs read it with `get` or `exec`.
            """,
        version: LommeVersion.string,
        subcommands: [
            Init.self, Issue.self, Import.self, Scan.self, Get.self, Exec.self, Unlock.self, Lock.self,
            Status.self, Passwd.self, Export.self, Key.self, Token.self,
        ]
    )
}
