import Foundation
import LommeTestSupport
import Testing

/// `import --camera` and `scan --camera` driven through the built binary, with clips the test
/// makes (Tests/scripts/make-clip: ImageMagick frames, the `ffmpeg` command) played through
/// `--device`: the same decoding path a webcam's frames take. Real FFmpeg, real zbar.
///
/// Where a test needs a code read, the clip is read with `--every-frame` (each frame in turn,
/// none dropped, no time limit): played at a camera's pace, a loaded machine drops frames and
/// can reach the clip's end before it reads one, so the verdict would depend on its speed.
/// What the camera's pace does (frames dropped, the budget, the timeout) is proved by
/// LommeCameraTests on a clock and a camera the test keeps.
@Suite("Camera: import and scan from a clip")
struct CameraImportTests {
    static let phrase = "camera passphrase 2026"

    /// A vault with a passphrase file, and the code of `config` as a PNG.
    static func setUp(_ box: CLI.Sandbox, config: String = Sample.configA) throws -> (pw: String, code: String) {
        let pw = box.write("pw", phrase + "\n")
        try #require(CLI.run(["init", "--vault", box.vault, "--passphrase-file", pw]).status == 0)
        let code = box.path + "/code.png"
        try #require(Clips.code(config, to: code))
        return (pw, code)
    }

    /// 1.5 s: the empty scene's 9 frames, then 13 with the code (today the first of them is
    /// read, and the sixth of a sweep's, its last moving frame).
    static func clip(_ kind: String, in box: CLI.Sandbox, code: String? = nil, size: String = "640x480",
                     codec: String = "mjpeg", seconds: Double = 1.5) throws -> String {
        let made = Clips.make(kind, in: box.path, code: code, size: size, codec: codec, seconds: seconds)
        return try #require(made.path, "make-clip: \(made.error)")
    }

    /// Each kind of clip, in each codec and both sizes (a Latin square: every kind in every
    /// codec, every codec at both sizes): the config is stored from the camera. The clips
    /// hold LommeCameraTests' config, so the two clips both ask for are made once.
    @Test(arguments: [
        ("sweep", "mjpeg", "640x480"), ("screen", "h264", "640x480"), ("shake", "yuyv", "640x480"),
        ("screen", "mjpeg", "1280x720"), ("shake", "h264", "1280x720"), ("sweep", "yuyv", "1280x720"),
    ])
    func importsTheConfigFromTheFirstReadableFrames(kind: String, codec: String, size: String) throws {
        let box = CLI.Sandbox()
        let (pw, code) = try Self.setUp(box, config: Clips.config)
        let clip = try Self.clip(kind, in: box, code: code, size: size, codec: codec)
        let result = CLI.run(["import", "--camera", "--device", clip, "--every-frame", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw])
        #expect(result.status == 0, "\(kind) \(codec) \(size): \(result.stderr)")
        #expect(result.stderr.contains("Read a QR code from"), "\(result.stderr)")
        #expect(result.stderr.contains("Stored in"), "\(result.stderr)")
        // the preview is for terminals only
        #expect(!result.stderr.contains("\u{1B}[") && !result.stderr.contains("▀"))
        let secret = CLI.run(["get", "clientSecret", "--vault", box.vault, "--passphrase-file", pw])
        #expect(secret.out == Clips.configSecret, "\(secret.stderr)")
    }

    /// A dark-mode screen (light modules of lit sub-pixels on an unlit screen) at 1280×720:
    /// the negated threshold is one of the three passes every frame gets.
    @Test func importsFromADarkModeScreen() throws {
        let box = CLI.Sandbox()
        let (pw, code) = try Self.setUp(box)
        let made = Clips.make("screen", in: box.path, code: code, size: "1280x720", codec: "h264", seconds: 1.5, name: "dark.mkv", extra: ["--dark"])
        let clip = try #require(made.path, "make-clip: \(made.error)")
        let result = CLI.run(["import", "--camera", "--device", clip, "--every-frame", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw])
        #expect(result.status == 0, "\(result.stderr)")
        let secret = CLI.run(["get", "clientSecret", "--vault", box.vault, "--passphrase-file", pw])
        #expect(secret.out == Sample.secretA, "\(secret.stderr)")
    }

