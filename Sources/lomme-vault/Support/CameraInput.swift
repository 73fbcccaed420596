import Glibc
import LommeCamera
import LommeCore
import LommeImages
import LommeScan

/// `--camera`: frames from the webcam or a video file (LommeCamera) until one holds a code
/// `accept` takes; on a terminal, the preview redrawn in place on stderr (CameraPreview).
/// Ctrl-C ends it with exit 130 and the terminal as it was.
enum CameraInput {
    /// The first code `accept` takes. `rejected` says what a code seen that it does not take
    /// is (once per payload, on stderr; the scan goes on). Throws code 2: no camera, no
    /// permission, busy, the file's end or the timeout with nothing taken.
    /// `sought` names what is looked for in the messages ("QR code", "QR code holding a
    /// lomme-vault config").
    static func read(_ options: CameraOptions, sought: String, accept: (Decoded) -> Bool,
                     rejected: (Decoded) -> String) throws(LommeError) -> Decoded {
        let timeout = (try? options.timeoutSeconds()) ?? 120
        var info = stat()
        if options.everyFrame, stat(options.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR {
            throw LommeError.usage(.optionsConflict, "--every-frame reads a video file, and \(ImageLimits.display(options.path)) is a camera; leave it out, or name a recording with --device")
        }
        let source = try FrameSource(path: options.path)
        // A camera's frames (and a file's, played as a camera would send them) are dropped
        // while one is scanned, each within a budget; --every-frame scans each of a file's
        // frames in turn with no budget, however long that takes.
        let live = LiveScan(source: source, options: options.everyFrame
            ? LiveOptions(timeout: .seconds(Int(timeout)), frameBudget: nil, pace: .everyFrame)
            : LiveOptions(timeout: .seconds(Int(timeout))))
        let preview = CameraPreview.start()
        defer { preview?.end() }
        let (outcome, _) = try live.run(accept: accept) { event in
            switch event {
            case .frame(let frame): preview?.draw(frame.image)
            case .rejected(let decoded):
                let note = "lomme-vault: " + TerminalText.line(rejected(decoded))
                if let preview { preview.note(note) } else { Terminal.info(note) }
            }
        }
        let shown = ImageLimits.display(options.path)
        switch outcome {
        case .found(let decoded, let frame):
            preview?.draw(frame.image, marked: true)
            preview?.end()
            Terminal.info("Read a QR code from \(shown) (frame \(frame.index + 1)).")
            return decoded
        case .ended:
            throw LommeError.image(.noCodeFound, "no \(sought) in \(shown) (read to its end)")
        case .timedOut, .stopped:
            let time = DurationText.format(UInt64(timeout))
            if !source.isDevice { throw LommeError.image(.noCodeInTime, "no \(sought) in the first \(time) of \(shown) (--timeout)") }
            throw LommeError.image(.noCodeInTime, "no \(sought) seen by the camera \(shown) in \(time); hold the code 15-30 cm from the camera, filling about a third of the picture, evenly lit, and try again (or a longer --timeout)")
        }
    }
}

/// The camera preview on stderr: what the camera sees, in grey half blocks, redrawn in place;
/// only when stdout and stderr are both terminals. The cursor is hidden while it runs and
/// shown again on every way out: the normal end, an error (`end()` in a defer), Ctrl-C (130),
/// SIGTERM, SIGHUP and SIGQUIT, and a crash (SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS,
/// SIGFPE: the handlers below, which then let the signal end the process as it would have).
final class CameraPreview {
    /// Rows drawn last time (the cursor is below them).
    private var drawn = 0

    /// The preview, or nil when stdout or stderr is not a terminal (nothing is drawn then);
    /// the signal handlers are set either way, so Ctrl-C is exit 130.
    static func start() -> CameraPreview? {
        installHandlers()
        guard Terminal.isTerminal(STDOUT_FILENO), Terminal.isTerminal(STDERR_FILENO) else { return nil }
        active = 1
        Terminal.write(hideCursor, to: STDERR_FILENO)
        return CameraPreview()
    }

    func draw(_ image: GrayImage, marked: Bool = false) {
        guard CameraPreview.active == 1 else { return }
        var size = winsize()
        let known = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        let columns = known ? Int(size.ws_col) : 80, rows = known ? Int(size.ws_row) : 24
        var text = drawn > 0 ? "\u{1B}[\(drawn)A\r" : "\r"
        guard let fit = PreviewText.size(width: image.width, height: image.height, columns: columns, rows: rows) else {
            // too small a window: nothing drawn (what was is cleared)
            if drawn > 0 { Terminal.write(text + "\u{1B}[J", to: STDERR_FILENO) }
            drawn = 0
            return
        }
        let lines = PreviewText.render(image, columns: fit.columns, rows: fit.rows, marked: marked)
        text += lines.map { $0 + "\u{1B}[K\n" }.joined()
        let caption = marked ? "\u{1B}[1mQR code found\u{1B}[0m" : "Aim the camera at the QR code (Ctrl-C to stop)"
        text += caption + "\u{1B}[K\n\u{1B}[J"
        drawn = lines.count + 1
        Terminal.write(text, to: STDERR_FILENO)
    }

    /// A line above the preview: the preview is cleared and drawn again under it.
    func note(_ line: String) {
        var text = drawn > 0 ? "\u{1B}[\(drawn)A\r\u{1B}[J" : ""
        text += line + "\n"
        drawn = 0
        Terminal.write(text, to: STDERR_FILENO)
    }

    /// The cursor shown again; the signal handlers back to the defaults. Safe to call twice.
    func end() {
        if CameraPreview.active == 1 {
            CameraPreview.active = 0
            Terminal.write("\u{1B}[0m" + CameraPreview.showCursor, to: STDERR_FILENO)
        }
        for number in [SIGINT] + Self.restoring { signal(number, SIG_DFL) }
    }

    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"
    /// 1 while the cursor is hidden: read by the signal handler.
    nonisolated(unsafe) static var active: sig_atomic_t = 0

    /// The signals whose default action the preview keeps, after restoring the terminal:
    /// those that end a process, and those of a crash (the default set by
    /// `Hardening.disableCrashReporter`, which prints nothing).
    static let restoring = [SIGTERM, SIGHUP, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE]

    /// Ctrl-C: the terminal restored, exit 130 (the shell's code for SIGINT, which
    /// docs/contract.md names). The others (`restoring`): restored, then the signal's default.
    private static func installHandlers() {
        signal(SIGINT) { _ in
            CameraPreview.restoreFromSignal()
            _exit(130)
        }
        for number in restoring {
            signal(number) { received in
                CameraPreview.restoreFromSignal()
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }

    /// The cursor shown again if the preview hid it; only async-signal-safe calls (write(2)),
    /// for the signal handlers and a library that cannot be loaded (Terminal.libraryFailure).
    static func restoreFromSignal() {
        guard active == 1 else { return }
        active = 0
        let text: StaticString = "\u{1B}[0m\u{1B}[?25h\n"
        _ = Glibc.write(STDERR_FILENO, text.utf8Start, text.utf8CodeUnitCount)
    }
}
