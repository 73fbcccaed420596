import Glibc
import LommeCamera
import LommeCore
import LommeScan
import Synchronization

// Benchmark driver for bench/scan: decodes pictures and prints one line per picture,
//   PATH \t MILLISECONDS \t PASS:HEX \t PASS:HEX ...
// or with --matrix one line per picture and pass, every pass run alone:
//   PATH \t PASS \t MILLISECONDS \t HEX ...
// Options: --matrix, --serial, --ungated (every pass runs, whatever the picture shows),
// --no-settle (the search goes on after every finder pattern lies on a code read: ScanOptions.settles),
// --every-line (zbar scans every line of every view, ScanOptions.everyLine),
// --pass-times (on stderr, each pass taken: PASS \t ran|skipped \t MILLISECONDS on its thread \t
// START-END in milliseconds since the picture's scan began),
// --frame (each picture scanned as the live scan scans a camera's frame: its passes, budget
// and lines, LiveOptions.frameScan; --odd-frame: as it scans every second frame, light first;
// --frame-passes a,b,c: as it scans a frame, in this order instead, its first
// ScanPlan.frame.mandatory whatever the budget: a frame order a round compares;
// --frame-budget MS: as it scans a frame with this budget; --frame-mandatory N: its first N
// passes whatever the budget),
// --deadline MS, --no-deadline (every pass runs however long it takes: bench/scan --write-table,
// whose counts must not depend on the machine's speed), --passes a,b,c (with --matrix: only these),
// --without a,b (the photo's plan less these passes, its mandatory ones less those left out: what a pass
// alone reads, bench/scan --without-each; not with --passes or the frame options),
// --plan (prints the photo's plan, PASS,PASS,... \t MANDATORY, and ends),
// --accept-prefix TEXT
// (repeatable: a decode starting with any TEXT is accepted; default: any decode is accepted),
// --expected (each stdin line is PATH \t HEX of UTF-8 text: only a decode whose text is exactly that is accepted, as
// Tests/LommeScanTests/ExpectedReadsTests.swift accepts; an empty HEX accepts none; each line then
// has "read" or "missed" after the time).
// Paths come from the arguments, or one per line on stdin.
//
// For bench/camera, `lomme-bench --camera [--unpaced] [--budget MS] [--accept-none] [--every-line|--every-other-line] [--passes a,b|--pipeline|--one-order] [--pass-times] CLIP...` plays each clip
// through LommeCamera's live scan (paced as a webcam unless --unpaced) and prints
//   PATH \t FRAMES_READ \t FRAMES_SCANNED \t FRAMES_DROPPED \t SECONDS \t SCAN_SECONDS \t
//   FOUND_AT_SECONDS \t FOUND_FRAME_TIME \t HEX
// (the last three "-" when nothing was accepted; any decode is accepted, none with --accept-none:
// the clip then plays to its end, every frame scanned as if its code were not the one sought).
// --pass-times: on stderr, each pass of each frame's scan as the photo mode's --pass-times
// gives it, START-END in milliseconds since the run began (which passes ran side by side).
if CommandLine.arguments.dropFirst().first == "--camera" {
    cameraBench(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

var everyLine = false, frame = false, oddFrame = false, passTimes = false, framePasses: [PassName]? = nil
var frameBudget: Duration? = nil, frameMandatory: Int? = nil
var settles = true
var matrix = false, parallel = true, gated = true, deadline: Duration? = Scanner.defaultDeadline, passes: [PassName]? = nil, prefixes: [String]? = [""]
var without: [PassName] = []
var paths: [String] = []
var expectedMode = false
/// With --expected, the bytes each path must decode to (none accepted for an empty one).
var expected: [String: [UInt8]] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--matrix": matrix = true
    case "--serial": parallel = false
    case "--ungated": gated = false
    case "--no-settle": settles = false
    case "--every-line": everyLine = true
    case "--frame": frame = true
    case "--odd-frame": frame = true; oddFrame = true
    case "--frame-budget":
        frame = true
        frameBudget = .milliseconds(Int(arguments.popFirst() ?? "") ?? 45)
    case "--frame-mandatory":
        frameMandatory = Int(arguments.popFirst() ?? "")
    case "--frame-passes":
        frame = true
        framePasses = passNames(arguments.popFirst())
    case "--pass-times": passTimes = true
    case "--deadline": deadline = .milliseconds(Int(arguments.popFirst() ?? "") ?? 2500)
    case "--passes": passes = passNames(arguments.popFirst())
    case "--no-deadline": deadline = nil
    case "--without": without = passNames(arguments.popFirst())
    case "--plan":
        print(ScanPlan.photo.passes.map(\.rawValue).joined(separator: ",") + "\t\(ScanPlan.photo.mandatory)")
        exit(0)
    case "--expected": expectedMode = true
    case "--accept-prefix":
        // Repeatable: a decode starting with any of the prefixes is accepted.
        if prefixes == [""] { prefixes = [] }
        prefixes?.append(arguments.popFirst() ?? "")
    case "--accept-none": prefixes = nil
    default: paths.append(argument)
    }
}
if !without.isEmpty && (passes != nil || frame) {
    // --without takes passes out of the photo's plan: with another list of passes it would quietly win.
    quit(.usage(.optionsConflict, "--without leaves passes out of the photo's plan — give it without --passes and the frame options"))
}
var chosen = passes.map { ScanOptions(deadline: deadline, parallel: parallel, passes: $0) }
    ?? ScanOptions(deadline: deadline, parallel: parallel)