    @Test func aClipWithNoCodeEndsWithExitTwoAndStoresNothing() throws {
        let box = CLI.Sandbox()
        let clip = try Self.clip("blank", in: box, codec: "h264", seconds: 1.5)
        let pw = box.write("pw", Self.phrase + "\n")
        let result = CLI.run(["import", "--camera", "--device", clip, "--yes", "--vault", box.vault, "--passphrase-file", pw])
        #expect(result.status == 2)
        #expect(result.stderr == "lomme-vault: no QR code holding a lomme-vault config in \(clip) (read to its end)\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.vault))
        let scan = CLI.run(["scan", "--camera", "--device", clip])
        #expect(scan.status == 2 && scan.out.isEmpty)
        #expect(scan.reason == .noCodeFound, "\(scan.stderr)")
    }

    /// A video file's timeout counts the file's own time (its frames' timestamps): its first
    /// second, however fast or slow the machine reads it, played at a camera's pace or frame by
    /// frame. (The 10 minutes are only a guard against a hang.)
    @Test(arguments: [[], ["--every-frame"]])
    func theTimeoutEndsALongClipWithExitTwo(pace: [String]) throws {
        let box = CLI.Sandbox()
        let clip = try Self.clip("blank", in: box, seconds: 8)
        let result = CLI.run(["scan", "--camera", "--device", clip, "--timeout", "1s"] + pace, timeout: 600)
        #expect(result.status == 2 && result.signal == nil, "\(result.stderr)")
        #expect(result.stderr == "lomme-vault: no QR code in the first 1s of \(clip) (--timeout)\n", "\(result.stderr)")
    }

    /// A hostile clip whose timestamps leap 10^10 s after its fifth frame (31 KB once ended
    /// both commands with SIGILL: a frame's time turned into nanoseconds in 64 bits): exit 2
    /// and one line, the leap being past the default timeout of 2 minutes of the file's time.
    @Test(arguments: [[], ["--every-frame"]])
    func aClipWhoseTimestampsLeapEndsWithExitTwo(pace: [String]) throws {
        let box = CLI.Sandbox()
        let made = Clips.jumping(in: box.path, name: "leap.mkv", jump: "1e10")
        let clip = try #require(made.path, "ffmpeg: \(made.error)")
        let scan = CLI.run(["scan", "--camera", "--device", clip] + pace, timeout: 600)
        #expect(scan.status == 2 && scan.signal == nil, "exit \(scan.status): \(scan.stderr)")
        #expect(scan.stderr == "lomme-vault: no QR code in the first 2m of \(clip) (--timeout)\n", "\(scan.stderr)")
        let pw = box.write("pw", Self.phrase + "\n")
        let imported = CLI.run(["import", "--camera", "--device", clip, "--yes", "--vault", box.vault, "--passphrase-file", pw] + pace, timeout: 600)
        #expect(imported.status == 2 && imported.signal == nil, "exit \(imported.status): \(imported.stderr)")
        #expect(imported.stderr == "lomme-vault: no QR code holding a lomme-vault config in the first 2m of \(clip) (--timeout)\n", "\(imported.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.vault))
    }

    /// A code that is not a config, in every frame: said once, and the search goes on to the end.
    @Test func aCodeThatIsNotAConfigIsSaidOnce() throws {
        let box = CLI.Sandbox()
        let code = box.path + "/other.png"
        try #require(Clips.code("https://example.com/not-a-config", to: code))
        let clip = try Self.clip("sweep", in: box, code: code)
        let pw = box.write("pw", Self.phrase + "\n")
        let result = CLI.run(["import", "--camera", "--device", clip, "--every-frame", "--yes", "--vault", box.vault, "--passphrase-file", pw])
        #expect(result.status == 2)
        #expect(result.stderr.components(separatedBy: "is not a lomme-vault config").count == 2, "\(result.stderr)")
        #expect(result.stderr.hasSuffix("(read to its end)\n"), "\(result.stderr)")
        let scan = CLI.run(["scan", "--camera", "--device", clip, "--every-frame", "--raw"])
        #expect(scan.status == 0 && scan.out == "https://example.com/not-a-config", "\(scan.stderr)")
    }

