import LommeCore

/// `status`: what `VaultStatus` reports of the vault — never asking for the passphrase and
/// not counting as a use of an unlocked session.
package struct StatusService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    package func run() throws(LommeError) -> VaultStatus {
        try VaultStatus.read(context)
    }
}