if !without.isEmpty {
    chosen = ScanOptions(deadline: deadline, parallel: parallel, plan: ScanPlan.photo.without(Set(without)))
}
chosen.gated = gated
chosen.everyLine = everyLine
chosen.settles = settles
if frame {
    var live = LiveOptions()
    if let frameBudget { live.frameBudget = frameBudget }
    if let framePasses {
        live.plan = ScanPlan(framePasses, mandatory: ScanPlan.frame.mandatory)
        live.alternatePlan = nil
    }
    chosen = live.frameScan(oddFrame ? 1 : 0)
    if let frameMandatory { chosen.mandatory = frameMandatory }
}
if passTimes {
    // One line a pass on stderr: PASS \t ran|skipped|joined \t MILLISECONDS (on its thread) \t
    // START-END (milliseconds since the picture's scan began: which passes ran side by side).
    chosen.passTimes = { pass, outcome, time in passTimeLine(pass, outcome, time, since: scanStart.withLock { $0 }) }
}

/// One line of --pass-times on stderr: PASS \t OUTCOME \t MILLISECONDS \t START-END, the start
/// and end in milliseconds since `zero`.
func passTimeLine(_ pass: PassName, _ outcome: PassOutcome, _ time: Duration, since zero: ContinuousClock.Instant) {
    let end = milliseconds(ContinuousClock.now - zero), took = milliseconds(time)
    var line = "\(pass)\t\(outcome.rawValue)\t\(String(format: took))\t\(String(format: end - took))-\(String(format: end))\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
if paths.isEmpty {
    while let line = readLine() {
        if line.isEmpty { continue }
        guard expectedMode else { paths.append(line); continue }
        let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(fields[0])
        let digits: [UInt8] = fields.count > 1 ? Array(fields[1].utf8) : []
        paths.append(path)
        expected[path] = stride(from: 0, to: digits.count - 1, by: 2).map { at in
            UInt8(String(decoding: digits[at...at + 1], as: UTF8.self), radix: 16) ?? 0
        }
    }
}

/// The passes named in `list` (`a,b,c`), checked before any picture is read: an unknown pass
/// name ends the run with the scanner's one-line usage message.
func passNames(_ list: String?) -> [PassName] {
    do {
        return try PassName.parse((list ?? "").split(separator: ",").map(String.init))
    } catch {
        quit(error)
    }
}

/// Ends the run with `error`'s one line on stderr and its exit code.
func quit(_ error: LommeError) -> Never {
    var line = "lomme-bench: \(error.message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(error.code.rawValue)
}

func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var out = ""
    for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
    return out
}

func milliseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

