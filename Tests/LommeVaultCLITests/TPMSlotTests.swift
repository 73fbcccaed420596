import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// TPM 2.0 slots through the built binary, against a software TPM each test starts on
/// loopback with its own state: enroll with and without PIN, unlock, wrong
/// PINs to lockout, another machine, unenroll, passwd and the file key, a damaged slot,
/// PCRs, no TPM.
@Suite("TPM slots")
struct TPMSlotTests {
    /// A vault with a config in a sandbox, and the arguments and environment that reach `tpm`.
    struct Machine {
        let box = CLI.Sandbox()
        let tpm: SoftwareTPM
        let pw: String
        let pin: String
        var v: [String] { ["--vault", box.vault] }

        init(tpm: SoftwareTPM? = nil) throws {
            self.tpm = try tpm ?? SoftwareTPM()
            pw = box.write("pw", "tpm test passphrase\n")
            pin = box.write("pin", "123456\n")
            let imported = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw] + v, stdin: Sample.configA)
            #expect(imported.status == 0, "\(imported.stderr)")
        }

        func run(_ arguments: [String], tcti: String? = nil) -> CLI.Result {
            CLI.run(arguments + v, environment: ["LOMME_VAULT_TPM": tcti ?? tpm.tcti])
        }

        /// Unlocks with the TPM, checks that `get` then needs nothing, and locks again.
        func unlocksWithTheTPM(_ extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) {
            let unlocked = run(["unlock", "--with", "tpm2", "--no-prompt"] + extra)
            #expect(unlocked.status == 0, "\(unlocked.stderr)", sourceLocation: sourceLocation)
            #expect(run(["get", "clientId", "--no-prompt"]).out == "client-A", sourceLocation: sourceLocation)
            _ = run(["lock"])
        }

        var passphraseStillOpens: Bool { run(["get", "clientId", "--passphrase-file", pw]).out == "client-A" }
    }

    @Test func enrollWithAPINThenUnlockWithIt() throws {
        let m = try Machine()
        let enrolled = m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", m.pw])
        #expect(enrolled.status == 0 && enrolled.stderr.contains("Enrolled slot 1 (tpm2, PIN)"), "\(enrolled.stderr)")
        #expect(enrolled.stderr.contains("locks out after 3 wrong PINs"), "\(enrolled.stderr)")
        m.unlocksWithTheTPM(["--pin-file", m.pin])
        let slots = m.run(["slots"])
        #expect(slots.out.contains("1     tpm2") && slots.out.contains("PIN, no PCRs"), "\(slots.out)")
        #expect(m.run(["status"]).out.contains("1 tpm2 (PIN, no PCRs)"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(m.run(["slots", "--json"]).stdout)) as? [[String: Any]])
        #expect(json.count == 2 && json[1]["kind"] as? String == "tpm2" && json[1]["lastUsed"] as? String != nil, "\(json)")
        // Without the PIN and no terminal: exit 3, one line.
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--no-prompt"]), 3, "--pin-fd")
    }

    @Test func wrongPINsCountDownToLockoutAndThePassphraseStillOpens() throws {
        let m = try Machine()
        #expect(m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", m.pw]).status == 0)
        let wrong = m.box.write("wrong", "000000\n")
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--pin-file", wrong]), 4, "wrong PIN; 2 tries left")
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--pin-file", wrong]), 4, "wrong PIN; 1 try left")
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--pin-file", wrong]), 4, "no tries left")
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--pin-file", m.pin]), 1, "locked out")
        #expect(m.run(["unlock", "--with", "tpm2", "--pin-file", m.pin]).stderr.contains("lomme-vault unlock"))
        #expect(m.passphraseStillOpens)
    }

    @Test func withoutAPINItOpensWithNoQuestionAndSaysWhatThatGives() throws {
        let m = try Machine()
        let enrolled = m.run(["enroll", "tpm2", "--passphrase-file", m.pw])
        #expect(enrolled.status == 0 && enrolled.stderr.contains("useless elsewhere") && enrolled.stderr.contains("anyone who can run programs as you"),
                "\(enrolled.stderr)")
        m.unlocksWithTheTPM()
    }

    /// With a slot with a PIN (enrolled first) and one without, no question is needed.
    @Test func aSlotWithoutAPINIsTriedFirst() throws {
        let m = try Machine()
        #expect(m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", m.pw]).status == 0)
        #expect(m.run(["enroll", "tpm2", "--passphrase-file", m.pw]).status == 0)
        m.unlocksWithTheTPM()
        #expect(m.run(["slots", "--json"]).out.contains(#""id":2,"kind":"tpm2","details":"no PIN, no PCRs","created""#))
    }

    @Test func aCopyOnAnotherMachineOpensOnlyWithThePassphrase() throws {
        let m = try Machine()
        #expect(m.run(["enroll", "tpm2", "--passphrase-file", m.pw]).status == 0)
        let other = try SoftwareTPM()
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--no-prompt"], tcti: other.tcti), 1, "another TPM")
        #expect(m.passphraseStillOpens)
        // The same TPM after a reboot still opens it.
        let rebooted = try m.tpm.copy()
        let unlocked = m.run(["unlock", "--with", "tpm2", "--no-prompt"], tcti: rebooted.tcti)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        _ = m.run(["lock"])
    }

    @Test func unenrollRemovesTheSlot() throws {
        let m = try Machine()
        #expect(m.run(["enroll", "tpm2", "--passphrase-file", m.pw]).status == 0)
        let removed = m.run(["unenroll", "tpm2", "--passphrase-file", m.pw])
        #expect(removed.status == 0 && removed.stderr.contains("Removed slot 1 (tpm2"), "\(removed.stderr)")
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--no-prompt"]), 1, "no TPM slot")
        #expect(!m.run(["slots"]).out.contains("tpm2"))
    }

    @Test func passwdRewrapsASlotWithoutPINAndRotateRemovesOneWithAPIN() throws {
        let m = try Machine()
        #expect(m.run(["enroll", "tpm2", "--passphrase-file", m.pw]).status == 0)
        let pw2 = m.box.write("pw2", "second tpm passphrase\n")
        // Every other slot can take a new file key: passwd makes one and re-wraps the TPM slot.
        let before = try VaultFormat.parse(readFile(m.box.vault))
        let changed = m.run(["passwd", "--passphrase-file", m.pw, "--new-passphrase-file", pw2])
        #expect(changed.status == 0 && changed.stderr.contains("and the file key"), "\(changed.stderr)")
        #expect(try VaultFormat.parse(readFile(m.box.vault)).salt != before.salt)
        m.unlocksWithTheTPM()
        // A slot with a PIN cannot take a new key without it: passwd keeps the file key and says so…
        #expect(m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", pw2]).status == 0)
        let kept = m.run(["passwd", "--passphrase-file", pw2, "--new-passphrase-file", m.pw])
        #expect(kept.status == 0 && kept.stderr.contains("The file key stays") && kept.stderr.contains("passwd --rotate"), "\(kept.stderr)")
        m.unlocksWithTheTPM(["--pin-file", m.pin])
        // …and --rotate makes one, removing that slot and naming it.
        let oldKey = try VaultFormat.open(VaultFormat.parse(readFile(m.box.vault)), passphrase: SecureBytes(copying: Array("tpm test passphrase".utf8))).master
        let rotated = m.run(["passwd", "--rotate", "--passphrase-file", m.pw, "--new-passphrase-file", pw2])
        #expect(rotated.status == 0 && rotated.stderr.contains("Removed slot 2 (tpm2, PIN") && rotated.stderr.contains("enroll tpm2 --pin"), "\(rotated.stderr)")
        #expect(throws: LommeError.self) { try VaultFormat.open(VaultFormat.parse(readFile(m.box.vault)), master: oldKey) }
        #expect(!m.run(["slots"]).out.contains("2     tpm2"))
        m.unlocksWithTheTPM()  // slot 1, without PIN, re-wrapped
    }

    @Test func enrollingUpgradesAVersionOneVault() throws {
        // Every copy of the vector is one session in the keyring: taken in turn (`exclusively`).
        try exclusively(versionOneSession) { () throws in
            let box = CLI.Sandbox()
            mkdir(box.path + "/data", 0o700)
            _ = FileManager.default.createFile(atPath: box.vault, contents: Data(fixture("vault")), attributes: [.posixPermissions: 0o600])
            let pw = box.write("pw", "correct horse battery staple\n")
            let tpm = try SoftwareTPM()
            let env = ["LOMME_VAULT_TPM": tpm.tcti]
            let enrolled = CLI.run(["enroll", "tpm2", "--passphrase-file", pw, "--vault", box.vault], environment: env)
            #expect(enrolled.status == 0, "\(enrolled.stderr)")
            #expect(readFile(box.vault)[8] == 2)
            #expect(CLI.run(["unlock", "--with", "tpm2", "--no-prompt", "--vault", box.vault], environment: env).status == 0)
            #expect(CLI.run(["get", "clientId", "--no-prompt", "--vault", box.vault]).out == "demo-client")
            _ = CLI.run(["lock", "--vault", box.vault])
        }
    }

    /// A damaged TPM slot is exit 5, and the passphrase slot still opens.
    @Test func aDamagedSlotIsFiveAndTheOthersStillWork() throws {
        let m = try Machine()
        #expect(m.run(["enroll", "tpm2", "--passphrase-file", m.pw]).status == 0)
        var bytes = readFile(m.box.vault)
        let sealed = try VaultFormat.parse(bytes)
        let slot = try #require(sealed.slot(id: 1))
        let parameters = try #require(TPM2Slot(parameters: slot.parameters))
        // A byte inside the sealed object's private area, as stored in the file.
        let at = try #require(bytes.firstRange(of: parameters.privateArea)).lowerBound + parameters.privateArea.count / 2
        bytes[at] ^= 0x01
        _ = FileManager.default.createFile(atPath: m.box.vault, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--no-prompt"]), 5, "damaged")
        #expect(m.passphraseStillOpens)
    }

    @Test func aSlotBoundToAPCRRefusesOnceItChanges() throws {
        let m = try Machine()
        let enrolled = m.run(["enroll", "tpm2", "--pcrs", "7", "--passphrase-file", m.pw])
        #expect(enrolled.status == 0 && enrolled.stderr.contains("bound to PCR 7"), "\(enrolled.stderr)")
        m.unlocksWithTheTPM()
        try m.tpm.extendPCR(7)
        expectRefusal(m.run(["unlock", "--with", "tpm2", "--no-prompt"]), 1, "PCR 7 changed")
        #expect(m.passphraseStillOpens)
    }

    @Test func noTPMIsOneLineAndThePassphraseStillWorks() throws {
        let m = try Machine()
        let stopped = try SoftwareTPM()
        let closed = stopped.tcti
        stopped.stop()
        expectRefusal(m.run(["enroll", "tpm2", "--passphrase-file", m.pw], tcti: closed), 1, "no TPM 2.0 reachable")
        #expect(try VaultFormat.parse(readFile(m.box.vault)).slots.count == 1)
        #expect(m.passphraseStillOpens)
        expectRefusal(m.run(["enroll", "tpm3", "--passphrase-file", m.pw]), 64, "tpm2")
        expectRefusal(m.run(["enroll", "tpm2", "--pcrs", "24", "--passphrase-file", m.pw]), 64, "--pcrs")
    }
}
