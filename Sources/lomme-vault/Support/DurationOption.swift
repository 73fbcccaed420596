import ArgumentParser
import LommeCore

/// An option that takes a duration (DurationText): checked in `validate()`, so a bad one is
/// a usage error (exit 64) with the same words for every command.
enum DurationOption {
    static func seconds(_ text: String, option: String, atMost limit: UInt32) throws -> UInt32 {
        do {
            return try DurationText.parse(text, option: option, atMost: limit)
        } catch {
            throw ParserErrorLine.validationError(error)
        }
    }
}
