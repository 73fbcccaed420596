import Dispatch
import LommeImages
import Synchronization
import Testing
@testable import LommeScan

/// A worker with no pass left to take joins a grid pass the other is running
/// (`Pass.shared`, `Scanner.worker`): the two take its triples in turn from one cursor
/// (`CandidateCursor`), each triple once.
@Suite("Scanner shared passes")
struct SharedPassTests {
    typealias F = ScanFixtures
    /// Long enough for a thread left without a triple to show, far longer than any step here
    /// takes on any machine, however loaded (a guard, never a measure of speed).
    static var patience: DispatchTime { .now() + .seconds(600) }

    /// A triple's corners, to compare triples by.
    static func corners(_ t: FinderTriple) -> [Double] {
        [t.topLeft.x, t.topLeft.y, t.topRight.x, t.topRight.y, t.bottomLeft.x, t.bottomLeft.y]
    }

    /// The triples one thread taking every triple is handed, in order.
    static func alone(_ image: GrayImage) -> [[Double]] {
        var handed: [[Double]] = []
        GridPass.forEachCandidate(ScanSubject(image: image), inverted: false, until: { false }) { handed.append(corners($0.triple)) }
        return handed
    }

    @Test func twoThreadsOnOneCursorTakeEachTripleOnce() throws {
        let image = try F.image("long-legged.jpg")
        let serial = Self.alone(image)
        try #require(serial.count >= 2, "the fixture holds several triples")
        let subject = ScanSubject(image: image), cursor = CandidateCursor()
        let taken = Mutex<[[[Double]]]>([[], []])
        // Each thread holds its first triple until the other has taken one: while one thread
        // decodes a triple, the other is handed the next.
        let holding = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let waited = Mutex([false, false])
        let group = DispatchGroup()
        for me in 0..<2 {
            DispatchQueue.global().async(group: group) {
                var first = true
                GridPass.forEachCandidate(subject, inverted: false, cursor: cursor, until: { false }) { candidate in
                    taken.withLock { $0[me].append(Self.corners(candidate.triple)) }
                    guard first else { return }
                    first = false
                    holding[me].signal()
                    let other = holding[1 - me].wait(timeout: Self.patience) == .success
                    waited.withLock { $0[me] = other }
                }
            }
        }
        #expect(group.wait(timeout: Self.patience + .seconds(600)) == .success, "both threads finished")
        let (mine, overlap) = taken.withLock { ($0, Set($0[0]).intersection($0[1])) }
        #expect(waited.withLock { $0 } == [true, true], "each took a triple while the other held one")
        #expect(overlap.isEmpty, "no triple handed twice")
        #expect((mine[0] + mine[1]).sorted { $0.lexicographicallyPrecedes($1) } == serial.sorted { $0.lexicographicallyPrecedes($1) },
                "together the triples one thread is handed alone")
    }

    /// The judging thread asks for outlines while a worker reports: whenever it sees a code's
    /// outline, the code's payload is already among the results (else `Scanner.settled` could
    /// end the search with the code read and nothing found, as a loaded CI machine once showed).
    /// The payload's classification waits here for the judging thread to look (or a while):
    /// whatever the machine's speed, an outline recorded before its payload is seen alone.
    @Test func aCodesOutlineIsNeverSeenBeforeItsPayload() {
        let corners: [SIMD2<Double>] = [[10, 10], [90, 10], [90, 90], [10, 90]]
        let json = Array(#"{"clientId":"a","clientSecret":"b","userId":"c","accountNr":"d"}"#.utf8)
        for round in 0..<10 {
            let looked = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            let state = SearchState { bytes, pass in
                _ = looked.wait(timeout: .now() + .milliseconds(100))
                return Decoded(bytes: bytes, pass: pass)
            }
            let outlineAlone = Mutex(false)
            DispatchQueue.global().async {
                while state.freshOutlines() == nil {}
                outlineAlone.withLock { $0 = state.results().isEmpty }
                looked.signal()
                done.signal()
            }
            state.report([Sighting(bytes: json, pass: .grid, corners: corners)])
            #expect(done.wait(timeout: Self.patience) == .success)
            #expect(!outlineAlone.withLock { $0 }, "round \(round): an outline without its payload")
        }
    }

    @Test func aPassThatSharesIsJoinedOnceWhileItRuns() {
        let state = SearchState()
        #expect(state.joinable() == nil, "nothing running")
        state.share(1)
        #expect(state.joinable() == 1)
        #expect(state.joinable() == nil, "joined once: a third thread would have nothing to take")
        state.share(7)
        state.stopSharing(7)
        #expect(state.joinable() == nil, "ended before anyone joined")
    }

    @Test func theGridPassesShareTheirWork() {
        #expect(Pass.catalogue.filter(\.shared).map(\.name) == [.grid, .gridInv, .gridUnlined, .gridUnlinedInv])
    }

    /// Two workers read the fixtures the grid passes read, whichever of them takes the triple.
    @Test(arguments: ["long-legged", "foreshortened", "tall-cells"])
    func twoWorkersReadWhatOneReads(_ name: String) throws {
        let image = try F.image(name + ".jpg")
        let expected = try EvidenceTests.fixtureText(name)
        let grid = ScanOptions(deadline: nil, parallel: true, passes: [.grid, .plain, .gridInv])
        #expect(Scanner.scan(image: image, options: grid).map(\.text) == [expected])
    }
}
