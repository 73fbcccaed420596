import Dispatch
import Glibc
import LommeCore
import LommeImages
import LommeScan
import Synchronization

/// How the live scan runs.
package struct LiveOptions: Sendable {
    /// How long to look before giving up (nil: until the file ends or `stop`): by `clock` for
    /// a camera, by the frames' own timestamps for a video file (the first `timeout` of the
    /// recording, however fast or slow it is read).
    package var timeout: Duration?
    /// Each frame's scan budget: the scanner's cheap passes first, the rest while time is
    /// left; nil for none (every pass a frame gets, however long it takes).
    package var frameBudget: Duration?
    /// How a file's frames are handed to the scanner (a camera's come at the camera's pace).
    package var pace: Pace
    /// The clock the timeout, a file's pace and each frame's budget are kept by: the
    /// machine's own unless a test gives its own.
    package var clock = LiveClock.continuous
    /// zbar scans every line of the frame (`ScanOptions.everyLine`), not every second one: a
    /// screen's sub-pixel stripes beat against every second line.
    package var everyLine = true
    /// The plan a frame gets; nil for a photo's (`ScanPlan.photo`).
    package var plan: ScanPlan? = .frame
    /// The plan every second frame gets instead (nil: every frame gets `plan`).
    package var alternatePlan: ScanPlan? = .frameLightFirst
    /// Told of each pass a frame's scan takes (`ScanOptions.passTimes`; benchmarks only).
    package var passTimes: (@Sendable (_ pass: PassName, _ outcome: PassOutcome, _ time: Duration) -> Void)? = nil

    /// The default budget. A frame whose code does not read takes about the whole budget, so
    /// it sets the worst case's frames a second (docs/scanner.md, "Scanning from a camera").
    package static let defaultFrameBudget: Duration = .milliseconds(45)

    /// How one frame is scanned: `plan` within `frameBudget` (its first `mandatory` passes
    /// whatever the budget), zbar on every line when `everyLine` (also what
    /// `lomme-bench --frame` runs on a frame saved as a picture).
    package var frameScan: ScanOptions { frameScan(0) }

    /// How the frame scanned `index`th (from 0) is scanned: `alternatePlan` for odd ones.
    package func frameScan(_ index: Int) -> ScanOptions {
        let chosen = index % 2 == 1 ? alternatePlan ?? plan : plan
        var options = chosen.map { ScanOptions(deadline: frameBudget, plan: $0) } ?? ScanOptions(deadline: frameBudget)
        options.clock = clock.scanClock
        options.everyLine = everyLine
        options.passTimes = passTimes
        // A frame is one of many: its plan and budget are chosen on the screen clips, where a
        // code not taken is looked for again in the next frame (`ScanOptions.settles` is a photo's).
        options.settles = false
        return options
    }

    package init(timeout: Duration? = nil, frameBudget: Duration? = defaultFrameBudget, pace: Pace = .camera) {
        self.timeout = timeout
        self.frameBudget = frameBudget
        self.pace = pace
    }

    /// How a video file's frames reach the scanner.
    package enum Pace: Sendable {
        /// At the pace their timestamps say, as a webcam's would: a frame that arrives while
        /// another is scanned replaces the one waiting (the one waiting is dropped).
        case camera
        /// As fast as they decode, dropped likewise (the benchmark's throughput).
        case decoded
        /// Every frame in order, none dropped: the reader waits until the scanner has taken
        /// the last one (`--every-frame`, a recording checked frame by frame).
        case everyFrame
    }
}

/// The clock a live scan keeps time by (`LiveOptions.clock`): the machine's monotonic clock,
/// or a test's, so that what a test proves about the timeout, a file's pace or a frame's
/// budget does not depend on the machine's speed.
package struct LiveClock: Sendable {
    /// The time since an origin of the clock's own.
    package let now: @Sendable () -> Duration
    /// Lets `duration` pass (the reader waiting for a file's next frame, in short steps).
    package let sleep: @Sendable (Duration) -> Void

    package init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The machine's monotonic clock; sleeping is `usleep`.
    package static let continuous = LiveClock(now: ScanClock.continuous.now) { duration in
        guard duration > .zero else { return }
        usleep(UInt32(min(duration, .seconds(1)).seconds * 1e6))
    }

    /// The same clock for the scanner's budget.
    var scanClock: ScanClock { ScanClock(now: now) }
}

/// What the live scan saw, for the caller's preview and the benchmark.
package enum LiveEvent {
    /// A frame is about to be scanned (for the preview).
    case frame(Frame)
    /// A code was read that the caller does not accept; said once per distinct payload.
    case rejected(Decoded)
}

/// How a live scan ended.
package enum LiveOutcome {
    /// A code the caller accepts, and the frame it was read in.
    case found(Decoded, Frame)
    /// The file ended without one (a device never ends by itself).
    case ended
    /// `timeout` passed without one: by the clock for a camera, by the frames' timestamps
    /// for a video file.
    case timedOut
    /// `stop()` was called.
    case stopped
}

