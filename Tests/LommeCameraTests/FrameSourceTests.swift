import Foundation
import LommeCore
import LommeImages
import LommeScan
import LommeTestSupport
import Synchronization
import Testing

@testable import LommeCamera

/// A temp directory of its own, removed at the end.
final class ClipFolder {
    private let folder = TemporaryFolder("lomme-camera-test")
    var path: String { folder.path }

    func code(_ text: String) throws -> String {
        let png = path + "/code-\(abs(text.hashValue)).png"
        try #require(Clips.code(text, to: png), "qrencode failed")
        return png
    }

    func clip(_ kind: String, code: String? = nil, size: String = "640x480", codec: String = "mjpeg",
              seconds: Double = 2, name: String? = nil, extra: [String] = []) throws -> String {
        let made = Clips.make(kind, in: path, code: code, size: size, codec: codec, seconds: seconds, name: name, extra: extra)
        return try #require(made.path, "make-clip: \(made.error)")
    }
}

/// Every frame of a source, read to its end.
func frames(of source: FrameSource) throws -> [Frame] {
    var all: [Frame] = []
    while let frame = try source.next() { all.append(frame) }
    return all
}

@Suite("Frames from a video file (real FFmpeg)")
struct FrameSourceTests {
    static let text = Clips.config

    @Test(arguments: ["mjpeg", "h264", "yuyv"])
    func everyFrameOfEachCodecComesOutGrey(codec: String) throws {
        let folder = ClipFolder()
        let clip = try folder.clip("blank", codec: codec, seconds: 1)
        let source = try FrameSource(path: clip)
        #expect(!source.isDevice)
        #expect(source.width == 640 && source.height == 480)
        #expect(source.codec == ["mjpeg": "mjpeg", "h264": "h264", "yuyv": "rawvideo"][codec])
        #expect(source.frameRate == 15)
        let all = try frames(of: source)
        #expect(all.count == 15, "a 1 s clip at 15 frames a second")
        #expect(all.map(\.index) == Array(0..<15))
        // timestamps a fifteenth of a second apart, from 0
        #expect(all.enumerated().allSatisfy { abs($0.element.time - Double($0.offset) / 15) < 0.01 }, "\(all.map(\.time))")
        for frame in all {
            #expect(frame.image.width == 640 && frame.image.height == 480)
            // the room is mid grey: neither black nor white, and not flat
            let mean = frame.image.pixels.reduce(0) { $0 + Int($1) } / frame.image.pixels.count
            #expect((60...220).contains(mean), "mean \(mean)")
            #expect(Set(frame.image.pixels).count > 20)
        }
        #expect(try source.next() == nil, "the end stays the end")
    }

    @Test func theFramesOfEachKindHoldTheCodeTheScannerReads() throws {
        let folder = ClipFolder()
        let code = try folder.code(Self.text)
        for (kind, codec) in [("sweep", "h264"), ("screen", "mjpeg"), ("shake", "yuyv")] {
            let clip = try folder.clip(kind, code: code, codec: codec, seconds: 1.5)
            let all = try frames(of: try FrameSource(path: clip))
            #expect(all.count == 22 || all.count == 23)
            // before the code comes in (0.6 s) no frame holds one; the last frame does
            let first = Scanner.scan(image: all[0].image, options: ScanOptions(deadline: nil))
            #expect(first.isEmpty, "\(kind): \(first)")
            let last = Scanner.scan(image: all[all.count - 1].image, options: ScanOptions(deadline: nil))
            #expect(last.map(\.text) == [Self.text], "\(kind) \(codec): the last frame does not read")
        }
    }

