import Foundation
import Testing
@testable import LommeVault

/// Runs the built `lomme-vault` as a user would, detached from any terminal
/// (`setsid`), so a test can never hang on a prompt.
struct CLI {
    static let binary = packageRoot + "/.build/debug/lomme-vault"

    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var out: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// A temp directory (0700) of its own, removed at the end.
    final class Sandbox {
        let path: String
        init() {
            var template = Array((NSTemporaryDirectory() + "lomme-vault-test-XXXXXX").utf8CString)
            path = String(cString: mkdtemp(&template)!)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        var vault: String { path + "/data/vault" }

        @discardableResult
        func write(_ name: String, _ text: String, mode: Int = 0o600) -> String {
            let file = path + "/" + name
            _ = FileManager.default.createFile(atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
            return file
        }
    }

    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                    shell: String? = nil) -> Result {
        #expect(FileManager.default.isExecutableFile(atPath: binary), "build the tool first: swift build")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        if let shell {
            process.arguments = ["-w", "/bin/sh", "-c", shell, "sh"] + arguments
        } else {
            process.arguments = ["-w", binary] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["LOMME_VAULT_KDF"] = "minimum"
        env["LOMME_VAULT"] = nil
        env["LOMME_VAULT_KEYRING"] = nil
        env["LV"] = binary
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try! process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: Array(outData), stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A QR code of `text` as a PGM image, the way a user makes one (qrencode, ImageMagick).
    static func qrImage(_ text: String, in sandbox: Sandbox, name: String = "config") -> String {
        let json = sandbox.write(name + ".json", text)
        let png = sandbox.path + "/" + name + ".png", pgm = sandbox.path + "/" + name + ".pgm"
        let result = run([], shell: "qrencode -l H -o '\(png)' < '\(json)' && convert '\(png)' '\(pgm)' && rm '\(json)'")
        #expect(result.status == 0, "qrencode/convert: \(result.stderr)")
        return pgm
    }

    /// Every byte of every file under `path`.
    static func allFileBytes(under path: String) -> [(String, [UInt8])] {
        let enumerator = FileManager.default.enumerator(atPath: path)!
        var files: [(String, [UInt8])] = []
        while let name = enumerator.nextObject() as? String {
            let full = path + "/" + name
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append((name, readFile(full)))
            }
        }
        return files
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }
}

extension Array where Element == UInt8 {
    func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}

/// Configs used by the CLI tests. The secret holds quotes, a dollar and spaces, so
/// the shell quoting is really tested.
enum Sample {
    static let secretA = "A-s3cret 'quoted' $HOME `x`"
    static let configA = #"{"clientId":"client-A","clientSecret":"A-s3cret 'quoted' $HOME `x`","userId":"01010112345","accountNr":"1234.56.78903","name":"bl\u00e5b\u00e6r"}"#
    static let secretB = "B-zz9 'other' secret"
    static let configB = #"{"clientId":"client-B","clientSecret":"B-zz9 'other' secret","userId":"02020212345","accountNr":"12345678903","tokenUrl":"https://bank.example/token"}"#
    static let jsonB = #"{"clientId":"client-B","clientSecret":"B-zz9 'other' secret","userId":"02020212345","accountNr":"12345678903","tokenUrl":"https://bank.example/token"}"#
}