let clock = ContinuousClock()
/// When the scan of the picture in hand began (the zero of --pass-times' START-END).
let scanStart = Mutex(ContinuousClock.now)
let accept: (Decoded) -> Bool = { decoded in
    guard let prefixes else { return false }
    return prefixes.contains { decoded.text.hasPrefix($0) }
}
for path in paths {
    if matrix {
        for name in chosen.passes ?? PassName.allCases {
            var alone = ScanOptions(deadline: .seconds(60), parallel: false, passes: [name])
            alone.everyLine = everyLine
            var found: [Decoded] = []
            let elapsed = clock.measure {
                found = (try? Scanner.scan(path: path, options: alone, accept: accept)) ?? []
            }
            print(([path, name.rawValue, String(format: milliseconds(elapsed))] + found.map { hex($0.bytes) }).joined(separator: "\t"))
        }
    } else {
        var found: [Decoded] = []
        let elapsed = clock.measure {
            scanStart.withLock { $0 = .now }
            if expectedMode {
                let wanted = expected[path].map { String(decoding: $0, as: UTF8.self) } ?? ""
                found = (try? Scanner.scan(path: path, options: chosen, accept: { !wanted.isEmpty && $0.text == wanted })) ?? []
            } else {
                found = (try? Scanner.scan(path: path, options: chosen, accept: accept)) ?? []
            }
        }
        // With --expected, a field after the time says whether the expected text was read ("read"; no
        // text expected: whether anything was decoded) as the scanner gives text (QRText.decode).
        let verdict = expectedMode ? [found.contains { $0.text == String(decoding: expected[path] ?? [], as: UTF8.self) }
            || (expected[path] ?? []).isEmpty && !found.isEmpty ? "read" : "missed"] : []
        print(([path, String(format: milliseconds(elapsed))] + verdict + found.map { "\($0.pass):\(hex($0.bytes))" })
            .joined(separator: "\t"))
    }
}

/// `value` with `places` (1 to 3) digits after the point, a negative one with its sign in
/// front ("-7.9": --pass-times' start of a pass still running when another's decode was
/// accepted came out as "-7.-9").
func String(format value: Double, places: Int = 1) -> String {
    let places = max(1, min(3, places)), scale = [10, 100, 1000][places - 1]
    let n = Int((value * Double(scale)).rounded()), magnitude = Int(n.magnitude)
    let fraction = "\(magnitude % scale)"
    return (n < 0 ? "-" : "") + "\(magnitude / scale)." + String(repeating: "0", count: places - fraction.count) + fraction
}

func cameraBench(_ arguments: [String]) {
    var live = LiveOptions()
    var clips: [String] = []
    var acceptAny = true
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        switch argument {
        case "--unpaced": live.pace = .decoded
        case "--accept-none": acceptAny = false
        case "--every-line": live.everyLine = true
        case "--every-other-line": live.everyLine = false
        case "--passes":
            live.plan = ScanPlan(passNames(rest.popFirst()), mandatory: ScanPlan.photo.mandatory)
            live.alternatePlan = nil
        case "--pipeline": live.plan = nil; live.alternatePlan = nil
        case "--one-order": live.alternatePlan = nil
        case "--budget": live.frameBudget = .milliseconds(Int(rest.popFirst() ?? "") ?? 45)
        case "--pass-times":
            // on stderr, each pass a frame's scan takes: PASS \t ran|skipped|joined \t MILLISECONDS
            // \t START-END (milliseconds since the run began)
            let began = ContinuousClock.now
            live.passTimes = { pass, outcome, time in passTimeLine(pass, outcome, time, since: began) }
        default: clips.append(argument)
        }
    }
    for clip in clips {
        do throws(LommeError) {
            let source = try FrameSource(path: clip)
            let (outcome, counts) = try LiveScan(source: source, options: live).run(accept: { _ in acceptAny })
            var tail = ["-", "-", "-"]
            if case .found(let decoded, let frame) = outcome {
                tail = [String(format: counts.seconds, places: 3), String(format: frame.time, places: 3), hex(decoded.bytes)]
            }
            print(([clip, "\(counts.read)", "\(counts.scanned)", "\(counts.dropped)", String(format: counts.seconds, places: 3),
                    String(format: counts.scanSeconds, places: 3)] + tail).joined(separator: "\t"))
        } catch {
            var line = "lomme-bench: \(error.message)\n"
            line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            exit(error.code.rawValue)
        }
    }
}