    /// A frame's first three passes run whatever its budget says, and the grid sampler on the
    /// unlined view is the second: on a 1280×720 screen, where those three alone fill the
    /// budget, every frame from the code's arrival reads with no budget at all, through that
    /// pass (with normalisation second, as before, one of the 13 did not, and on the screen
    /// clip of `CameraImportTests` 21 of 29 read against 26). Both orders start with the same
    /// three (`aFramesPassesAreTheScannersOwnEachOnce`).
    @Test func aScreensFramesReadThroughTheFirstThreePasses() throws {
        let folder = ClipFolder()
        let code = try folder.code(Self.text)
        let clip = try folder.clip("screen", code: code, size: "1280x720", codec: "mjpeg", seconds: 1.5)
        let all = try frames(of: try FrameSource(path: clip))
        let options = LiveOptions(frameBudget: .zero).frameScan
        var read: [PassName] = []
        for frame in all where frame.time > 0.59 {
            let found = Scanner.scan(image: frame.image, options: options)
            #expect(found.map(\.text) == [Self.text], "frame at \(frame.time) s")
            read += found.map(\.pass)
        }
        #expect(read.count >= 12 && read.contains(.gridUnlined), "\(read)")
    }

    @Test func aBigFrameIsReducedToTheScannersWorkingSide() throws {
        let folder = ClipFolder()
        let clip = try folder.clip("blank", size: "1920x1080", codec: "h264", seconds: 0.4)
        let source = try FrameSource(path: clip)
        #expect(source.width == 1920 && source.height == 1080)
        let frame = try #require(try source.next())
        #expect(frame.image.width == 1280 && frame.image.height == 720)
    }

    @Test func aFrameOverTheLimitIsRefusedBeforeDecoding() throws {
        let folder = ClipFolder()
        let clip = folder.path + "/huge.mkv"
        let made = Clips.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "color=gray:s=4000x2600:d=0.2:r=5",
                              "-c:v", "mjpeg", clip])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(4000 * 2600 > FrameLimits.maximumPixels)
        let error = #expect(throws: LommeError.self) { try FrameSource(path: clip) }
        #expect(error?.code == .unreadableImage)
        #expect(error?.message.contains("4000×2600") == true, "\(error?.message ?? "")")
    }

    /// A damaged or cut-off recording: frames until the damage, then the end, never a crash
    /// or a hang (each codec's own damage: MJPEG frames stand alone, H.264 frames lean on
    /// each other, raw frames have no structure at all).
    @Test(arguments: ["mjpeg", "h264", "yuyv"])
    func aDamagedClipEndsQuietly(codec: String) throws {
        let folder = ClipFolder()
        let clip = try folder.clip("blank", codec: codec, seconds: 1)
        var bytes = readFile(clip)
        try #require(bytes.count > 10_000)
        let truncated = folder.path + "/truncated.mkv"
        try Data(bytes[0..<(bytes.count / 2)]).write(to: URL(fileURLWithPath: truncated))
        // every 97th byte after the header flipped
        for index in stride(from: 4096, to: bytes.count, by: 97) { bytes[index] ^= 0x5A }
        let flipped = folder.path + "/flipped.mkv"
        try Data(bytes).write(to: URL(fileURLWithPath: flipped))
        for path in [truncated, flipped] {
            do {
                let source = try FrameSource(path: path)
                var count = 0
                while let frame = try source.next() {
                    #expect(frame.image.width <= 640 && frame.image.height <= 480)
                    count += 1
                    try #require(count <= 100, "more frames than the clip had")
                }
                #expect(try source.next() == nil)
            } catch let error as LommeError {
                #expect(error.code == .unreadableImage, "\(path): \(error.message)")
            }
        }
    }

    @Test func aPlaylistNamingAnotherFileIsNotFollowed() throws {
        let folder = ClipFolder()
        let clip = try folder.clip("blank", seconds: 0.4)
        // FFmpeg's concat demuxer and HLS would open the files a list names: not allowed.
        let concat = folder.path + "/list.ffconcat"
        try "ffconcat version 1.0\nfile '\(clip)'\n".write(toFile: concat, atomically: true, encoding: .utf8)
        let playlist = folder.path + "/list.m3u8"
        try "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n\(clip)\n#EXT-X-ENDLIST\n".write(toFile: playlist, atomically: true, encoding: .utf8)
        for path in [concat, playlist] {
            let error = #expect(throws: LommeError.self) { try FrameSource(path: path) }
            #expect(error?.code == .unreadableImage, "\(path)")
        }
        // the clip itself reads
        #expect(try FrameSource(path: clip).next() != nil)
    }

    @Test func notAVideoMissingAndDirectoriesAreCodeTwo() throws {
        let folder = ClipFolder()
        let png = try folder.code("not a video")
        let text = folder.path + "/notes.txt"
        try "just some text\n".write(toFile: text, atomically: true, encoding: .utf8)
        for (path, words) in [(png, "not a video"), (text, "not a video"), (folder.path + "/missing.mkv", "no such file"),
                              (folder.path, "neither a camera nor a video file"), ("/dev/video-lomme-none", "group video")] {
            let error = #expect(throws: LommeError.self) { try FrameSource(path: path) }
            #expect(error?.code == .unreadableImage, "\(path)")
            #expect(error?.message.contains(words) == true, "\(path): \(error?.message ?? "")")
        }
    }

    /// What FFmpeg's video4linux2 input gives back when a camera cannot be opened (errno,
    /// negated, from `open` or the VIDIOC_S_FMT / VIDIOC_STREAMON calls inside
    /// avformat_open_input) and what the user is told. A busy camera needs a second program
    /// streaming from a real V4L2 device, which no test machine here has (no /dev/video*, no
    /// v4l2loopback module), so the busy case is checked at the mapping; no device and no
    /// permission are also driven through the binary (CameraImportTests).
    @Test(arguments: [
        (16 /* EBUSY */, ["is busy", "another program is using it", "close it and try again", "group video"]),
        (13 /* EACCES */, ["no permission", "sudo adduser $USER video"]),
        (1 /* EPERM */, ["no permission", "sudo adduser $USER video"]),
        (2 /* ENOENT */, ["no camera at", "--device", "group video"]),
        (19 /* ENODEV */, ["no camera at", "ls /dev/video*"]),
        (6 /* ENXIO */, ["no camera at"]),
        (5 /* EIO */, ["cannot open the camera", "input/output error", "group video"]),
    ])
    func aCameraThatCannotBeOpenedSaysWhatToDo(errno: Int, words: [String]) {
        let code = Int32(errno)
        let error = FrameErrors.open("/dev/video0", code: -code, device: true)
        #expect(error.code == .unreadableImage)
        #expect(!error.message.contains("\n"), "one line: \(error.message)")
        for word in words { #expect(error.message.contains(word), "errno \(code): \(error.message)") }
        // A file is not a camera: no advice about the video group.
        let file = FrameErrors.open("clip.mkv", code: -code, device: false)
        #expect(file.code == .unreadableImage)
        #expect(!file.message.contains("group video") && !file.message.contains("the camera"), "errno \(code): \(file.message)")
    }
}

