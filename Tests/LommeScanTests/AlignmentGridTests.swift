import Glibc
import LommeImages
@testable import LommeScan
import Testing

private typealias F = ScanFixtures

/// A code of version 7 or more read through its grid of alignment patterns: a map per cell.
@Suite struct AlignmentGridTests {
    @Test func alignmentCentresFollowTheStandardsTable() {
        // ISO/IEC 18004 table E.1, a few rows: the first, the first with a grid, the one
        // exception to the spacing rule (version 32) and the last.
        let table: [Int: [Int]] = [
            2: [6, 18], 6: [6, 34], 7: [6, 22, 38], 10: [6, 28, 50], 12: [6, 32, 58], 14: [6, 26, 46, 66],
            15: [6, 26, 48, 70], 16: [6, 26, 50, 74], 21: [6, 28, 50, 72, 94], 25: [6, 32, 58, 84, 110],
            32: [6, 34, 60, 86, 112, 138], 36: [6, 24, 50, 76, 102, 128, 154], 40: [6, 30, 58, 86, 114, 142, 170],
        ]
        for (version, centres) in table {
            #expect(QRGeometry.alignmentCentres(dimension: 4 * version + 17) == centres, "version \(version)")
        }
        // Version 1 has none; a width no version has, none.
        #expect(QRGeometry.alignmentCentres(dimension: 21).isEmpty)
        #expect(QRGeometry.alignmentCentres(dimension: 58).isEmpty)
        #expect(QRGeometry.alignmentCentres(dimension: 181).isEmpty)
    }

    /// gridded.png (a version 10 code, 57 modules, one pixel a module in a 4-module quiet
    /// zone) drawn `module` px a module, bent: rows bow by `bow` modules across the code and
    /// columns by `lean` modules down it (a page curling at once both ways), on mid grey.
    /// Returns the picture and the map it was drawn through (module coordinates to pixels).
    static func bent(bow: Double, lean: Double, module: Double = 6)
        throws -> (image: GrayImage, truth: (Double, Double) -> (x: Double, y: Double)) {
        let d = Double(dimension), margin = 40.0
        func truth(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
            (margin + module * (u + lean * sin(Double.pi * v / d)), margin + module * (v + bow * sin(Double.pi * u / d)))
        }
        let image = try drawn(side: Int(d * module + 2 * margin)) { x, y in
            // A few fixed-point steps invert the bend (it moves a point by under a module).
            var u = (x - margin) / module, v = (y - margin) / module
            for _ in 0..<8 {
                u = (x - margin) / module - lean * sin(Double.pi * v / d)
                v = (y - margin) / module - bow * sin(Double.pi * u / d)
            }
            return (u, v)
        }
        return (image, truth)
    }

