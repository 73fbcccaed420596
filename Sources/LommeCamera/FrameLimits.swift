import CFFmpeg
import LommeCore
import LommeImages

/// What a camera or video file may be: FFmpeg parses untrusted bytes (docs/threat-model.md),
/// so it is given only the parts a webcam or a screen recording needs, and frames of a
/// bounded size.
package enum FrameLimits {
    /// The demuxers a file may be read with (FFmpeg's `format_whitelist`): Matroska/WebM,
    /// MP4/QuickTime, AVI, MJPEG, raw H.264. Never a playlist (HLS, concat), which could
    /// name other files.
    static let demuxers = "matroska,webm,mov,mp4,m4a,3gp,3g2,mj2,avi,mjpeg,h264,mpjpeg"
    /// The decoders used (a webcam sends MJPEG or raw YUV; phones and screen recorders H.264,
    /// HEVC, VP8/9, AV1).
    static let decoders: Set<String> = ["mjpeg", "h264", "rawvideo", "hevc", "vp8", "vp9", "libdav1d", "av1", "mpeg4"]
    /// How much of a file FFmpeg reads to find its streams.
    static let probeBytes = 5_000_000
    /// A frame's pixels at most (about 4K, 3840 × 2160 is 8.3 MP) and its longest side.
    package static let maximumPixels = 8_388_608 + 1024 * 1024
    package static let maximumSide = 8192
    /// Frames are scanned with their long side at most this (the scanner's working view).
    package static let longSide = 1280

    static let logQuiet: Int32 = -8  // AV_LOG_QUIET
    static let nonBlocking: Int32 = 0x0004  // AVFMT_FLAG_NONBLOCK
    static let noTimestamp = Int64.min  // AV_NOPTS_VALUE
    static let sameSizeFlags: Int32 = 4  // SWS_POINT: a copy of the luma
    static let reducingFlags: Int32 = 2  // SWS_BILINEAR

    static func check(width: Int, height: Int, path: String) throws(LommeError) {
        guard width > 0, height > 0, width <= maximumSide, height <= maximumSide, width * height <= maximumPixels else {
            throw LommeError.image(.videoFramesTooLarge, "the frames of \(ImageLimits.display(path)) are \(width)×\(height) pixels, over lomme-vault's limit of 9 MP a frame")
        }
    }

    /// `width` × `height` reduced so the long side is at most `longSide`.
    package static func reduced(width: Int, height: Int) -> (Int, Int) {
        let long = max(width, height)
        guard long > longSide else { return (width, height) }
        return (max(1, width * longSide / long), max(1, height * longSide / long))
    }
}

/// FFmpeg's error codes (the AVERROR macros Swift cannot call) and the messages for them.
enum FrameErrors {
    static let again = -EAGAIN_
    /// AVERROR_EOF, `-MKTAG('E','O','F',' ')`.
    static let endOfFile: Int32 = -Int32(bitPattern: UInt32(0x45) | UInt32(0x4F) << 8 | UInt32(0x46) << 16 | UInt32(0x20) << 24)
    private static let EAGAIN_: Int32 = 11

    /// The error for a source that cannot be opened: what to do about it.
    static func open(_ path: String, code: Int32, device: Bool) -> LommeError {
        let shown = ImageLimits.display(path)
        switch -code {
        case 2 /* ENOENT */, 19 /* ENODEV */, 6 /* ENXIO */:
            return device
                ? LommeError.image(.cameraMissing, "no camera at \(shown); plug one in, or name another with --device (ls /dev/video*); a user needs the group video to use it")
                : LommeError.image(.videoMissing, "no such file: \(shown)")
        case 13 /* EACCES */, 1 /* EPERM */:
            return device
                ? LommeError.image(.cameraNoPermission, "no permission to read the camera \(shown); add yourself to the group video (sudo adduser $USER video) and log in again")
                : LommeError.image(.videoNoPermission, "no permission to read \(shown)")
        case 16 /* EBUSY */ where device:
            return LommeError.image(.cameraBusy, "the camera \(shown) is busy: another program is using it; close it and try again (a user needs the group video to use it)")
        default:
            return device
                ? LommeError.image(.cameraUnopenable, "cannot open the camera \(shown) (\(describe(code))); check it works (a user needs the group video to use it)")
                : notAVideo(path, code: code)
        }
    }

    static func notAVideo(_ path: String, code: Int32) -> LommeError {
        LommeError.image(.videoUnreadable, "\(ImageLimits.display(path)) is not a video lomme-vault can read (\(describe(code))); give a recording in MJPEG, H.264 or raw YUV (Matroska, MP4 or AVI), or read a photo without --camera")
    }

    static func read(_ path: String, code: Int32) -> LommeError {
        LommeError.image(.cameraStopped, "the camera \(ImageLimits.display(path)) stopped sending frames (\(describe(code))); plug it in again and retry")
    }

    /// FFmpeg's text for an error code.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "error \(code)" }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return TerminalText.line(String(decoding: text, as: UTF8.self)).lowercased()
    }
}