/// A clock for the live scan that the test keeps: time passes when the test (or, with
/// `sleeps`, the reader's waiting) says, never because the machine is slow.
final class TestLiveClock: Sendable {
    private let state: Mutex<(time: Duration, reads: Int, slept: [Duration])>
    /// Each reading moves the clock on this much (a clock on which any budget is spent at once).
    private let tick: Duration
    /// Called (once) when sleeping takes the clock past `limit`: a reader waiting far longer
    /// than a test allows is stopped there, and the test fails at once rather than hang.
    private let limit: Duration
    private let pastLimit = Mutex<(@Sendable () -> Void)?>(nil)

    init(tick: Duration = .zero, limit: Duration = .seconds(86400)) {
        state = Mutex((.zero, 0, []))
        self.tick = tick
        self.limit = limit
    }

    func whenPastLimit(_ action: @escaping @Sendable () -> Void) { pastLimit.withLock { $0 = action } }

    var now: Duration { state.withLock { $0.time += tick; return $0.time } }
    var slept: [Duration] { state.withLock { $0.slept } }
    func advance(_ duration: Duration) { state.withLock { $0.time += duration } }

    /// The live scan's clock: sleeping moves it on at once by what was asked.
    var clock: LiveClock {
        LiveClock(now: { [self] in now }, sleep: { [self] duration in
            let time = state.withLock { $0.time += duration; $0.slept.append(duration); return $0.time }
            if time > limit, let action = pastLimit.withLock({ action in defer { action = nil }; return action }) { action() }
        })
    }
}

