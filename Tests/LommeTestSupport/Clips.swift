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
    /// or yuyv. Returns its path, or nil (with make-clip's message) when it failed.
    package static func make(_ kind: String, in directory: String, code: String? = nil, size: String = "640x480",
                             codec: String = "mjpeg", seconds: Double = 2.5, fps: Int = 15, name: String? = nil,
                             extra: [String] = []) -> (path: String?, error: String) {
        let path = directory + "/" + (name ?? "\(kind)-\(codec)-\(size).mkv")
        var arguments = [packageRoot + "/Tests/scripts/make-clip", kind, path, "--size", size, "--codec", codec,
                         "--seconds", "\(seconds)", "--fps", "\(fps)"] + extra
        if let code { arguments += ["--code", code] }
        let result = run(arguments)
        return (result.status == 0 ? path : nil, result.stderr)
    }
}