/// Counts, for the benchmark and the tests.
package struct LiveCounts: Sendable {
    /// Frames the source produced (decoded), and those handed to the scanner.
    package var read = 0
    package var scanned = 0
    /// Frames replaced by a newer one before the scanner took them.
    package var dropped: Int { read - scanned - (pending ? 1 : 0) }
    var pending = false
    /// Seconds from the start to the end of the scan.
    package var seconds = 0.0
    /// Seconds spent scanning frames.
    package var scanSeconds = 0.0
    /// Distinct payloads read.
    package var decodes = 0
}

/// Reads frames on a thread of their own and scans the newest one whenever the scanner is
/// free: a frame that arrives while another is being scanned replaces the one waiting (it is
/// dropped, never queued), so what is scanned is always what the camera sees now (a file
/// read with `Pace.everyFrame` waits for the scanner instead, and none is dropped). Each
/// frame gets `frameBudget`, the scanner's cheap passes first; a payload seen in several
/// frames is judged once (`accept` is asked once per distinct payload). One `run` per
/// LiveScan.
package final class LiveScan: Sendable {
    private let source: SendableSource
    private let options: LiveOptions
    private let slot = FrameSlot()

    package init(source: any FrameProducer, options: LiveOptions = .init()) {
        self.source = SendableSource(source)
        self.options = options
    }

    /// Ends the scan from another thread (a signal handler's thread, the timeout): `run`
    /// returns `.stopped` after the frame being scanned.
    package func stop() {
        slot.stop()
        source.value.stop()
    }

    /// Scans until a code `accept` takes (`.found`), the end of a file, the timeout or
    /// `stop()`. `events` is called on this thread (the preview). Throws code 2 when the
    /// device fails while reading.
    package func run(accept: (Decoded) -> Bool, events: (LiveEvent) -> Void = { _ in }) throws(LommeError) -> (LiveOutcome, LiveCounts) {
        let clock = options.clock
        let start = clock.now()
        // A camera's timeout is kept by the clock; a file's by its frames' timestamps (the
        // reader, below), so that its first `timeout` is read however fast the machine is.
        let end = source.value.isDevice ? options.timeout.map { start + $0 } : nil
        let reader = DispatchGroup()
        // A queue of its own, not a global one: the reader blocks (in FFmpeg, in its pace)
        // for the whole scan, and on the global queue it held one of the two threads a
        // 2-core machine's pool has, so the scanner's two workers ran one after the other.
        DispatchQueue(label: "lomme-vault.frame-reader").async(group: reader) { [slot, source, options] in
            Self.read(source.value, into: slot, options: options)
        }
        // Nothing is left running when the scan ends.
        defer {
            source.value.stop()
            slot.stop()
            reader.wait()
        }
        var seen: [[UInt8]] = []
        var counts = LiveCounts()
        func finish(_ outcome: LiveOutcome) -> (LiveOutcome, LiveCounts) {
            counts.read = slot.produced
            counts.pending = slot.pending
            counts.seconds = (clock.now() - start).seconds
            return (outcome, counts)
        }
        while true {
            let waited = slot.take(until: end, clock: clock)
            switch waited {
            case .stopped: return finish(.stopped)
            case .ended:
                if let error = slot.error { throw error }
                return finish(.ended)
            case .timedOut: return finish(.timedOut)
            case .frame(let frame):
                let options = self.options.frameScan(counts.scanned)
                counts.scanned += 1
                events(.frame(frame))
                let began = clock.now()
                // A payload seen in an earlier frame is not judged again: `accept` said no to
                // it once, and a code accepted ends the scan.
                var accepted: Decoded?
                let found = Scanner.scan(image: frame.image, options: options) { decoded in
                    guard !seen.contains(decoded.bytes), accept(decoded) else { return false }
                    accepted = decoded
                    return true
                }
                counts.scanSeconds += (clock.now() - began).seconds
                if let accepted {
                    counts.decodes += 1
                    return finish(.found(accepted, frame))
                }
                for decoded in found where !seen.contains(decoded.bytes) {
                    counts.decodes += 1
                    seen.append(decoded.bytes)
                    events(.rejected(decoded))
                }
                if let end, clock.now() >= end { return finish(.timedOut) }
            }
        }
    }

    /// The reader thread: every frame decoded (a compressed stream cannot skip one), the
    /// newest put in the slot. A file's frames at their own pace (`Pace.camera`), or each
    /// once the scanner has taken the last (`Pace.everyFrame`); a file's first frame at or
    /// past `timeout` by its timestamp ends the scan (`.timedOut`) before it is waited for.
    static func read(_ source: any FrameProducer, into slot: FrameSlot, options: LiveOptions) {
        let clock = options.clock
        var start: Duration?
        while !slot.isStopped {
            let frame: Frame?
            do throws(LommeError) {
                frame = try source.next()
            } catch {
                slot.fail(error)
                return
            }
            guard let frame else { break }
            if !source.isDevice {
                if let timeout = options.timeout, !(frame.time < timeout.seconds) {
                    slot.timeOut()
                    return
                }
                if options.pace == .camera {
                    let origin = start ?? clock.now()
                    start = origin
                    let due = origin + Self.offset(frame.time)
                    // in steps, so a stop is seen at once (a file may put its next frame far off)
                    while !slot.isStopped, case let wait = due - clock.now(), wait > .zero {
                        clock.sleep(min(wait, .milliseconds(50)))
                    }
                }
            }
            slot.put(frame)
            if options.pace == .everyFrame && !source.isDevice { slot.waitUntilTaken() }
        }
        slot.end()
    }

    /// A frame's time from the file's first, as a duration to wait: never negative (a
    /// timestamp that goes back is due at once) and at most a year, whatever a hostile file's
    /// timestamps say (a frame time is any finite Double; `Duration(seconds:)` traps past
    /// about 10^20 s).
    static func offset(_ time: Double) -> Duration {
        guard time > 0 else { return .zero }
        return .seconds(min(time, longestWait))
    }

    /// A year: the longest a file's next frame is waited for (in short steps, so a stop or
    /// Ctrl-C ends the wait at once).
    static let longestWait = 365.0 * 86400
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Where the live scan's frames come from: a webcam or a video file (`FrameSource`), or a
/// test's own source, which hands over a real clip's frames when the test says.
package protocol FrameProducer: AnyObject {
    /// A camera (its frames come at its own pace, and its timeout is kept by the clock), not a file.
    var isDevice: Bool { get }
    /// The next frame; nil at the end, or after `stop()`.
    func next() throws(LommeError) -> Frame?
    /// Ends a `next()` that waits, from another thread.
    func stop()
}

extension FrameSource: FrameProducer {}

/// The source, handed to the reader thread (which alone calls `next`) and to `stop()`.
struct SendableSource: @unchecked Sendable {
    let value: any FrameProducer
    init(_ value: any FrameProducer) { self.value = value }
}

/// One place for the newest frame: putting a frame where one waits drops the older.
final class FrameSlot: Sendable {
    private struct State {
        var frame: Frame?
        var produced = 0
        var ended = false
        var timedOut = false
        var stopped = false
        var error: LommeError?
    }
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    /// Signalled when the scanner takes a frame (for a reader that waits for it).
    private let taken = DispatchSemaphore(value: 0)

    enum Taken {
        case frame(Frame)
        case ended
        case timedOut
        case stopped
    }

    var produced: Int { state.withLock { $0.produced } }
    var pending: Bool { state.withLock { $0.frame != nil } }
    var isStopped: Bool { state.withLock { $0.stopped } }
    var error: LommeError? { state.withLock { $0.error } }

    func put(_ frame: Frame) {
        state.withLock {
            $0.produced += 1
            $0.frame = frame
        }
        signal.signal()
    }

    func end() {
        state.withLock { $0.ended = true }
        signal.signal()
    }

    /// The file's time is up: like its end, but `.timedOut` once the frame waiting is taken.
    func timeOut() {
        state.withLock { $0.timedOut = true }
        signal.signal()
    }

    func fail(_ error: LommeError) {
        state.withLock {
            $0.error = error
            $0.ended = true
        }
        signal.signal()
    }

    func stop() {
        state.withLock { $0.stopped = true }
        signal.signal()
        taken.signal()
    }

    /// Waits until the frame put last has been taken, or the scan is stopped.
    func waitUntilTaken() {
        while state.withLock({ $0.frame != nil && !$0.stopped }) {
            _ = taken.wait(timeout: .now() + .milliseconds(100))
        }
    }

    /// The newest frame, waiting for one until `deadline` on `clock`; at the end of a file
    /// (or of its time) the frame still waiting is taken first.
    func take(until deadline: Duration?, clock: LiveClock) -> Taken {
        while true {
            let now = state.withLock { state -> Taken? in
                if state.stopped { return .stopped }
                if let frame = state.frame {
                    state.frame = nil
                    return .frame(frame)
                }
                if state.ended { return .ended }
                return state.timedOut ? .timedOut : nil
            }
            if case .frame = now { taken.signal() }
            if let now { return now }
            if let deadline {
                let left = deadline - clock.now()
                if left <= .zero { return .timedOut }
                // in short steps, the clock asked again after each (a test's clock is not the machine's)
                _ = signal.wait(timeout: .now() + .milliseconds(Int(min(left, .milliseconds(100)).seconds * 1000) + 1))
            } else {
                signal.wait()
            }
        }
    }
}