/// Pass names told from the scanner's threads.
final class Names: Sendable {
    private let names = Mutex<[PassName]>([])
    func add(_ name: PassName) { names.withLock { $0.append(name) } }
    var value: [PassName] { names.withLock { $0 } }
}

/// A camera the test paces: a real clip's frames (FFmpeg decoded them), each handed over only
/// once the test lets it go (`release`), so which frames arrive while one is scanned is the
/// test's choice. Says it is a device (a camera's frames are not paced by their timestamps).
final class TestCamera: FrameProducer, @unchecked Sendable {
    let isDevice: Bool
    private let frames: [Frame]
    private let state = Mutex((next: 0, allowed: 0, calls: 0, finished: false))
    private let wake = DispatchSemaphore(value: 0)
    /// Told the clock's time at each call of `next()` (for a file's pace).
    var onNext: (() -> Void)?

    init(_ frames: [Frame], isDevice: Bool = true, allowed: Int = 0) {
        self.frames = frames
        self.isDevice = isDevice
        state.withLock { $0.allowed = allowed }
    }

    /// Lets `count` more frames go.
    func release(_ count: Int = 1) {
        state.withLock { $0.allowed += count }
        for _ in 0..<count { wake.signal() }
    }

    /// `next()` returns nil from now on (the clip's end).
    func finish() {
        state.withLock { $0.finished = true }
        wake.signal()
    }

    /// How many times `next()` was entered.
    var calls: Int { state.withLock { $0.calls } }

    /// Waits (generously: a guard against a hang, not a measure) until `next()` was entered `count` times.
    func waitForCalls(_ count: Int) -> Bool {
        for _ in 0..<600_000 where calls < count { usleep(1000) }
        return calls >= count
    }

    func next() throws(LommeError) -> Frame? {
        onNext?()
        state.withLock { $0.calls += 1 }
        while true {
            let taken = state.withLock { state -> (Frame?, Bool) in
                if state.finished || state.next >= frames.count { return (nil, true) }
                guard state.allowed > 0 else { return (nil, false) }
                state.allowed -= 1
                state.next += 1
                return (frames[state.next - 1], true)
            }
            if taken.1 { return taken.0 }
            wake.wait()
        }
    }

    func stop() { finish() }
}

@Suite("The live scan (real FFmpeg, real zbar)")
struct LiveScanTests {
    @Test func aFrameArrivingWhileOneWaitsReplacesIt() {
        let slot = FrameSlot()
        let picture = GrayImage(width: 2, height: 2)
        for index in 0..<3 { slot.put(Frame(image: picture, index: index, time: Double(index))) }
        guard case .frame(let newest) = slot.take(until: nil, clock: .continuous) else { Issue.record("no frame"); return }
        #expect(newest.index == 2, "the newest frame, the two before it dropped")
        #expect(slot.produced == 3)
        slot.end()
        guard case .ended = slot.take(until: nil, clock: .continuous) else { Issue.record("not the end"); return }
        // a deadline passed with nothing new (on the test's clock, a second past it)
        let empty = FrameSlot(), clock = TestLiveClock()
        clock.advance(.seconds(1))
        guard case .timedOut = empty.take(until: .zero, clock: clock.clock) else { Issue.record("no time-out"); return }
    }

