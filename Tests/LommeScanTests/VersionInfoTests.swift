import LommeImages
@testable import LommeScan
import Testing

private typealias F = ScanFixtures

/// A code of version 7 or more names its own side twice, in BCH-coded blocks beside two of
/// its finders (ISO/IEC 18004 §7.10): the grid pass reads them and tries that side first.
@Suite struct VersionInfoTests {
    @Test func blocksFollowTheStandardsTable() {
        // ISO/IEC 18004 table D.1, a few rows: the version's 6 bits and 12 check bits.
        let table: [Int: Int] = [
            7: 0x07C94, 8: 0x085BC, 10: 0x0A4D3, 14: 0x0E60D, 20: 0x149A6, 27: 0x1B08E, 32: 0x209D5, 40: 0x28C69,
        ]
        for (version, block) in table {
            #expect(VersionInfo.codeword(version: version) == block, "version \(version)")
        }
        #expect(VersionInfo.codewords.count == 34)
    }

    @Test func upToThreeWrongModulesAreCorrectedAndFourAreNot() {
        let bits = VersionInfo.dataBits + VersionInfo.checkBits
        for (n, word) in VersionInfo.codewords.enumerated() {
            let version = VersionInfo.smallestVersion + n
            #expect(VersionInfo.decode(word) == version)
            for a in 0..<bits {
                for b in (a + 1)..<bits {
                    for c in (b + 1)..<bits {
                        let flipped = word ^ (1 << a) ^ (1 << b) ^ (1 << c)
                        if VersionInfo.decode(flipped) != version {
                            Issue.record("version \(version), bits \(a) \(b) \(c) flipped")
                            return
                        }
                    }
                }
            }
        }
        // Four wrong bits are at least four from every block (the blocks differ in eight or
        // more): named as nothing, never as another version.
        let word = VersionInfo.codeword(version: 10)
        for a in 0..<bits {
            for b in (a + 1)..<bits {
                for c in (b + 1)..<bits {
                    for d in (c + 1)..<bits where VersionInfo.decode(word ^ (1 << a) ^ (1 << b) ^ (1 << c) ^ (1 << d)) != nil {
                        Issue.record("bits \(a) \(b) \(c) \(d) flipped named a version")
                        return
                    }
                }
            }
        }
    }

    /// gridded.png (version 10, 57 modules) drawn flat at 6 px a module with a 40-pixel margin,
    /// and the finders' centres as the finder search would give them.
    static let module = 6.0, margin = 40.0, side = 57

    static func flat() throws -> GrayImage {
        try AlignmentGridTests.drawn(side: Int(Double(side) * module + 2 * margin)) { x, y in
            ((x - margin) / module, (y - margin) / module)
        }
    }

    /// A triple at the drawn code's finders whose module widths are `across` pixels (the
    /// drawn 6 px is the truth) and whose timing pattern was counted as `timing` modules.
    static func triple(across: Double, timing: Int? = nil) -> FinderTriple {
        let near = margin + module * QRGeometry.finderCentre, far = margin + module * (Double(side) - QRGeometry.finderCentre)
        return FinderTriple(topLeft: (near, near), topRight: (far, near), bottomLeft: (near, far),
                            moduleAcross: across, moduleDown: across, timingDimension: timing,
                            finderModules: [across, across, across])
    }

    @Test func bothBlocksOfADrawnCodeNameItsSide() throws {
        let image = try Self.flat()
        let named = VersionInfo.read(image, dimension: Self.side) { u, v in
            (Self.margin + Self.module * u, Self.margin + Self.module * v)
        }
        #expect(named == [Self.side, Self.side])
        // A size a version or more off the truth, estimated from the finders: the side the
        // code names is found near it.
        #expect(VersionInfo.dimension(for: Self.triple(across: Self.module), near: [49, 53], in: image) == Self.side)
        // Estimates too far below version 7 for any side with blocks: nothing is read.
        #expect(VersionInfo.dimension(for: Self.triple(across: Self.module), near: [29, 33], in: image) == nil)
        // A picture without a code names no side.
        let flatGrey = GrayImage(width: image.width, height: image.height, fill: 128)
        #expect(VersionInfo.dimension(for: Self.triple(across: Self.module), near: [53], in: flatGrey) == nil)
    }

    @Test func aSideIsTakenWhenABlockNamesItOrBothBlocksAgree() {
        // Read at the side it names: taken.
        #expect(VersionInfo.taken([57], at: 57, within: 45...61) == 57)
        #expect(VersionInfo.taken([45, 57], at: 57, within: 45...61) == 57)
        // Read at a neighbour, both blocks naming the same side (a bend puts the blocks on
        // their modules at a neighbouring side's map): taken, when within reach.
        #expect(VersionInfo.taken([57, 57], at: 53, within: 45...61) == 57)
        #expect(VersionInfo.taken([97, 97], at: 53, within: 45...61) == nil)
        // One block naming another side is what noise does one time in eight: not taken.
        #expect(VersionInfo.taken([57], at: 53, within: 45...61) == nil)
        #expect(VersionInfo.taken([57, 61], at: 53, within: 45...61) == nil)
        #expect(VersionInfo.taken([], at: 53, within: 45...61) == nil)
    }

    @Test func theGridPassTriesTheSideTheCodeNames() throws {
        let image = try Self.flat()
        // Module widths measured 7.5 px wide where they are 6 and a timing count of 45: the
        // estimates miss the code's 57 modules by a version or more.
        let triple = Self.triple(across: 7.5, timing: 45)
        #expect(!triple.candidateDimensions.contains(Self.side), "\(triple.candidateDimensions)")
        var found: [Sighting] = []
        let trial = Trial(scanner: ZBarScanner(), pass: .grid, isOver: { false }, report: { found += $0 })
        #expect(GridPass.decode(triple, in: image, trial))
        #expect(found.map { Decoded(bytes: $0.bytes, pass: $0.pass).text } == [F.payload])
    }
}
