import CFFmpeg
import Glibc
import LommeCore
import LommeImages
import Synchronization

/// One frame, in grey, as the scanner takes it.
package struct Frame: Sendable {
    package var image: GrayImage
    /// Which frame of the source this is, from 0 (frames dropped before it count too).
    package var index: Int
    /// When the source says it was taken, in seconds from the first frame.
    package var time: Double

    package init(image: GrayImage, index: Int, time: Double) {
        self.image = image
        self.index = index
        self.time = time
    }
}

/// Frames from a V4L2 webcam (`/dev/videoN`) or a video file, through FFmpeg: libavdevice's
/// `video4linux2` input for a device, libavformat's probing for a file, then the same
/// decoding (libavcodec) and conversion to grey (libswscale) for both. Only the opening
/// differs, so the recorded clips the tests play cover the path a webcam's frames take.
///
/// FFmpeg parses what it is given, and a video file may be hostile: only plain files (no
/// network or other protocol a playlist could name), only the demuxers and decoders a
/// camera or a screen recording uses (`FrameLimits`), at most `FrameLimits.maximumPixels`
/// a frame (checked before the decoder is opened, and by the decoder itself for every
/// frame). Not thread-safe: one thread reads it (`stop()` may come from another).
package final class FrameSource {
    /// The path it reads, for messages.
    package let path: String
    /// A character device (a webcam), not a file.
    package let isDevice: Bool
    /// The size of the frames as they come (before reduction to `FrameLimits.longSide`).
    package private(set) var width = 0
    package private(set) var height = 0
    /// The stream's frame rate, when it says one (a webcam and most files do).
    package private(set) var frameRate: Double?
    /// The decoder's name (`mjpeg`, `h264`, `rawvideo`, …).
    package private(set) var codec = ""
    /// Frames decoded so far.
    package private(set) var decoded = 0

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var stream: Int32 = -1
    private var timeBase = 0.0
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var scaler: OpaquePointer?
    private var inputEnded = false
    private var finished = false
    private var firstTimestamp: Int64?
    /// Set from another thread to end a blocking read (a webcam waiting for its next frame).
    private let interrupt = InterruptFlag()

    /// Opens `path`: a character device through V4L2, a regular file as a video file.
    /// Throws `LommeError` code 2 (`unreadableImage`) with what to do: no such device or
    /// file, no permission (the `video` group), a busy device, not a video, too big a frame.
    package init(path: String) throws(LommeError) {
        self.path = path
        var info = stat()
        guard stat(path, &info) == 0 else { throw FrameErrors.open(path, code: -errno, device: path.hasPrefix("/dev/")) }
        isDevice = (info.st_mode & S_IFMT) == S_IFCHR
        if !isDevice && (info.st_mode & S_IFMT) != S_IFREG {
            throw LommeError.image(.videoUnreadable, "\(ImageLimits.display(path)) is neither a camera nor a video file; name a camera such as /dev/video0 or a video file with --device")
        }
        // FFmpeg's own messages would reach stderr past the CLI: it says nothing, and its
        // errors come back as codes turned into one line here.
        av_log_set_level(FrameLimits.logQuiet)
        guard let context = avformat_alloc_context() else { throw LommeError.failure(.outOfMemory, "out of memory opening \(ImageLimits.display(path))") }
        context.pointee.interrupt_callback.callback = { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().raised ? 1 : 0
        }
        context.pointee.interrupt_callback.opaque = Unmanaged.passUnretained(interrupt).toOpaque()
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        // Never the network or another file a playlist names: the file is read as it is.
        av_dict_set(&options, "protocol_whitelist", "file", 0)
        var inputFormat: UnsafePointer<AVInputFormat>? = nil
        if isDevice {
            avdevice_register_all()
            inputFormat = av_find_input_format("video4linux2")
            // A camera that stops sending must not hold the reader in a blocking read: with
            // AVFMT_FLAG_NONBLOCK no frame yet is EAGAIN, and `next()` polls, checking `stop()`.
            context.pointee.flags |= FrameLimits.nonBlocking
        } else {
            av_dict_set(&options, "format_whitelist", FrameLimits.demuxers, 0)
            av_dict_set(&options, "probesize", "\(FrameLimits.probeBytes)", 0)
        }
        if isDevice && inputFormat == nil {
            var unused: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&unused)
            throw LommeError.image(.cameraUnsupported, "this FFmpeg reads no camera (no video4linux2 input); install the Debian package libavdevice59")
        }
        var opening: UnsafeMutablePointer<AVFormatContext>? = context
        // On failure avformat_open_input frees the context itself.
        let opened = avformat_open_input(&opening, path, inputFormat, &options)
        guard opened >= 0, let opening else { throw FrameErrors.open(path, code: opened, device: isDevice) }
        format = opening
        try openDecoder()
    }

    deinit { close() }

    /// Frees the decoder and closes the file or device; `next()` then returns nil.
    package func close() {
        if let scaler { sws_freeContext(scaler) }
        scaler = nil
        if frame != nil { av_frame_free(&frame) }
        if packet != nil { av_packet_free(&packet) }
        if decoder != nil { avcodec_free_context(&decoder) }
        if format != nil { avformat_close_input(&format) }
        finished = true
    }

    /// Ends a read that waits for the device (from another thread): `next()` returns nil.
    package func stop() { interrupt.raise() }

    private func openDecoder() throws(LommeError) {
        guard let format else { return }
        if !isDevice {
            let found = avformat_find_stream_info(format, nil)
            if found < 0 { throw FrameErrors.notAVideo(path, code: found) }
        }
        var codecFound: UnsafePointer<AVCodec>? = nil
        let index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &codecFound, 0)
        guard index >= 0, let codecFound, let streams = format.pointee.streams, let stream = streams[Int(index)],
              let parameters = stream.pointee.codecpar else {
            throw LommeError.image(.videoCodecUnsupported, "\(ImageLimits.display(path)) holds no video lomme-vault can read; record MJPEG, H.264 or raw YUV")
        }
        let name = codecFound.pointee.name.map { String(cString: $0) } ?? "?"
        guard FrameLimits.decoders.contains(name) else {
            throw LommeError.image(.videoCodecUnsupported, "\(ImageLimits.display(path)) holds \(TerminalText.line(name)) video, which lomme-vault does not read; record MJPEG, H.264 or raw YUV")
        }
        let w = Int(parameters.pointee.width), h = Int(parameters.pointee.height)
        try FrameLimits.check(width: w, height: h, path: path)
        guard let decoder = avcodec_alloc_context3(codecFound) else { throw LommeError.failure(.outOfMemory, "out of memory opening a decoder") }
        self.decoder = decoder
        guard avcodec_parameters_to_context(decoder, parameters) >= 0 else { throw FrameErrors.notAVideo(path, code: -1) }
        // One thread: the scanner has the other core.
        decoder.pointee.thread_count = 1
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        av_dict_set(&options, "max_pixels", "\(FrameLimits.maximumPixels)", 0)
        let opened = avcodec_open2(decoder, codecFound, &options)
        guard opened >= 0 else { throw FrameErrors.notAVideo(path, code: opened) }
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        guard packet != nil, frame != nil else { throw LommeError.failure(.outOfMemory, "out of memory opening a decoder") }
        self.stream = index
        let base = stream.pointee.time_base
        timeBase = base.den > 0 ? Double(base.num) / Double(base.den) : 0
        let rate = stream.pointee.avg_frame_rate.num > 0 && stream.pointee.avg_frame_rate.den > 0
            ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        frameRate = rate.den > 0 && rate.num > 0 ? Double(rate.num) / Double(rate.den) : nil
        width = w
        height = h
        codec = name
    }

    /// The next frame, in grey, its long side at most `FrameLimits.longSide`; nil at the
    /// end of a file, after `stop()` or `close()`. Throws code 2 when the device goes away
    /// or the file is damaged past reading.
    package func next() throws(LommeError) -> Frame? {
        guard let format, let decoder, let packet, let frame else { return nil }
        while !finished {
            if interrupt.raised { return nil }
            let received = avcodec_receive_frame(decoder, frame)
            if received >= 0 {
                defer { av_frame_unref(frame) }
                guard let image = try gray(frame) else { continue }
                let index = decoded
                decoded += 1
                let stamp = frame.pointee.best_effort_timestamp != FrameLimits.noTimestamp
                    ? frame.pointee.best_effort_timestamp : frame.pointee.pts
                var time = Double(index) / (frameRate ?? 30)
                if stamp != FrameLimits.noTimestamp, timeBase > 0 {
                    let first = firstTimestamp ?? stamp
                    firstTimestamp = first
                    time = Self.seconds(from: first, to: stamp, timeBase: timeBase)
                }
                return Frame(image: image, index: index, time: time)
            }
            // Otherwise the decoder wants the next packet (EAGAIN), or a frame was damaged and
            // it goes on with the next packet all the same.
            if received == FrameErrors.endOfFile || inputEnded { finished = true; return nil }
            let read = av_read_frame(format, packet)
            if read < 0 {
                if interrupt.raised { return nil }
                if read == FrameErrors.again { usleep(2000); continue }
                if isDevice && read != FrameErrors.endOfFile { throw FrameErrors.read(path, code: read) }
                // The end of a file (or a damaged tail): what the decoder holds comes out.
                inputEnded = true
                _ = avcodec_send_packet(decoder, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index == stream {
                // A damaged packet is skipped; the next key frame recovers.
                _ = avcodec_send_packet(decoder, packet)
            }
        }
        return nil
    }

    /// Seconds from the timestamp `first` to `stamp`, in units of `timeBase` seconds. A
    /// hostile file's timestamps are any 64-bit numbers: their difference may not fit in one
    /// (it is then taken in floating point), and the result is always a finite number.
    static func seconds(from first: Int64, to stamp: Int64, timeBase: Double) -> Double {
        let (difference, overflow) = stamp.subtractingReportingOverflow(first)
        let ticks = overflow ? Double(stamp) - Double(first) : Double(difference)
        let seconds = ticks * timeBase
        return seconds.isFinite ? seconds : (ticks < 0 ? -Double.greatestFiniteMagnitude : .greatestFiniteMagnitude)
    }

    /// The decoded frame in grey, reduced so its long side is at most `FrameLimits.longSide`;
    /// nil for a frame whose size is over the limits (a stream may change size).
    private func gray(_ frame: UnsafeMutablePointer<AVFrame>) throws(LommeError) -> GrayImage? {
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        guard w > 0, h > 0, w <= FrameLimits.maximumSide, h <= FrameLimits.maximumSide, w * h <= FrameLimits.maximumPixels else { return nil }
        let (outW, outH) = FrameLimits.reduced(width: w, height: h)
        let source = AVPixelFormat(rawValue: frame.pointee.format)
        scaler = sws_getCachedContext(scaler, Int32(w), Int32(h), source, Int32(outW), Int32(outH), AV_PIX_FMT_GRAY8,
                                      outW == w ? FrameLimits.sameSizeFlags : FrameLimits.reducingFlags, nil, nil, nil)
        guard let scaler else { return nil }
        var pixels = [UInt8](repeating: 0, count: outW * outH)
        let lines = pixels.withUnsafeMutableBufferPointer { out -> Int32 in
            var destination: [UnsafeMutablePointer<UInt8>?] = [out.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(outW), 0, 0, 0]
            return withUnsafePointer(to: &frame.pointee.data) { data in
                withUnsafePointer(to: &frame.pointee.linesize) { linesize in
                    data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { planes in
                        linesize.withMemoryRebound(to: Int32.self, capacity: 8) { sizes in
                            sws_scale(scaler, planes, sizes, 0, Int32(h), &destination, &strides)
                        }
                    }
                }
            }
        }
        guard lines > 0 else { return nil }
        return GrayImage(width: outW, height: outH, pixels: pixels)
    }
}

/// Set by `FrameSource.stop()` from any thread; FFmpeg's interrupt callback reads it.
final class InterruptFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var raised: Bool { flag.load(ordering: .acquiring) }
    func raise() { flag.store(true, ordering: .releasing) }
}
