import Glibc

/// Messages for people go to stderr, one line each; stdout carries only data.
public enum Terminal {
    public static func error(_ message: String) {
        write("lomme-vault: \(message)\n", to: STDERR_FILENO)
    }

    public static func info(_ message: String) {
        write(message + "\n", to: STDERR_FILENO)
    }

    /// Writes the exact bytes of `text` to stdout.
    public static func output(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    public static func write(_ text: String, to descriptor: Int32) {
        FileIO.writeAll(Array(text.utf8), to: descriptor)
    }

    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
}
