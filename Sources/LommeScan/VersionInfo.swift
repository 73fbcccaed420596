import LommeImages

/// A code's version as it writes it itself.
enum VersionInfo {
    /// The first version that carries the blocks.
    static let smallestVersion = 7
    static let largestVersion = 40
    /// Each block holds 6 bits of version and 12 of BCH(18, 6) check bits, made with this
    /// generator polynomial: x¹² + x¹¹ + x¹⁰ + x⁹ + x⁸ + x⁵ + x² + 1.
    static let generator = 0x1F25
    static let dataBits = 6
    static let checkBits = 12
    /// The code's minimum distance is 8: up to three wrong bits are corrected.
    static let correctable = 3
    /// A block is 3 × 6 modules, 3 columns beside the top-right finder's separator (and
    /// their transpose above the bottom-left one), from 11 modules in from the code's edge.
    static let blockInset = 11
    static let blockShort = 3
    static let blockLong = 6

    // MARK: Tuning

    /// Sides this many versions either way of the estimates are read too.
    static let reachVersions = 2
    /// A block whose finder's dark and light modules differ by less than this (grey levels) is noise: not read.
    static let leastContrast = 16.0

    /// The 18-bit block of `version`.
    static func codeword(version: Int) -> Int {
        var remainder = version << checkBits
        for bit in stride(from: dataBits + checkBits - 1, through: checkBits, by: -1) where remainder >> bit & 1 == 1 {
            remainder ^= generator << (bit - checkBits)
        }
        return version << checkBits | remainder
    }

    static let codewords: [Int] = (smallestVersion...largestVersion).map { codeword(version: $0) }

    /// The version whose block differs from `bits` in at most `correctable` bits.
    static func decode(_ bits: Int) -> Int? {
        var best: (version: Int, differences: Int)? = nil
        for (n, word) in codewords.enumerated() {
            let differences = (word ^ bits).nonzeroBitCount
            if differences <= correctable, differences < best?.differences ?? Int.max {
                best = (smallestVersion + n, differences)
            }
        }
        return best?.version
    }

    /// The side a code says it has, read through the first guess at the map for each side near
    /// `estimates` (the triple's candidate sides), nearest the first estimate first.
    static func dimension(for triple: FinderTriple, near estimates: [Int], in image: GrayImage) -> Int? {
        guard let low = estimates.min(), let high = estimates.max() else { return nil }
        let reach = reachVersions * QRGeometry.sideStep
        let smallest = max(QRGeometry.smallestGriddedSide, low - reach)
        let largest = min(QRGeometry.largestSide, high + reach)
        guard smallest <= largest else { return nil }
        let sides = stride(from: smallest, through: largest, by: QRGeometry.sideStep)
            .sorted { abs($0 - estimates[0]) < abs($1 - estimates[0]) }
        for side in sides {
            guard let map = GridSampler.guide(for: triple, dimension: side) else { continue }
            if let taken = taken(read(image, dimension: side, point: { map.map($0, $1) }), at: side, within: smallest...largest) {
                return taken
            }
        }
        return nil
    }

    /// The side to take from the sides `named` by the blocks read at `side`.
    static func taken(_ named: [Int], at side: Int, within reach: ClosedRange<Int>) -> Int? {
        if named.contains(side) { return side }
        if named.count == 2, named[0] == named[1], reach.contains(named[0]) { return named[0] }
        return nil
    }

    /// The sides the two blocks of a `dimension`-module code name through `point`, each thresholded by its finder.
    static func read(_ image: GrayImage, dimension: Int, point: (Double, Double) -> (x: Double, y: Double)) -> [Int] {
        guard dimension >= QRGeometry.smallestGriddedSide else { return [] }
        let first = dimension - blockInset
        var sides: [Int] = []
        // Top-right: 6 rows of 3 columns, bit 3·row + column; bottom-left: the transpose.
        for (finderRow, finderColumn, transposed) in [(0, dimension - QRGeometry.finderSide, false),
                                                      (dimension - QRGeometry.finderSide, 0, true)] {
            guard let threshold = threshold(image, finderRow: finderRow, finderColumn: finderColumn, point: point) else { continue }
            var bits = 0
            for bit in 0..<(blockShort * blockLong) {
                let long = bit / blockShort, short = first + bit % blockShort
                let (row, column) = transposed ? (short, long) : (long, short)
                if GridSampler.module(image, row: row, column: column, point: point) < threshold { bits |= 1 << bit }
            }
            if let version = decode(bits) { sides.append(QRGeometry.side(version: version)) }
        }
        return sides
    }

    /// The grey between a finder's dark modules and its light ring, sampled through `point`.
    static func threshold(_ image: GrayImage, finderRow: Int, finderColumn: Int,
                          point: (Double, Double) -> (x: Double, y: Double)) -> Double? {
        var dark = 0.0, light = 0.0, darkCount = 0.0, lightCount = 0.0
        for r in 0..<QRGeometry.finderSide {
            for c in 0..<QRGeometry.finderSide {
                let grey = GridSampler.module(image, row: finderRow + r, column: finderColumn + c, point: point)
                if QRGeometry.finderModuleIsDark(row: r, column: c) { dark += grey; darkCount += 1 } else { light += grey; lightCount += 1 }
            }
        }
        dark /= darkCount
        light /= lightCount
        guard light - dark >= leastContrast else { return nil }
        return (dark + light) / 2
    }
}