    /// After the frame, the photo's path: the same checks, the same words.
    @Test func theCameraFailsTheSameChecksAsAPhoto() throws {
        let box = CLI.Sandbox()
        let (pw, code) = try Self.setUp(box)  // Sample.configA fails the national id check
        let clip = try Self.clip("shake", in: box, code: code, codec: "h264")
        let photo = CLI.run(["import", code, "--yes", "--vault", box.vault, "--passphrase-file", pw])
        let camera = CLI.run(["import", "--camera", "--device", clip, "--every-frame", "--yes", "--vault", box.vault, "--passphrase-file", pw])
        #expect(photo.status == 7 && camera.status == photo.status, "\(camera.stderr)")
        #expect(camera.stderr.hasSuffix(photo.stderr), "photo: \(photo.stderr)\ncamera: \(camera.stderr)")
        let scan = CLI.run(["scan", "--camera", "--device", clip, "--every-frame"])
        let scanPhoto = CLI.run(["scan", code])
        #expect(scan.status == 0 && scan.out == scanPhoto.out.replacingOccurrences(of: code, with: clip), "\(scan.out)")
        #expect(!scan.out.contains(Sample.secretA))
    }

    /// A sealed code from `issue --output`, shown to the camera: the issuer pinned as for a
    /// photo, and then a plain code from the camera refused as for a photo. A sealed code's
    /// bytes are new each run (fresh keys and nonce), so its clip is one such codes read from
    /// with a margin: held to the camera (`sweep`), 7 of the clip's 22 frames read for each of
    /// 8 codes tried (30 of 30 clips read). From a 640×480 screen clip, 1 to 6 frames read,
    /// and one code in 30 read in none: the test failed now and then.
    @Test func aSealedCodeFromTheCameraPinsItsIssuerAndAPlainOneIsThenRefused() throws {
        let box = CLI.Sandbox()
        let child = try SealedFlowTests.Device("child", in: box)
        let parent = try SealedFlowTests.Device("parent", in: box)
        let json = box.write("config.json", Sample.configB)
        let sealed = box.path + "/sealed.png"
        let issued = parent.run(["issue", "--from", json, "--to", child.key.text, "--no-check", "--output", sealed])
        try #require(issued.status == 0, "issue: \(issued.stderr)")
        let issuerLine = try #require(issued.stderr.split(separator: "\n").first { $0.hasPrefix("Issuer fingerprint: ") })
        let issuer = String(issuerLine.dropFirst("Issuer fingerprint: ".count))
        let clip = try Self.clip("sweep", in: box, code: sealed, codec: "h264")
        let scan = CLI.run(["scan", "--camera", "--device", clip, "--every-frame"])
        #expect(scan.out.contains("sealed lomme-vault code") && scan.out.contains("lomme-vault import --camera --device \(clip)"), "\(scan.out)")
        let imported = child.run(["import", "--camera", "--device", clip, "--every-frame", "--expect-issuer", issuer, "--yes", "--no-check"])
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("Issuer \(issuer)"), "\(imported.stderr)")
        #expect(child.run(["get", "clientSecret"]).out == Sample.secretB)
        // a plain code now: refused from the camera exactly as from a photo
        let plain = box.path + "/plain.png"
        try #require(Clips.code(Sample.configA, to: plain))
        let plainClip = try Self.clip("sweep", in: box, code: plain, codec: "yuyv")
        let fromPhoto = child.run(["import", plain, "--yes", "--no-check"])
        let fromCamera = child.run(["import", "--camera", "--device", plainClip, "--every-frame", "--yes", "--no-check"])
        #expect(fromPhoto.status == 7 && fromCamera.status == 7, "\(fromCamera.stderr)")
        #expect(fromCamera.stderr.hasSuffix(fromPhoto.stderr), "photo: \(fromPhoto.stderr)\ncamera: \(fromCamera.stderr)")
        #expect(child.run(["get", "clientSecret"]).out == Sample.secretB)
    }

    @Test func noCameraIsExitTwoNamingTheVideoGroup() {
        let result = CLI.run(["import", "--camera", "--device", "/dev/video-lomme-none", "--yes"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("lomme-vault: no camera at /dev/video-lomme-none;") && result.reason == .cameraMissing, "\(result.stderr)")
    }

    /// A camera the user may not open: exit 2 naming the group video. The device node is made
    /// here (mknod needs root) and opened as nobody.
    @Test(.enabled(if: getuid() == 0, "mknod and setpriv need root"))
    func noPermissionIsExitTwoNamingTheVideoGroup() throws {
        let box = CLI.Sandbox()
        chmod(box.path, 0o755)
        let node = box.path + "/video9"
        try #require(mknod(node, S_IFCHR | 0o600, dev_t((1 << 8) | 3)) == 0, "mknod: \(errno)")
        let result = CLI.run(["scan", "--camera", "--device", node],
                             shell: "exec setpriv --reuid=65534 --regid=65534 --clear-groups \"$LV\" \"$@\"")
        #expect(result.status == 2)
        #expect(result.stderr == "lomme-vault: no permission to read the camera \(node); add yourself to the group video (sudo adduser $USER video) and log in again\n", "\(result.stderr)")
    }

    /// FFmpeg is loaded only by --camera, and without it --camera says which package to
    /// install (exit 2): libavformat hidden in a mount namespace of the test's own
    /// (an empty file bound over it), where a photo still scans. The clip is never read: any
    /// will do (a blank one LommeCameraTests make too).
    @Test(.enabled(if: getuid() == 0, "unshare -m and mount need root"))
    func withoutFFmpegTheCameraNamesThePackageAndPhotosStillScan() throws {
        let box = CLI.Sandbox()
        let code = box.path + "/code.png"
        try #require(Clips.code(Sample.configB, to: code))
        let clip = try Self.clip("blank", in: box, seconds: 1)
        let library = "/usr/lib/x86_64-linux-gnu/libavformat.so.59"
        try #require(FileManager.default.fileExists(atPath: library))
        let hide = "unshare -m sh -c 'mount --bind /dev/null \(library) && exec \"$0\" \"$@\"' \"$LV\""
        let probe = CLI.run([], shell: "unshare -m true")
        try #require(probe.status == 0, "this machine allows no mount namespace: \(probe.stderr)")
        let camera = CLI.run(["scan", "--camera", "--device", clip], shell: hide + " \"$@\"")
        #expect(camera.status == 2)
        #expect(camera.reason == .libraryMissing && camera.stderr.hasPrefix("lomme-vault: cannot load libavformat.so.59, needed for reading a camera or a video (install the Debian package libavformat59): "), "\(camera.stderr)")
        let photo = CLI.run(["scan", code], shell: hide + " \"$@\"")
        #expect(photo.status == 0 && photo.out.contains("plain config"), "\(photo.stderr)")
    }

    /// A character device that is no camera (/dev/null): exit 2, not a hang or a crash.
    @Test func aDeviceThatIsNoCameraIsExitTwo() {
        let result = CLI.run(["import", "--camera", "--device", "/dev/null", "--yes"], timeout: 600)
        #expect(result.status == 2)
        #expect(result.reason == .cameraUnopenable, "\(result.stderr)")
        // --every-frame is for a video file: a camera sends frames at its own pace.
        let every = CLI.run(["scan", "--camera", "--device", "/dev/null", "--every-frame"], timeout: 600)
        #expect(every.status == 64)
        #expect(every.stderr == "lomme-vault: --every-frame reads a video file, and /dev/null is a camera; leave it out, or name a recording with --device\n", "\(every.stderr)")
    }

    @Test func cameraOptionsAreChecked() {
        for arguments in [["import", "--camera", "photo.png"], ["import", "--camera", "--stdin"], ["import", "--device", "/dev/video0"],
                          ["scan", "--timeout", "1m", "x.png"], ["scan", "--camera", "--timeout", "soon"], ["scan", "--camera", "x.png"],
                          ["scan", "--every-frame", "x.png"], ["import", "--every-frame", "--stdin"]] {
            let result = CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
    }
}

/// The preview on a real terminal (tmux).
@Suite("Camera preview on a terminal (tmux)")
struct CameraPreviewTests {
    static func cursorShown(_ tty: TmuxSession) -> Bool {
        tty.tmux(["display-message", "-p", "-t", "t", "#{cursor_flag}"]).hasPrefix("1")
    }

    /// A clip that pauses for an hour after its fifth frame (its timestamps leap 3600 s): read
    /// at a camera's pace, the scan waits there, the preview drawn, until the test acts,
    /// however fast or slow the machine.
    static func pausing(in box: CLI.Sandbox) throws -> String {
        let made = Clips.jumping(in: box.path, name: "pause.mkv", jump: "3600")
        return try #require(made.path, "ffmpeg: \(made.error)")
    }

    @Test func theFoundCodeIsMarkedBeforeTheSummaryAndTheCursorComesBack() throws {
        let box = CLI.Sandbox()
        let code = box.path + "/code.png"
        try #require(Clips.code(Sample.configB, to: code))
        let clip = try CameraImportTests.clip("sweep", in: box, code: code, seconds: 3)
        let tty = TmuxSession(box, command: "\"$LV\" scan --camera --device '\(clip)' --every-frame", columns: 100, rows: 40)
        try #require(tty.wait(for: "EXIT="))
        let screen = tty.screen
        #expect(screen.contains("EXIT=0"), "\(screen)")
        let found = try #require(screen.range(of: "QR code found"), "\(screen)")
        let summary = try #require(screen.range(of: "plain config"), "\(screen)")
        #expect(found.lowerBound < summary.lowerBound)
        // one picture drawn in place (not one per frame), of half blocks, fitting the window
        let rows = screen.split(separator: "\n").filter { $0.contains("▀") }
        #expect(rows.count >= 6 && rows.count <= 40, "\(screen)")
        #expect(rows.allSatisfy { $0.count <= 100 })
        #expect(!screen.contains("Aim the camera"), "the preview was drawn below itself, not in place:\n\(screen)")
        #expect(Self.cursorShown(tty), "the cursor stayed hidden")
    }

    @Test func ctrlCIsExit130WithTheTerminalRestored() throws {
        let box = CLI.Sandbox()
        let clip = try Self.pausing(in: box)
        // The script's shell ignores SIGINT so that it lives to print the exit status.
        let tty = TmuxSession(box, command: "trap '' INT; \"$LV\" scan --camera --device '\(clip)' --timeout 2h", columns: 80, rows: 30)
        try #require(tty.wait(for: "Aim the camera"))
        #expect(!Self.cursorShown(tty), "the cursor is hidden while drawing")
        tty.tmux(["send-keys", "-t", "t", "C-c"])
        try #require(tty.wait(for: "EXIT="))
        #expect(tty.screen.contains("EXIT=130"), "\(tty.screen)")
        #expect(Self.cursorShown(tty), "the cursor stayed hidden")
    }

    /// A scan that ends in an error, once the preview has hidden the cursor, shows it again:
    /// the clip's end, the timeout (the file's own time: its next frame an hour on), and a
    /// hostile clip whose timestamps leap 10^10 s (once SIGILL, the cursor left hidden).
    @Test(arguments: [
        ("end", "read to its end"), ("timeout", "in the first 1s of"), ("leap", "in the first 2m of"),
    ])
    func aScanEndingInAnErrorShowsTheCursorAgain(way: String, words: String) throws {
        let box = CLI.Sandbox()
        let clip: String
        var options = ""
        switch way {
        case "end": clip = try CameraImportTests.clip("blank", in: box, seconds: 1)
        case "timeout":
            clip = try Self.pausing(in: box)
            options = " --timeout 1s"
        default: clip = try #require(Clips.jumping(in: box.path, name: "leap.mkv", jump: "1e10").path)
        }
        let tty = TmuxSession(box, command: "\"$LV\" scan --camera --device '\(clip)'\(options)", columns: 80, rows: 30)
        try #require(tty.wait(for: "EXIT="))
        let screen = tty.screen
        #expect(screen.contains("EXIT=2") && screen.contains(words), "\(screen)")
        #expect(screen.contains("Aim the camera"), "the preview was never drawn, so the cursor never hidden:\n\(screen)")
        #expect(Self.cursorShown(tty), "\(way): the cursor stayed hidden")
    }

    /// Ended by a signal while the preview is drawn: SIGTERM, and a crash's (SIGSEGV): the
    /// cursor is shown again, and the signal still ends the process (128 + its number).
    @Test(arguments: [SIGTERM, SIGSEGV])
    func aSignalShowsTheCursorAgain(signal: Int32) throws {
        let box = CLI.Sandbox()
        let clip = try Self.pausing(in: box)
        let tty = TmuxSession(box, command: "\"$LV\" scan --camera --device '\(clip)' --timeout 2h", columns: 80, rows: 30)
        try #require(tty.wait(for: "Aim the camera"))
        #expect(!Self.cursorShown(tty), "the cursor is hidden while drawing")
        let pid = try #require(tty.childPid)
        #expect(kill(pid, signal) == 0)
        try #require(tty.wait(for: "EXIT="))
        #expect(tty.screen.contains("EXIT=\(128 + signal)"), "\(tty.screen)")
        #expect(Self.cursorShown(tty), "the cursor stayed hidden after signal \(signal)")
    }
}
