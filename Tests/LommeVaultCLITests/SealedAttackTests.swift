import Foundation
import Glibc
@testable import LommeCore
import LommeTestSupport
import Testing

/// Attacks on sealed provisioning through the built binary: a photographer who re-signs a
/// real code, crafted codes with impossible times, unusable device keys, a stranger's code
/// against an expected issuer, and a plain code over a pinned config. Each of these
/// succeeded (or crashed the tool) with the version-1 format.
@Suite("Sealed provisioning attacks")
struct SealedAttackTests {
    typealias Device = SealedFlowTests.Device

    /// Issues a sealed code from `parent` to `child` through the binary, as text.
    static func issue(from parent: Device, to child: Device, in box: CLI.Sandbox, name: String) throws -> String {
        let json = box.write(name + ".json", PlainPayload.encode(SealedFlowTests.config))
        let png = box.path + "/" + name + ".png"
        let issued = parent.run(["issue", "--from", json, "--to", child.key.text, "--output", png])
        try #require(issued.status == 0, "issue: \(issued.stderr)")
        let text = CLI.run([], shell: "zbarimg -q --raw '\(png)'").out.trimmingASCIIWhitespace()
        try #require(!text.isEmpty)
        return text
    }

    /// The signing-key fingerprint `status` shows for a device (what its `issue` signs with).
    static func signingPrint(_ device: Device) throws -> String {
        #expect(device.run(["unlock"]).status == 0)
        defer { _ = device.run(["lock"]) }
        let status = CLI.run(["status", "--json", "--vault", device.box.path + "/" + device.name + "/vault"])
        return try #require(try JSON.parse(status.stdout)["issuer"]?.stringValue)
    }

    static func status(_ device: Device) -> String {
        _ = device.run(["unlock"])
        defer { _ = device.run(["lock"]) }
        return CLI.run(["status", "--vault", device.box.path + "/" + device.name + "/vault"]).out
    }

    static func expectRefusal(_ result: CLI.Result, _ status: Int32, _ words: String, _ what: String) {
        #expect(result.status == status, "\(what): \(result.stderr)")
        #expect(result.signal == nil, "\(what): killed by signal \(result.signal ?? 0)")
        #expect(result.stderr.contains(words), "\(what): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(what), one line: \(result.stderr)")
    }

    @Test func aPhotographerCannotReSignARealCodeAndBecomeTheIssuer() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let parent = try Device("parent", in: box)
        let parentPrint = try Self.signingPrint(parent)
        let real = try Self.issue(from: parent, to: child, in: box, name: "real")
        let colon = try #require(real.firstIndex(of: ":"))
        let prefix = String(real[...colon])
        let bytes = try #require(Base45.decode(String(real[real.index(after: colon)...])))
        let named = (0...(bytes.count - 32)).contains { Fingerprint.of(Array(bytes[$0..<$0 + 32])) == parentPrint }
        #expect(!named, "the code's outer bytes name the issuer")

        // The photographer's version-1 attack: put their own key where the issuer's was and sign it all.
        let stranger = IssuerKeyPair.generate()
        var forged = bytes
        forged.replaceSubrange(41..<73, with: stranger.publicKey.bytes)
        let body = Array(forged.dropLast(64))
        let resigned = prefix + Base45.encode(body + PublicKeyCrypto.sign(body, secretKey: stranger.secretKey))
        // And a version-1 envelope of their own around the real code's box.
        let header = [UInt8(1)] + Array(bytes[1..<41]) + stranger.publicKey.bytes
        let rewrapped = header + Array(bytes[41...])
        let wrapped = "LV1:" + Base45.encode(rewrapped + PublicKeyCrypto.sign(rewrapped, secretKey: stranger.secretKey))

