/// What the QR standard (ISO/IEC 18004) fixes about a code's layout, in modules.
enum QRGeometry {
    /// A finder pattern is 7 modules square (1:1:3:1:1 along any line through its centre).
    static let finderSide = 7
    /// A code has three, at its top-left, top-right and bottom-left corners.
    static let finders = 3
    /// The corners with a finder, in that order.
    enum FinderCorner: CaseIterable { case topLeft, topRight, bottomLeft }
    /// Its dark centre is 3 modules wide.
    static let finderCentreSide = 3
    /// Whether the module at (`row`, `column`) of a finder pattern (each 0 to 6) is dark.
    @inline(__always)
    static func finderModuleIsDark(row: Int, column: Int) -> Bool {
        let middle = finderSide / 2, lightRing = middle - 1
        return max(abs(row - middle), abs(column - middle)) != lightRing
    }
    /// A finder's centre, from the code's nearest corner along each side.
    static let finderCentre = 3.5
    /// The bottom-right alignment pattern's centre, from the bottom-right corner (versions 2 and up).
    static let alignmentCentre = 6.5
    /// The light margin round a code.
    static let quietZone = 4
    /// A code is 4·version + 17 modules wide: 21 (version 1) to 177 (version 40), in steps of 4.
    static let smallestSide = 21
    static let largestSide = 177
    static let sideStep = 4
    /// The smallest code with an alignment pattern (version 2).
    static let smallestAlignedSide = 25
    /// Codes this wide and wider (version 7 up) hold a grid of alignment patterns, not one.
    static let smallestGriddedSide = 45

    /// The side of a code of `version` (1–40).
    static func side(version: Int) -> Int { smallestSide + (version - 1) * sideStep }

    /// A `dimension`-wide code's alignment-pattern centre rows (and columns) from its edge (ISO/IEC 18004 E.1).
    static func alignmentCentres(dimension: Int) -> [Int] {
        guard dimension >= smallestAlignedSide, dimension <= largestSide, (dimension - smallestSide) % sideStep == 0 else { return [] }
        let version = (dimension - smallestSide) / sideStep + 1
        let count = version / 7 + 2
        // The table's one exception to its rule is version 32 (26, where the rule gives 28).
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var centres = [6]
        for n in 0..<(count - 1) { centres.insert(dimension - 7 - n * step, at: 1) }
        return centres
    }
}
