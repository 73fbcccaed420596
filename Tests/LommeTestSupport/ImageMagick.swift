import Foundation

/// ImageMagick's convert, which install.sh installs: the tests' independent maker and
/// checker of pictures.
package enum ImageMagick {
    package static let convertPath = "/usr/bin/convert"

    /// Runs convert; throws with its error output if it fails.
    package static func convert(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: convertPath)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ConvertFailed(arguments: arguments, output: String(decoding: output, as: UTF8.self))
        }
    }

    package struct ConvertFailed: Error, CustomStringConvertible {
        package var arguments: [String]
        package var output: String
        package var description: String { "convert \(arguments.joined(separator: " ")) failed: \(output)" }
    }
}