        let before = readFile(box.path + "/child/vault")
        for (what, text) in [("re-signed", resigned), ("re-wrapped", wrapped)] {
            let shown = child.run(["import", "--stdin", "--yes"], stdin: text)
            Self.expectRefusal(shown, 7, "code", what)
            #expect(!shown.stderr.contains(stranger.publicKey.fingerprint), "\(what): the stranger's key is offered as the issuer")
            #expect(readFile(box.path + "/child/vault") == before, "\(what): the vault changed")
        }
        // The parent's real code still imports and pins the parent.
        let imported = child.run(["import", "--stdin", "--yes"], stdin: real)
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(Self.status(child).contains("pinned issuer: \(parentPrint)"))
    }

    @Test func craftedTimesCrashNeitherScanNorImport() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let crafter = IssuerKeyPair.generate()
        let farYear: UInt64 = 67_768_006_275_743_760  // year 2147484600: tm_year fits an Int32, tm_year + 1900 does not
        for (issued, expires) in [(UInt64(1_800_000_000), UInt64(Int64.max)), (farYear, farYear + 3600)] {
            let fields = Envelope.bigEndian(issued) + Envelope.bigEndian(expires) + PublicKeyCrypto.randomBytes(16) + child.key.keyId
            let v1 = [UInt8(1)] + fields + crafter.publicKey.bytes + PublicKeyCrypto.randomBytes(120)
            let v2 = [UInt8(2)] + fields + PublicKeyCrypto.randomBytes(200)
            let v3 = [UInt8(3)] + fields + PublicKeyCrypto.randomBytes(200)
            let codes = [("LV1", "LV1:" + Base45.encode(v1 + PublicKeyCrypto.sign(v1, secretKey: crafter.secretKey))),
                         ("LV2", "LV2:" + Base45.encode(v2)), ("LV3", "LV3:" + Base45.encode(v3))]
            for (kind, text) in codes {
                let what = "\(kind) issued \(issued) expires \(expires)"
                let imported = CLI.run(["import", "--stdin", "--yes"] + child.options, stdin: text, timeout: 600)
                Self.expectRefusal(imported, 7, "code", "import " + what)
                let png = CLI.qrImage(text, in: box, name: kind)
                let scanned = CLI.run(["scan", png], timeout: 600)
                #expect(scanned.signal == nil && scanned.status < 128, "scan \(what): \(scanned.status) \(scanned.stderr)")
            }
        }
    }

    @Test func unusableDeviceKeysAreRefusedAtIssue() throws {
        let box = CLI.Sandbox()
        let parent = try Device("parent", in: box)
        let json = box.write("config.json", PlainPayload.encode(SealedFlowTests.config))
        let zero = [UInt8](repeating: 0, count: 32)
        let order8 = Sodium.unhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")!
        for (what, key) in [("all zeros", zero), ("a point of order 8", order8)] {
            let text = Bech32.encode(prefix: "lvk", data: key)
            let typed = parent.run(["issue", "--from", json, "--to", text])
            Self.expectRefusal(typed, 64, "not a usable X25519 key", "--to " + what)
            #expect(typed.stdout.isEmpty, "\(what): a code was drawn")
            let photo = CLI.qrImage(text.uppercased(), in: box, name: "key")
            let shown = parent.run(["issue", "--from", json, "--to-image", photo, "--output", box.path + "/out.png"])
            Self.expectRefusal(shown, 64, "not a usable X25519 key", "--to-image " + what)
            #expect(!FileManager.default.fileExists(atPath: box.path + "/out.png"))
        }
    }

    @Test func expectIssuerPinsTheNamedIssuerAndRefusesAnyOther() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let parent = try Device("parent", in: box)
        let stranger = try Device("stranger", in: box)
        let parentPrint = try Self.signingPrint(parent)
        let strangers = try Self.issue(from: stranger, to: child, in: box, name: "stranger")
        let before = readFile(box.path + "/child/vault")
        Self.expectRefusal(child.run(["import", "--stdin", "--yes", "--expect-issuer", parentPrint], stdin: strangers), 7,
                           "not by the expected issuer \(parentPrint)", "a stranger's code")
        #expect(readFile(box.path + "/child/vault") == before)
        let real = try Self.issue(from: parent, to: child, in: box, name: "real")
        // No --yes and no terminal: the named issuer is the only question, so none is asked.
        let typed = parentPrint.lowercased().replacingOccurrences(of: "-", with: "")
        let imported = child.run(["import", "--stdin", "--expect-issuer", typed], stdin: real)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(Self.status(child).contains("pinned issuer: \(parentPrint)"))
    }

    @Test func aPlainCodeDoesNotSilentlyReplaceAPinnedConfig() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let parent = try Device("parent", in: box)
        let parentPrint = try Self.signingPrint(parent)
        #expect(child.run(["import", "--stdin", "--yes"], stdin: try Self.issue(from: parent, to: child, in: box, name: "real")).status == 0)
        let before = readFile(box.path + "/child/vault")
        Self.expectRefusal(child.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB), 7, "--allow-plain", "plain over pinned, --yes")
        #expect(readFile(box.path + "/child/vault") == before)
        #expect(Self.status(child).contains("source:        sealed by \(parentPrint)"))
        let allowed = child.run(["import", "--stdin", "--yes", "--no-check", "--allow-plain"], stdin: Sample.configB)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let status = Self.status(child)
        #expect(status.contains("source:        a plain code (unauthenticated"), "\(status)")
        #expect(status.contains("pinned issuer: none yet"), "\(status)")
        // With the pin dropped, a later plain code is an ordinary import again.
        #expect(child.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configA).status == 0)
    }
}
