import Glibc
import LommeCore

/// The package root, from this file's path.
package let packageRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/LommeTestSupport/Fixtures.swift
    return parts.joined(separator: "/")
}()

package func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { return [] }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}

/// A file of the format's test vectors (fixtures/vault-v1/).
package func fixture(_ name: String) -> [UInt8] { readFile(packageRoot + "/fixtures/vault-v1/" + name) }

/// A file of the version 2 test vector (fixtures/vault-v2/).
package func fixtureV2(_ name: String) -> [UInt8] { readFile(packageRoot + "/fixtures/vault-v2/" + name) }

/// The named reason `body` fails with (nil when it does not fail, or not with a LommeError):
/// tests check what went wrong by name, and the wording only where the wording is the promise.
package func thrown(_ body: () throws -> Void) -> LommeError? {
    do {
        try body()
        return nil
    } catch let error as LommeError {
        return error
    } catch {
        return nil
    }
}