    /// What the live scan says it does, through the whole loop: a frame that arrives while
    /// another is scanned replaces the one waiting. The test's camera hands over three frames
    /// while frame 0 is scanned (and the scan waits until the reader has put all three), so
    /// frames 1 and 2 are dropped and frame 3 is scanned next, however fast the machine.
    @Test func framesThatArriveWhileOneIsScannedAreDroppedButTheNewest() throws {
        let folder = ClipFolder()
        let clip = try folder.clip("blank", seconds: 0.4)
        let camera = TestCamera(try frames(of: try FrameSource(path: clip)), allowed: 1)
        var scanned: [Int] = []
        let (outcome, counts) = try LiveScan(source: camera).run(accept: { _ in true }) { event in
            guard case .frame(let frame) = event else { return }
            scanned.append(frame.index)
            if frame.index == 0 {
                camera.release(3)
                #expect(camera.waitForCalls(5), "the reader did not take the three frames")
            } else {
                camera.finish()
            }
        }
        guard case .ended = outcome else { Issue.record("\(outcome)"); return }
        #expect(scanned == [0, 3])
        #expect(counts.read == 4 && counts.scanned == 2 && counts.dropped == 2, "\(counts)")
    }

    /// A file's frames are handed over at the pace their timestamps say (`Pace.camera`): the
    /// reader, on the test's clock, lets each frame's time pass from the first before it puts
    /// it, waiting in steps of at most 50 ms (so a stop is seen at once).
    @Test func aFilesFramesComeAtThePaceOfTheirTimestamps() throws {
        let folder = ClipFolder()
        let clip = try folder.clip("blank", seconds: 1)
        let all = try frames(of: try FrameSource(path: clip))
        let camera = TestCamera(all, isDevice: false, allowed: all.count)
        let clock = TestLiveClock()
        var options = LiveOptions()
        options.clock = clock.clock
        var asked: [Duration] = []
        camera.onNext = { asked.append(clock.now) }
        let slot = FrameSlot()
        LiveScan.read(camera, into: slot, options: options)
        // Each frame is asked for once the one before it was due, at its own time from the first.
        #expect(asked.count == all.count + 1)
        for (index, frame) in all.enumerated() {
            let due = asked[index + 1].seconds
            #expect(abs(due - frame.time) < 1e-6, "frame \(index) put at \(due) s, its time \(frame.time) s")
        }
        #expect(!clock.slept.isEmpty && clock.slept.allSatisfy { $0 <= .milliseconds(50) })
        #expect(slot.produced == all.count)
        // As fast as they decode, nothing is waited for.
        let fast = TestLiveClock()
        options.clock = fast.clock
        options.pace = .decoded
        LiveScan.read(TestCamera(all, isDevice: false, allowed: all.count), into: FrameSlot(), options: options)
        #expect(fast.slept.isEmpty)
    }

    /// A camera's timeout is kept by the clock: here the test's, which moves on a tenth of a
    /// second for each frame scanned, the camera sending one frame for each. A timeout of
    /// 450 ms ends the scan after the fifth frame (the frame being scanned is finished first).
    @Test func aCamerasTimeoutIsKeptByTheClock() throws {
        let folder = ClipFolder()
        let clip = try folder.clip("blank", seconds: 1)
        let camera = TestCamera(try frames(of: try FrameSource(path: clip)), allowed: 1)
        let clock = TestLiveClock()
        var options = LiveOptions(timeout: .milliseconds(450))
        options.clock = clock.clock
        var scanned = 0
        let (outcome, counts) = try LiveScan(source: camera, options: options).run(accept: { _ in true }) { event in
            guard case .frame = event else { return }
            scanned += 1
            clock.advance(.milliseconds(100))
            camera.release()
        }
        guard case .timedOut = outcome else { Issue.record("\(outcome)"); return }
        #expect(scanned == 5 && counts.scanned == 5)
        // A camera that sends nothing: the wait ends at the timeout (a clock that moves a
        // second each time it is read).
        var waiting = LiveOptions(timeout: .seconds(5))
        waiting.clock = TestLiveClock(tick: .seconds(1)).clock
        let silent = TestCamera(try frames(of: try FrameSource(path: clip)), allowed: 0)
        let (none, _) = try LiveScan(source: silent, options: waiting).run(accept: { _ in true })
        guard case .timedOut = none else { Issue.record("\(none)"); return }
    }

