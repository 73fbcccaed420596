import Foundation

/// A folder of a test's own (0700, from mkdtemp under the temp directory), removed with
/// everything in it when the last reference goes.
package final class TemporaryFolder: Sendable {
    package let path: String

    /// `prefix` names the folder (`prefix-XXXXXX`), so a folder left by a killed run says
    /// which tests made it.
    package init(_ prefix: String) {
        var template = Array((NSTemporaryDirectory() + prefix + "-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed for \(prefix): errno \(errno)") }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
