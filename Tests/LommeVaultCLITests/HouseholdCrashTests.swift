import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// `set` and `issue --all` killed with SIGKILL at random instants: the vault opens, holds
/// the old or the new value of the field set, keeps every child, and records every code
/// `issue --all` wrote before it died (each file in the folder decodes to a code whose id
/// is in the record).
@Suite("Household writers killed", .serialized)
struct HouseholdCrashTests {
    static let passphrase = "household kill test passphrase"

    static func contents(_ path: String) throws -> VaultContents {
        let sealed = try VaultFormat.parse(readFile(path))
        let opened = try VaultFormat.open(sealed, passphrase: SecureBytes(copying: Array(passphrase.utf8)))
        return try VaultContents(plaintext: opened.plaintext)
    }

    @Test func killedSetAndIssueAllLoseNothing() throws {
        let iterations = ProcessInfo.processInfo.environment["LOMME_KILL_ITERATIONS"].flatMap { Int($0) }.map { max(8, $0 / 2) } ?? 16
        let box = CLI.Sandbox()
        let pw = box.write("pw", Self.passphrase + "\n")
        let env = ["LOMME_VAULT": box.vault]
        let v = ["--passphrase-file", pw, "--vault", box.vault]
        #expect(CLI.run(["import", "--stdin", "--yes"] + v, stdin: PlainPayload.encode(sampleConfig())).status == 0)
        let names = ["anna", "ola", "kari"]
        for name in names {
            let key = ReceivingKeyPair.generate().publicKey.text
            #expect(CLI.run(["child", "add", name, "--key", key, "--account", "97104133219", "--yes"] + v, environment: env).status == 0)
        }
        let codes = box.path + "/codes"
        func issueAll() -> Spawned { Spawned(["issue", "--all", "--output-dir", codes] + v) }
        func set(_ value: String) -> Spawned { Spawned(["set", "name"] + v, stdinFile: box.write("value", value + "\n")) }

        // How long each takes here.
        var start = Date()
        #expect(issueAll().wait().status == 0)
        let issueTime = Date().timeIntervalSince(start)
        start = Date()
        #expect(set("name-0").wait().status == 0)
        let setTime = Date().timeIntervalSince(start)

        var name = "name-0", killed = 0, filesChecked = 0, newValues = 0, runs = 0
        // The kills land after a random share of the times measured above; on a loaded machine
        // a command can run longer or shorter than then, so the run goes on, up to ten times
        // as long, until a quarter of its commands were killed, a code file was checked against
        // the record and a set left its new value.
        for iteration in 0..<(10 * iterations) {
            if iteration >= iterations && killed >= iterations / 4 && filesChecked > 0 && newValues > 0 { break }
            runs += 1
            try? FileManager.default.removeItem(atPath: codes)
            let isSet = iteration % 2 == 0
            let next = "name-\(iteration + 1)"
            let spawned = isSet ? set(next) : issueAll()
            if iteration % 4 >= 2 {
                _ = CrashSafetyTests.waitForWritePhase(spawned, in: box.path + "/data")
            } else {
                usleep(UInt32(Double.random(in: 0...1.2) * (isSet ? setTime : issueTime) * 1_000_000))
            }
            kill(spawned.process.processIdentifier, SIGKILL)
            if spawned.wait().killed { killed += 1 }

            let contents = try Self.contents(box.vault)
            #expect(contents.household.children.map(\.name) == names, "iteration \(iteration): children lost")
            let stored = contents.config?.value(of: "name")
            #expect(stored == name || stored == next && isSet, "iteration \(iteration): name is \(stored ?? "none")")
            if stored == next { newValues += 1; name = next }
            #expect(contents.config?.clientSecret == sampleConfig().clientSecret && contents.config?.clientId == sampleConfig().clientId)
            let recorded = Set(contents.household.issued.map(\.id))
            for file in (try? FileManager.default.contentsOfDirectory(atPath: codes)) ?? [] where file.hasSuffix(".png") {
                let text = CLI.run([], shell: "zbarimg --quiet --raw '\(codes)/\(file)'").out.trimmingCharacters(in: .whitespacesAndNewlines)
                let envelope = try Envelope(text: text)
                #expect(recorded.contains(Sodium.hex(envelope.id)), "iteration \(iteration): \(file) was written but its code is not recorded")
                filesChecked += 1
            }
            let backup = box.vault + ".bak"
            if FileManager.default.fileExists(atPath: backup) { _ = try Self.contents(backup) }
        }
        #expect(killed >= iterations / 4, "only \(killed) of \(runs) were killed")
        #expect(filesChecked > 0 && newValues > 0, "files checked \(filesChecked), new values seen \(newValues): the run proved nothing")
        print("household kill test: \(runs) iterations (set \(Int(setTime * 1000)) ms, issue --all \(Int(issueTime * 1000)) ms), killed \(killed), code files found recorded \(filesChecked), sets that left the new value \(newValues)")
    }
}
