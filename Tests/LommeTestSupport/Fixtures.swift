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

/// Runs `body` holding the lock `name` (flock(2) on a file in /tmp), which every test process
/// on this machine takes for that name: tests whose vaults are copies of one test vector share
/// its salt, and so one session in the user's keyring, and take turns with it, so that one's
/// `lock` never ends another's session, whatever the timing.
package func exclusively<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
    let fd = open("/tmp/lomme-vault-test-\(name).lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if fd >= 0 { while flock(fd, LOCK_EX) != 0 && errno == EINTR {} }
    defer { if fd >= 0 { close(fd) } }
    return try body()
}

/// The session of the version 1 vector (its salt, and so its keyring entry, is the same in
/// every copy), taken in turn by the tests that unlock a copy.
package let versionOneSession = "vault-v1-session"