    /// Each frame is scanned within its budget, on the live scan's clock: on a clock that moves
    /// a second each time it is read the budget is spent at once, and only the three passes
    /// every frame gets run; with no budget every pass of a frame's order is taken.
    @Test func aFramesBudgetIsKeptByTheClock() throws {
        let folder = ClipFolder()
        let code = try folder.code(FrameSourceTests.text)
        let clip = try folder.clip("screen", code: code, seconds: 1, extra: ["--lead", "0"])
        let frame = try #require(try FrameSource(path: clip).next())
        for budget in [Duration.milliseconds(45), nil] {
            let taken = Names()
            var options = LiveOptions(frameBudget: budget)
            options.clock = TestLiveClock(tick: .seconds(1)).clock
            options.passTimes = { pass, outcome, _ in if outcome != .joined { taken.add(pass) } }
            let (outcome, counts) = try LiveScan(source: TestCamera([frame], allowed: 1), options: options).run(accept: { _ in false })
            guard case .ended = outcome else { Issue.record("\(outcome)"); return }
            #expect(counts.scanned == 1)
            let names = taken.value
            if budget == nil {
                #expect(names.count == ScanPlan.frame.passes.count && Set(names) == Set(ScanPlan.frame.passes), "\(names)")
            } else {
                #expect(names.count == ScanPlan.frame.mandatory && Set(names) == Set(ScanPlan.frame.passes.prefix(ScanPlan.frame.mandatory)), "\(names)")
            }
        }
    }

    @Test func aFramesPlansAreTheScannersOwnEachOnce() throws {
        // The frame plans: every pass but the frameless one, each once; the photo's is a
        // plan of its own.
        for plan in ScanPlan.frames {
            #expect(plan.passes.count == Set(plan.passes).count && Set(plan.passes) == Set(PassName.allCases).subtracting(ScanPlan.frameless))
        }
        #expect(LiveOptions().everyLine && LiveOptions().plan == .frame && LiveOptions().alternatePlan == .frameLightFirst)
        #expect(ScanPlan.frames == [.frame, .frameLightFirst])
        // The first three run on every frame (the second, the grid sampler on the unlined
        // view, reads screens whose pixel rows show; the third, the negated threshold,
        // dark-mode screens); a frame scanned in another order keeps the scanner's two.
        #expect(LiveOptions().frameScan.mandatory == 3 && LiveOptions().frameScan.passes == ScanPlan.frame.passes)
        #expect(ScanPlan.frame.passes.prefix(3) == [.plain, .gridUnlined, .adaptiveInv])
        var other = LiveOptions()
        other.plan = ScanPlan([.plain, .adaptive], mandatory: ScanPlan.photo.mandatory)
        #expect(other.frameScan.mandatory == ScanPlan.photo.mandatory)
        // Every second frame the light-on-dark passes come first: the same three first,
        // whatever the budget.
        #expect(ScanPlan.frameLightFirst.passes.prefix(3) == ScanPlan.frame.passes.prefix(3))
        #expect(ScanPlan.frameLightFirst.mandatory == ScanPlan.frame.mandatory)
        #expect(ScanPlan.frameLightFirst.passes[3] == .gridInv)
        #expect(LiveOptions().frameScan(1).passes == ScanPlan.frameLightFirst.passes && LiveOptions().frameScan(1).mandatory == 3)
        #expect(LiveOptions().frameScan(2).passes == ScanPlan.frame.passes)
        other.alternatePlan = nil
        #expect(other.frameScan(1).passes == [.plain, .adaptive])
        // No plan is a photo's.
        other.plan = nil
        #expect(other.frameScan.passes == nil && other.frameScan.mandatory == ScanPlan.photo.mandatory)
        // No budget is no deadline for the scanner (every pass, however long); the default is 45 ms.
        #expect(LiveOptions(frameBudget: nil).frameScan.deadline == nil)
        #expect(LiveOptions().frameScan.deadline == LiveOptions.defaultFrameBudget)
    }

