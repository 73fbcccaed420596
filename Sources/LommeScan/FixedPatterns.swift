import LommeImages

/// How much a sampled module grid looks like a QR code: the share of the modules the
/// standard fixes round its three corners (the finder patterns and their separators) that
/// came out as fixed. A grid sampled through look-alikes in a picture with no code agrees
/// about as well as chance (a half); a real code's, even bent or blurred, nearly all.
enum FixedPatterns {
    /// Dark modules of a two-level module grid are below this.
    static let darkBelow: UInt8 = 128

    /// The share of the three finder patterns' modules and their separators that agree.
    static func finderAgreement(_ grid: GrayImage) -> Double {
        let d = grid.width, side = QRGeometry.finderSide
        guard d == grid.height, d >= QRGeometry.smallestSide else { return 0 }
        var agree = 0, total = 0
        // Each finder's 8×8 corner block (7×7 pattern and its separator), from the code's corner inward.
        for (originRow, originColumn, rowStep, columnStep) in [(0, 0, 1, 1), (0, d - 1, 1, -1), (d - 1, 0, -1, 1)] {
            for r in 0...side {
                for c in 0...side {
                    let dark = r < side && c < side && QRGeometry.finderModuleIsDark(row: r, column: c)
                    let value = grid.pixels[(originRow + r * rowStep) * d + originColumn + c * columnStep]
                    if (value < darkBelow) == dark { agree += 1 }
                    total += 1
                }
            }
        }
        return Double(agree) / Double(total)
    }
}
