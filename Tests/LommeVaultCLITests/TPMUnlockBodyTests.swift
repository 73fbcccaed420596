import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// `unlock --with tpm2` opens the vault's body as well as the slot: a file whose TPM slot
/// opens but whose body was damaged is exit 5 at unlock, and leaves no session in the
/// keyring (a session for a vault that cannot be read would only fail later). Through the
/// built binary, against swtpm.
@Suite("TPM unlock opens the body")
struct TPMUnlockBodyTests {
    @Test func aDamagedBodyIsExitFiveAndLeavesNoSession() throws {
        let m = try TPMSlotTests.Machine()
        let enrolled = m.run(["enroll", "tpm2", "--passphrase-file", m.pw])
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        var bytes = readFile(m.box.vault)
        let sealed = try VaultFormat.parse(bytes)
        bytes[bytes.count - 1] ^= 0x20  // the body's tag, at the end of the file
        _ = FileManager.default.createFile(atPath: m.box.vault, contents: Data(bytes), attributes: [.posixPermissions: 0o600])

        expectRefusal(m.run(["unlock", "--with", "tpm2", "--no-prompt"]), 5, "damaged")
        #expect(try Keyring().find(Session.keyDescription(salt: sealed.salt)) == nil, "a session was kept for a damaged vault")
        // The same file with the body whole again unlocks: the slot itself was fine.
        bytes[bytes.count - 1] ^= 0x20  // the body's tag, at the end of the file
        _ = FileManager.default.createFile(atPath: m.box.vault, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        m.unlocksWithTheTPM()
    }
}