    /// gridded.png drawn in a `side`² picture through `inverse` (picture to module
    /// coordinates), each pixel the mean of 3×3 points: dark 40, light 215, mid grey outside.
    static func drawn(side: Int, _ inverse: (Double, Double) -> (u: Double, v: Double)) throws -> GrayImage {
        let code = try F.image("gridded.png")
        let quiet = (code.width - dimension) / 2
        var pixels = [UInt8](repeating: 128, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                var sum = 0.0
                for sy in 0..<3 {
                    for sx in 0..<3 {
                        let (u, v) = inverse(Double(x) + (Double(sx) + 0.5) / 3, Double(y) + (Double(sy) + 0.5) / 3)
                        let column = Int(floor(u)) + quiet, row = Int(floor(v)) + quiet
                        let inside = column >= 0 && row >= 0 && column < code.width && row < code.height
                        sum += inside ? (code.pixels[row * code.width + column] < 128 ? 40 : 215) : 128
                    }
                }
                pixels[y * side + x] = UInt8(sum / 9)
            }
        }
        return GrayImage(width: side, height: side, pixels: pixels)
    }

    static func read(_ values: GrayImage) -> Bool {
        GridSampler.binarizations(values).contains { grid in
            ZBarScanner().scan(GridSampler.render(grid)).contains { String(decoding: $0.bytes, as: UTF8.self) == F.payload }
        }
    }

    /// The flat map the grid pass starts from, for the code in `image`.
    static func flatMap(_ image: GrayImage, dimension: Int) throws -> Homography {
        let binary = image.adaptiveBinarized(radius: 20)
        let triple = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary, grey: image).first)
        let guide = try #require(GridSampler.guide(for: triple, dimension: dimension))
        return GridSampler.map(guided: guide, for: triple, dimension: dimension, in: image)
    }

    static let dimension = 57
    static let lines = [6.5, 28.5, 50.5]

    @Test func gridFollowsABendThePlaneAndItsMeshesLose() throws {
        // Rows bowed 2.5 modules: the flat map, and both meshes round it, lose the code (the
        // smoothed fit reaches 0.6 of a module, the grown mesh drifts off); each cell's own
        // map puts every alignment pattern within a quarter of a module of where it is.
        let (image, truth) = try Self.bent(bow: 2.5, lean: 0)
        let d = Self.dimension
        let map = try Self.flatMap(image, dimension: d)
        let flat = Self.read(GridSampler.sample(image, map: map, dimension: d))
        let fitted = Self.read(GridSampler.sample(image, dimension: d, point: MeshWarp.fitted(to: image, map: .plane(map), dimension: d).point))
        let grown = Self.read(GridSampler.sample(image, dimension: d, point: MeshWarp.grown(to: image, map: .plane(map), dimension: d).point))
        let grid = try #require(AlignmentGrid.located(in: image, map: map, dimension: d))
        let cells = Self.read(GridSampler.sample(image, dimension: d, point: grid.point))
        #expect(!flat && !fitted && !grown && cells, "flat \(flat), fitted \(fitted), grown \(grown), grid \(cells)")
        for v in Self.lines {
            for u in Self.lines {
                // The picture's pixel i covers [i, i + 1); the sampler puts pixel i at i.
                let p = grid.point(u, v), t = truth(u, v)
                #expect(distance(p, (t.x - 0.5, t.y - 0.5)) < 0.25 * 6, "pattern at \(u), \(v)")
            }
        }
        // The grid pass as a whole reads it.
        #expect(Scanner.scan(image: image, options: try F.only(.grid)).map(\.text) == [F.payload])
    }

    @Test func gridFollowsABendBothWays() throws {
        // Rows bowed 3 modules and columns 2 (a page curling both ways).
        let (image, _) = try Self.bent(bow: 3, lean: 2)
        let map = try Self.flatMap(image, dimension: Self.dimension)
        let grid = try #require(AlignmentGrid.located(in: image, map: map, dimension: Self.dimension))
        let reads = Self.read(GridSampler.sample(image, dimension: Self.dimension, point: grid.point))
        #expect(reads)
    }

    @Test func aHiddenPatternIsPlacedWhereItsRowAndColumnCross() throws {
        // The code in perspective, the middle and bottom-right alignment patterns painted over
        // (glare), and only a parallelogram through the finders to start from, which puts the
        // middle most of a module off: no search finds the middle pattern, and the lines
        // through its row's and its column's patterns place it.
        let d = Double(Self.dimension)
        let corners = [(x: 60.0, y: 50.0), (x: 420.0, y: 80.0), (x: 470.0, y: 520.0), (x: 40.0, y: 390.0)]
        let toPicture = try #require(Homography(from: [(0, 0), (d, 0), (d, d), (0, d)], to: corners))
        let toModules = try #require(Homography(from: corners, to: [(0, 0), (d, 0), (d, d), (0, d)]))
        var image = try Self.drawn(side: 560) { x, y in let m = toModules.map(x, y); return (m.x, m.y) }
        let middle = toPicture.map(28.5, 28.5), centre = (x: middle.x - 0.5, y: middle.y - 0.5)
        for hidden in [middle, toPicture.map(50.5, 50.5)] {
            for y in Int(hidden.y) - 20...Int(hidden.y) + 20 {
                for x in Int(hidden.x) - 20...Int(hidden.x) + 20 { image.pixels[y * image.width + x] = 215 }
            }
        }
        let c = QRGeometry.finderCentre
        let parallelogram = try #require(Homography(affineFrom: [(c, c), (d - c, c), (c, d - c)],
                                                    to: [toPicture.map(c, c), toPicture.map(d - c, c), toPicture.map(c, d - c)]))
        let module = distance(toPicture.map(28, 28.5), toPicture.map(29, 28.5))
        #expect(distance(parallelogram.map(28.5, 28.5), centre) > 0.6 * module)
        #expect(AlignmentSearch.locate(in: image, near: middle, across: (module, 0), down: (0, module),
                                       radius: AlignmentGrid.searchRadius) == nil)
        let grid = try #require(AlignmentGrid.located(in: image, map: parallelogram, dimension: Self.dimension))
        #expect(distance(grid.point(28.5, 28.5), centre) < 0.25 * module)
        // The glare took 98 modules: the code still reads.
        let reads = Self.read(GridSampler.sample(image, dimension: Self.dimension, point: grid.point))
        #expect(reads)
    }

    @Test func alignmentSearchFindsThePatternsMiddle() throws {
        // The template's 25 points sample the same modules for any shift under half a module:
        // the position taken is the middle of that plateau, not the end nearer the guess.
        let (image, truth) = try Self.bent(bow: 0, lean: 0)
        let t = truth(28.5, 28.5), centre = (x: t.x - 0.5, y: t.y - 0.5)
        for (dx, dy) in [(2.0, 0.0), (-2.0, 0.0), (0.0, 2.5), (-2.5, -2.0), (1.0, 1.0)] {
            let found = try #require(AlignmentSearch.locate(in: image, near: (centre.x + dx, centre.y + dy),
                                                            across: (6, 0), down: (0, 6), radius: 2))
            #expect(distance(found, centre) < 0.1 * 6, "guess moved \(dx), \(dy): found \(found)")
        }
    }

    @Test func noGridWithoutACodeOrBelowVersionSeven() throws {
        // A plain grey picture: no pattern anywhere, so no grid (the flat map was tried).
        let grey = GrayImage(width: 400, height: 400, pixels: [UInt8](repeating: 128, count: 400 * 400))
        let map = try #require(Homography(affineFrom: [(3.5, 3.5), (53.5, 3.5), (3.5, 53.5)],
                                          to: [(40, 40), (340, 40), (40, 340)]))
        #expect(AlignmentGrid.located(in: grey, map: map, dimension: 57) == nil)
        // A version 6 code has one alignment pattern, which the flat map already used.
        let (image, _) = try Self.bent(bow: 0, lean: 0)
        #expect(AlignmentGrid.located(in: image, map: map, dimension: 41) == nil)
        #expect(AlignmentGrid.located(in: image, map: try Self.flatMap(image, dimension: 57), dimension: 57) != nil)
    }
}
