import ArgumentParser
import LommeCore

/// `--camera`, `--device`, `--timeout` and `--every-frame`, for `import` and `scan`.
struct CameraOptions: ParsableArguments {
    @Flag(name: .customLong("camera"), help: "Read the code live from a webcam (or --device), showing what it sees on a terminal.")
    var camera = false
    @Option(name: .customLong("device"), help: ArgumentHelp(
        "With --camera: the webcam (default /dev/video0) or a video file to read instead.", valueName: "DEV|FILE"))
    var device: String?
    @Option(name: .customLong("timeout"), help: ArgumentHelp(
        "With --camera: give up after this long with nothing seen (exit 2); of a video file, this much of its own time.", valueName: "DURATION"))
    var timeout: String?
    @Flag(name: .customLong("every-frame"), help: ArgumentHelp(
        "With --camera and a video file: scan every frame in turn, none dropped, with no time limit a frame (slower than real time: to check what a recording holds)."))
    var everyFrame = false

    static let defaultDevice = "/dev/video0"
    static let defaultTimeout = "2m"
    /// A day: longer is surely a typo.
    static let longestTimeout: UInt32 = 86400

    /// The timeout in seconds; usage errors for --device or --timeout without --camera.
    func validate() throws {
        if !camera {
            if device != nil { throw ValidationError("--device goes with --camera") }
            if timeout != nil { throw ValidationError("--timeout goes with --camera") }
            if everyFrame { throw ValidationError("--every-frame goes with --camera") }
        }
        if let device, device.isEmpty { throw ValidationError("--device takes a webcam such as /dev/video0 or a video file") }
        _ = try timeoutSeconds()
    }

    func timeoutSeconds() throws -> UInt32 {
        try DurationOption.seconds(timeout ?? Self.defaultTimeout, option: "--timeout", atMost: Self.longestTimeout)
    }

    var path: String { device ?? Self.defaultDevice }
}