    @Test func everySecondFrameIsScannedInTheOtherOrder() throws {
        // A dark-mode screen's code: zbar on the frame as it is reads none, on the negated
        // frame every one. Scanned frame 0 gets `plan`, frame 1 `alternatePlan`.
        let folder = ClipFolder()
        let code = try folder.code(FrameSourceTests.text)
        let clip = try folder.clip("screen", code: code, seconds: 1, extra: ["--dark", "--lead", "0", "--density", "2.0"])
        var options = LiveOptions(frameBudget: nil, pace: .everyFrame)
        options.plan = ScanPlan([.plain], mandatory: 1)
        options.alternatePlan = ScanPlan([.inverted], mandatory: 1)
        let (outcome, counts) = try LiveScan(source: try FrameSource(path: clip), options: options).run(accept: { $0.kind.isImportable })
        guard case .found(let decoded, let frame) = outcome else { Issue.record("\(outcome)"); return }
        #expect(decoded.pass == .inverted && decoded.text == FrameSourceTests.text)
        #expect(counts.scanned == 2 && frame.index == 1, "read in scanned frame \(counts.scanned - 1), not the second")
        // Either order alone: the first never reads it, the second at once.
        options.alternatePlan = nil
        let (never, all) = try LiveScan(source: try FrameSource(path: clip), options: options).run(accept: { $0.kind.isImportable })
        guard case .ended = never else { Issue.record("plain read a dark-mode screen: \(never)"); return }
        #expect(all.scanned == 15 && all.dropped == 0, "every frame of the clip: \(all)")
    }

    @Test func atTheEndTheLastFrameIsStillScanned() {
        let slot = FrameSlot()
        slot.put(Frame(image: GrayImage(width: 2, height: 2), index: 7, time: 0))
        slot.end()
        guard case .frame(let last) = slot.take(until: nil, clock: .continuous) else { Issue.record("the last frame was lost"); return }
        #expect(last.index == 7)
    }

    /// Every frame of the clip is scanned (`Pace.everyFrame`, none dropped), each with the
    /// three passes every frame gets (a budget of nothing): the code is read in many frames,
    /// and `accept` is asked about it once.
    @Test func aCodeSeenInManyFramesIsJudgedOnce() throws {
        let folder = ClipFolder()
        let code = try folder.code("hello, not a config")
        let clip = try folder.clip("sweep", code: code, seconds: 2)
        var asked = 0, rejected: [String] = [], scannedFrames = 0
        let (outcome, counts) = try LiveScan(source: try FrameSource(path: clip), options: LiveOptions(frameBudget: .zero, pace: .everyFrame)).run(accept: { _ in
            asked += 1
            return false
        }) { event in
            switch event {
            case .frame: scannedFrames += 1
            case .rejected(let decoded): rejected.append(decoded.text)
            }
        }
        guard case .ended = outcome else { Issue.record("\(outcome)"); return }
        #expect(rejected == ["hello, not a config"])
        #expect(asked == 1, "accept was asked \(asked) times")
        #expect(counts.scanned == scannedFrames && counts.scanned == 30)
        #expect(counts.read == 30 && counts.dropped == 0)
        // and the code was there to be seen in many of them
        let reading = try frames(of: try FrameSource(path: clip)).filter {
            !Scanner.scan(image: $0.image, options: LiveOptions(frameBudget: .zero).frameScan).isEmpty
        }
        #expect(reading.count > 5, "\(reading.count) frames read")
    }

    /// The first frame whose code is accepted ends the scan: every frame scanned in order, none
    /// dropped and with no budget, the reader has read at most one frame past it.
    @Test func theFirstAcceptedCodeEndsTheScanWithItsFrame() throws {
        let folder = ClipFolder()
        let code = try folder.code(FrameSourceTests.text)
        let clip = try folder.clip("shake", code: code, codec: "h264", seconds: 3)
        let options = LiveOptions(frameBudget: nil, pace: .everyFrame)
        let (outcome, counts) = try LiveScan(source: try FrameSource(path: clip), options: options).run(accept: { $0.kind.isImportable })
        guard case .found(let decoded, let frame) = outcome else { Issue.record("\(outcome)"); return }
        #expect(decoded.text == FrameSourceTests.text)
        #expect(frame.time >= 0.6 - 0.01, "read before the code came in, at \(frame.time) s")
        #expect(counts.scanned == frame.index + 1)
        #expect(counts.read <= frame.index + 2 && counts.read < 45, "the clip was read on after the code was found")
    }

