/// Which passes a scan runs, in order, and how many of the first run whatever the deadline
/// and the evidence say (`mandatory`). The plans are chosen by `bench/scan --matrix` and
/// `bench/camera --matrix tune`; docs/scanner.md, "The plans", says why each is so.
package struct ScanPlan: Sendable, Equatable {
    package let passes: [PassName]
    package let mandatory: Int

    package init(_ passes: [PassName], mandatory: Int) {
        self.passes = passes
        self.mandatory = mandatory
    }

    /// This plan less `passes`, the others in order; those left of the first `mandatory` still always run
    /// (`lomme-bench --without`, `bench/scan --without-each`: what a pass reads that no other does).
    package func without(_ passes: Set<PassName>) -> ScanPlan {
        ScanPlan(self.passes.filter { !passes.contains($0) },
                 mandatory: self.passes.prefix(mandatory).filter { !passes.contains($0) }.count)
    }

    /// A photo's plan. `plain` and the grid sampler first, side by side; the passes that read
    /// few pictures no other pass reads last. No `adaptive`: the grid sampler reads all it did;
    /// no `adaptive-inv`: the others read what it did, on the tune half sooner.
    package static let photo = ScanPlan([
        .plain, .grid, .inverted, .up2,
        .gridFine, .up3, .gridInv, .gridFineInv, .normalized, .sharpenedInv, .regionsBin,
        .gridUnlined, .gridUnlinedInv,
    ], mandatory: 2)

    /// A camera frame's plan: greedy by new frames read per millisecond on the tune half of the
    /// screen clips. The first three fill a 1280×720 frame's budget and always run.
    package static let frame = ScanPlan([
        .plain, .gridUnlined, .adaptiveInv, .normalized, .adaptive, .grid, .inverted, .up2, .sharpenedInv,
        .gridFine, .up3, .gridInv, .gridFineInv, .regionsBin,
    ], mandatory: 3)

    /// Every second frame's plan: the same three, then the light-on-dark passes first, so a
    /// dark-mode screen waits at most a frame more than in its best order.
    package static let frameLightFirst = ScanPlan([
        .plain, .gridUnlined, .adaptiveInv, .gridInv, .inverted, .sharpenedInv, .normalized, .adaptive, .grid,
        .up2, .gridFine, .up3, .gridFineInv, .regionsBin,
    ], mandatory: 3)

    /// The plans a camera's frames take in turn, by the count of frames scanned.
    package static let frames = [frame, frameLightFirst]

    /// The pass no frame plan runs: on the tune half of the dark-mode clips it read no frame
    /// the negated grid sampler and threshold did not.
    package static let frameless: Set<PassName> = [.gridUnlinedInv]
}
