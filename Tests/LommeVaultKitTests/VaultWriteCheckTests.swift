import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// Every write reads the new file back and renames it over the old vault only when it
/// parses and its key check holds with the key it was sealed under: a bad write leaves the
/// vault, its .bak and the folder as they were.
@Suite("Vault writes are read back")
struct VaultWriteCheckTests {
    func made(_ box: ServiceBox) throws -> (store: VaultStore, key: SecureBytes, vault: [UInt8], bak: [UInt8]) {
        let pw = box.file("pw", servicePhrase)
        let context = box.context(ScriptedInteraction())
        _ = try Provisioning(context).createVault(source: .file(pw), noPrompt: false, refusal: "")
        let store = context.store
        let sealed = try VaultFormat.parse(try store.read())
        let key = try VaultFormat.key(sealed, passphrase: SecureBytes(copying: Array(servicePhrase.utf8)))?.key
        try store.withWriteLock { () throws(LommeError) in try store.write(sealed.bytes, key: key!) }
        return (store, key!, readFile(box.vault), readFile(box.vault + ".bak"))
    }

    func expectUnchanged(_ box: ServiceBox, _ before: (vault: [UInt8], bak: [UInt8]), sourceLocation: SourceLocation = #_sourceLocation) {
        let same = readFile(box.vault) == before.vault && readFile(box.vault + ".bak") == before.bak
        #expect(same, "the vault or its .bak changed", sourceLocation: sourceLocation)
        var names: [String] = []
        if let dir = opendir(box.path + "/data") {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
        }
        #expect(names.sorted() == ["vault", "vault.bak", "vault.lock"], "\(names)", sourceLocation: sourceLocation)
    }

    @Test func aVaultCutShortIsNotWritten() throws {
        let box = ServiceBox()
        let (store, key, vault, bak) = try made(box)
        let error = #expect(throws: LommeError.self) {
            try store.withWriteLock { () throws(LommeError) in try store.write(Array(vault.dropLast(40)), key: key) }
        }
        #expect(error?.reason == .vaultNotReadBack, "\(String(describing: error))")
        expectUnchanged(box, (vault, bak))
    }

    @Test func aVaultWhoseKeyCheckFailsWithTheKeyIsNotWritten() throws {
        let box = ServiceBox()
        let (store, _, vault, bak) = try made(box)
        let wrong = SecureBytes.random(count: KDF.keyLength)
        #expect(throws: LommeError.self) {
            try store.withWriteLock { () throws(LommeError) in try store.write(vault, key: wrong) }
        }
        expectUnchanged(box, (vault, bak))
    }
}
