import LommeImages

/// How much a sampled module grid looks like a QR code.
enum FixedPatterns {
    /// Dark modules of a two-level module grid are below this.
    static let darkBelow: UInt8 = 128

    /// The share of the three finder patterns' modules and their separators that agree.
    static func finderAgreement(_ grid: GrayImage) -> Double {
        let d = grid.width
        guard d == grid.height, d >= QRGeometry.smallestSide else { return 0 }
        return agreement([(grid, 0, 0, 1, 1), (grid, 0, d - 1, 1, -1), (grid, d - 1, 0, -1, 1)]).share
    }

    /// The modules each finder's corner block holds: the finder and its separator.
    static let cornerModules = (QRGeometry.finderSide + 1) * (QRGeometry.finderSide + 1)

    /// How many of the `cornerModules` of one corner block (a square block of the code as the code
    /// has it at `corner`, `GridSampler.cornerGrid`) agree; nil for a block too small to hold them.
    static func agreeing(_ block: GrayImage, at corner: QRGeometry.FinderCorner) -> Int? {
        guard block.width == block.height, block.width > QRGeometry.finderSide else { return nil }
        let far = block.width - 1
        return switch corner {
        case .topLeft: agreement([(block, 0, 0, 1, 1)]).agreeing
        case .topRight: agreement([(block, 0, far, 1, -1)]).agreeing
        case .bottomLeft: agreement([(block, far, 0, -1, 1)]).agreeing
        }
    }

    /// Each finder's 8×8 corner block (pattern and separator) from the code's corner: grid, corner, inward steps.
    private static func agreement(_ blocks: [(grid: GrayImage, row: Int, column: Int, rowStep: Int, columnStep: Int)])
        -> (agreeing: Int, share: Double) {
        let side = QRGeometry.finderSide
        var agree = 0, total = 0
        for block in blocks {
            let w = block.grid.width
            for r in 0...side {
                for c in 0...side {
                    let dark = r < side && c < side && QRGeometry.finderModuleIsDark(row: r, column: c)
                    let value = block.grid.pixels[(block.row + r * block.rowStep) * w + block.column + c * block.columnStep]
                    if (value < darkBelow) == dark { agree += 1 }
                    total += 1
                }
            }
        }
        return (agree, Double(agree) / Double(total))
    }
}