    /// A file's timeout counts the file's own time: the first half second of a 4 s clip (its
    /// frames 0-7, at 15 a second), whether its frames come at their pace (on the test's
    /// clock) or each is scanned in turn. Frame 8, at 0.53 s, is never handed over.
    @Test(arguments: [LiveOptions.Pace.camera, .everyFrame])
    func aTimeoutEndsALongClip(pace: LiveOptions.Pace) throws {
        let folder = ClipFolder()
        let clip = try folder.clip("blank", seconds: 4)
        var options = LiveOptions(timeout: .milliseconds(500), pace: pace)
        options.clock = TestLiveClock().clock
        let (outcome, counts) = try LiveScan(source: try FrameSource(path: clip), options: options).run(accept: { _ in true })
        guard case .timedOut = outcome else { Issue.record("\(outcome)"); return }
        #expect(counts.read == 8, "the frames of the first half second, no more: \(counts)")
        if pace == .everyFrame { #expect(counts.scanned == 8) } else { #expect(counts.scanned >= 1 && counts.scanned <= 8) }
    }

    /// A hostile clip's timestamps leap 10^10 s after its fifth frame: nothing traps (a
    /// frame's time was once turned into nanoseconds in 64 bits), the leap is past the timeout,
    /// and the scan ends there without waiting for the frame.
    @Test func aClipWhoseTimestampsLeapEndsAtItsTimeout() throws {
        let folder = ClipFolder()
        let made = Clips.jumping(in: folder.path, name: "leap.mkv", jump: "1e10")
        let clip = try #require(made.path, "ffmpeg: \(made.error)")
        let times = try frames(of: try FrameSource(path: clip)).map(\.time)
        #expect(times.count == 15 && times[4] < 1 && times[5] > 9e9, "\(times)")
        for pace in [LiveOptions.Pace.camera, .everyFrame, .decoded] {
            // On the test's clock: a reader that waited for the leap would be stopped a minute on.
            let clock = TestLiveClock(limit: .seconds(60))
            var options = LiveOptions(timeout: .seconds(120), pace: pace)
            options.clock = clock.clock
            let live = LiveScan(source: try FrameSource(path: clip), options: options)
            clock.whenPastLimit { live.stop() }
            let (outcome, counts) = try live.run(accept: { _ in true })
            guard case .timedOut = outcome else { Issue.record("\(pace): \(outcome)"); continue }
            #expect(counts.read == 5, "\(pace): \(counts)")
        }
        // Waiting for a frame: never negative, never longer than a year, whatever the time.
        #expect(LiveScan.offset(-5) == .zero && LiveScan.offset(.nan) == .zero)
        #expect(LiveScan.offset(1e10) == .seconds(LiveScan.longestWait) && LiveScan.offset(.greatestFiniteMagnitude) == .seconds(LiveScan.longestWait))
        #expect(LiveScan.offset(0.5) == .milliseconds(500))
    }

    /// A frame's time from timestamps anywhere in 64 bits: finite, and no trap where their
    /// difference does not fit in 64 bits.
    @Test func frameTimesFromAnyTimestampsAreFinite() {
        let base = 1.0 / 1000
        #expect(FrameSource.seconds(from: 0, to: 1500, timeBase: base) == 1.5)
        #expect(FrameSource.seconds(from: 100, to: 40, timeBase: base) < 0)
        for (first, stamp) in [(Int64.min + 1, Int64.max), (Int64.max, Int64.min + 1), (-5_000_000_000_000_000_000, 5_000_000_000_000_000_000)] {
            let seconds = FrameSource.seconds(from: first, to: stamp, timeBase: base)
            #expect(seconds.isFinite && (seconds > 0) == (stamp > first), "\(first) → \(stamp): \(seconds)")
        }
        #expect(FrameSource.seconds(from: 0, to: .max, timeBase: Double(Int32.max)).isFinite)
    }
}
