import Foundation

/// Video clips of what a webcam sees, made for a test with Tests/scripts/make-clip (frames
/// drawn by ImageMagick, encoded by the `ffmpeg` command), and QR code pictures by qrencode.
package enum Clips {
    /// Runs a program, returning its exit status and stderr.
    @discardableResult
    package static func run(_ arguments: [String], stdin: String? = nil) -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let errors = Pipe(), input = Pipe()
        process.standardError = errors
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, "\(error)") }
        if let stdin { try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// The config the camera clips of both LommeCameraTests and LommeVaultCLITests hold: the
    /// same code picture makes the same clip, so a clip both ask for is made once (`make`).
    package static let config = #"{"clientId":"camera-lib","clientSecret":"frame source","userId":"01010112345","accountNr":"12345678903"}"#
    /// Its clientSecret.
    package static let configSecret = "frame source"

    /// A QR code holding `text` (`qrencode -l H`, as the original app's instructions), as a PNG.
    package static func code(_ text: String, to path: String) -> Bool {
        run(["qrencode", "-l", "H", "-o", path], stdin: text).status == 0
    }

    /// A small grey clip (`frames` frames, 15 a second, MJPEG in Matroska) whose timestamps
    /// jump `jump` seconds ahead after frame `after` (ffmpeg's setpts): a recording paused for
    /// an hour, or a hostile file whose times leap by 10^10 s. Returns its path, or nil with
    /// ffmpeg's message.
    package static func jumping(in directory: String, name: String, after: Int = 5, jump: String, frames: Int = 15,
                                size: String = "320x240") -> (path: String?, error: String) {
        let path = directory + "/" + name
        let result = run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                          "-i", "testsrc2=s=\(size):r=15,format=gray", "-frames:v", "\(frames)",
                          "-vf", "setpts='if(gte(N,\(after)),PTS+\(jump)/TB,PTS)'", "-c:v", "mjpeg", "-q:v", "8", path])
        return (result.status == 0 ? path : nil, result.stderr)
    }

    /// A clip made by make-clip: `kind` blank, sweep, screen or shake; `codec` mjpeg, h264
    /// or yuyv. Returns its path, or nil (with make-clip's message) when it failed. A clip
    /// asked for again (the same arguments, container and code picture: make-clip draws the
    /// same frames from its fixed seed) is a copy of the first one this test process made.
    package static func make(_ kind: String, in directory: String, code: String? = nil, size: String = "640x480",
                             codec: String = "mjpeg", seconds: Double = 2.5, fps: Int = 15, name: String? = nil,
                             extra: [String] = []) -> (path: String?, error: String) {
        let path = directory + "/" + (name ?? "\(kind)-\(codec)-\(size).mkv")
        let options = ["--size", size, "--codec", codec, "--seconds", "\(seconds)", "--fps", "\(fps)"] + extra
        let container = (path as NSString).pathExtension
        var key = ([kind, container] + options).joined(separator: "\u{0}")
        if let code {
            guard let picture = FileManager.default.contents(atPath: code) else { return (nil, "no code picture at \(code)") }
            key += "\u{0}" + picture.base64EncodedString()
        }
        return MadeClips.shared.clip(key, extension: container, to: path) { made in
            run([packageRoot + "/Tests/scripts/make-clip", kind, made] + options + (code.map { ["--code", $0] } ?? [])
                + ["--rooms", MadeClips.shared.rooms])
        }
    }
}

/// The clips this test process has made, by their arguments, in a folder of its own (removed
/// when the process exits). Two tests asking for the same clip at once: one makes it, the
/// other waits for it.
private final class MadeClips: @unchecked Sendable {
    static let shared = MadeClips()
    private let folder = TemporaryFolder("lomme-clips")
    /// Where make-clip keeps the empty rooms it drew, for the next clip of the same size (`--rooms`).
    var rooms: String { folder.path + "/rooms" }
    private let lock = NSLock()
    private var made: [String: String] = [:]
    private var making: [String: NSLock] = [:]
    private static let removed: Void = { atexit { MadeClips.shared.removeFolder() } }()

    /// Copies the clip `key` names to `path`, making it first with `make` (given the path to
    /// write) unless it was made already.
    func clip(_ key: String, extension ext: String, to path: String,
              make: (String) -> (status: Int32, stderr: String)) -> (path: String?, error: String) {
        Self.removed
        let keyLock = lock.withLock { () -> NSLock in
            if let existing = making[key] { return existing }
            let new = NSLock()
            making[key] = new
            return new
        }
        return keyLock.withLock {
            let source: String
            if let existing = lock.withLock({ made[key] }) {
                source = existing
            } else {
                source = folder.path + "/" + UUID().uuidString + "." + ext
                let result = make(source)
                guard result.status == 0 else { return (nil, result.stderr) }
                lock.withLock { made[key] = source }
            }
            do {
                // as make-clip does, a clip of the same name is replaced
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
                try FileManager.default.copyItem(atPath: source, toPath: path)
            } catch {
                return (nil, "copying the clip: \(error)")
            }
            return (path, "")
        }
    }

    private func removeFolder() { try? FileManager.default.removeItem(atPath: folder.path) }
}
