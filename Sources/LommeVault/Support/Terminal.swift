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
        var bytes = Array(text.utf8)
        writeAll(&bytes, to: descriptor)
    }

    public static func writeAll(_ bytes: inout [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
}
