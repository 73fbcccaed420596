import LommeImages

/// Reading a code module by module through a map and redrawing it clean and square for zbar (`render`).
enum GridSampler {
    // MARK: Tuning

    /// Each module's grey is the mean of 3×3 points this far (in modules) either side of its
    /// centre: the middle of a module, away from edges a slightly wrong map blurs.
    static let sampleOffset = 0.2
    /// The sampled grid's local threshold: the mean of the modules this many either side.
    static let gridWindow = 4
    /// Pixels a module in the redrawn code: zbar reads 3-pixel modules reliably and fast.
    static let renderScale = 3
    /// The alignment pattern is searched this many modules round where it should be.
    static let alignmentSearchShare = 8.0
    static let smallestAlignmentSearch = 4.0
    static let largestAlignmentSearch = 8.0

    /// Mean grey round the centre of every module of a `dimension`² code that `map` places in `image`.
    static func sample(_ image: GrayImage, map: Homography, dimension: Int) -> GrayImage {
        sample(image, dimension: dimension) { map.map($0, $1) }
    }

    /// Modules from each finder corner a `localGrid`'s finder agreement reads: its 8×8 block and the window beyond.
    static let cornerReach = QRGeometry.finderSide + 1 + gridWindow

    /// The finder corner `corner` of a `dimension`-module code that `map` places in `image`, `cornerReach`
    /// modules square, each module read at its centre and thresholded as `localGrid` would: the modules
    /// `FixedPatterns.agreeing` reads, the same as a whole sample's, at a fraction of the work.
    static func cornerGrid(_ image: GrayImage, map: Homography, dimension: Int, _ corner: QRGeometry.FinderCorner) -> GrayImage {
        let reach = min(cornerReach, dimension), far = dimension - reach
        let (top, left) = switch corner {
        case .topLeft: (0, 0)
        case .topRight: (0, far)
        case .bottomLeft: (far, 0)
        }
        let w = image.width, h = image.height
        // Written straight into the grid's storage: a picture's scan asks for thousands of these.
        let values = [UInt8](unsafeUninitializedCapacity: reach * reach) { out, count in
            image.pixels.withUnsafeBufferPointer { px in
                for row in 0..<reach {
                    for column in 0..<reach {
                        let centre = map.map(Double(left + column) + 0.5, Double(top + row) + 0.5)
                        out[row &* reach &+ column] = grey(bilinear(px, w, h, centre.x, centre.y))
                    }
                }
            }
            count = reach * reach
        }
        return localGrid(GrayImage(width: reach, height: reach, pixels: values))
    }

    /// `sample` through any map from module coordinates to the picture (a `MeshWarp`, an `AlignmentGrid`).
    static func sample(_ image: GrayImage, dimension: Int, point: (Double, Double) -> (x: Double, y: Double)) -> GrayImage {
        var values = [UInt8](repeating: 255, count: dimension * dimension)
        image.pixels.withUnsafeBufferPointer { px in
            for row in 0..<dimension {
                for column in 0..<dimension {
                    let mean = module(px, image.width, image.height, row: row, column: column, point: point)
                    values[row * dimension + column] = grey(mean)
                }
            }
        }
        return GrayImage(width: dimension, height: dimension, pixels: values)
    }

    /// The points each module's grey is the mean of, either way of its centre (in modules).
    static let sampleOffsets = [-sampleOffset, 0.0, sampleOffset]

    /// The mean grey of the 3×3 points round the centre of module (`row`, `column`), which `point` places.
    @inline(__always)
    static func module(_ px: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, row: Int, column: Int,
                       point: (Double, Double) -> (x: Double, y: Double)) -> Double {
        var sum = 0.0
        for dy in sampleOffsets {
            for dx in sampleOffsets {
                let p = point(Double(column) + 0.5 + dx, Double(row) + 0.5 + dy)
                sum += bilinear(px, w, h, p.x, p.y)
            }
        }
        return sum / Double(sampleOffsets.count * sampleOffsets.count)
    }

    /// A module's mean grey as a byte.
    @inline(__always)
    static func grey(_ mean: Double) -> UInt8 {
        let clamped = max(0, min(255, mean)), whole = Int(clamped)
        return UInt8(truncatingIfNeeded: clamped - Double(whole) >= 0.5 ? whole &+ 1 : whole)
    }

    /// The same for one module of `image`.
    static func module(_ image: GrayImage, row: Int, column: Int, point: (Double, Double) -> (x: Double, y: Double)) -> Double {
        image.pixels.withUnsafeBufferPointer { module($0, image.width, image.height, row: row, column: column, point: point) }
    }

    /// Two-level module grids from sampled values.
    static func binarizations(_ values: GrayImage) -> [GrayImage] {
        [localGrid(values), values.otsuBinarized()]
    }

    /// The first of `binarizations`: against the mean of the modules around each.
    /// (`adaptiveBinarized(radius: gridWindow, offset: 0, minContrast: 0)`, by `LocalStats.belowMean`.)
    static func localGrid(_ values: GrayImage) -> GrayImage {
        GrayImage(width: values.width, height: values.height, pixels: LocalStats.belowMean(values, radius: gridWindow))
    }

    /// A two-level module grid drawn `scale` pixels a module with a four-module quiet zone.
    static func render(_ modules: GrayImage, scale: Int = renderScale) -> GrayImage {
        let quiet = QRGeometry.quietZone, side = (modules.width + 2 * quiet) * scale
        var output = [UInt8](repeating: 255, count: side * side)
        for row in 0..<modules.height {
            for column in 0..<modules.width where modules.pixels[row * modules.width + column] < 128 {
                for y in 0..<scale {
                    let start = ((row + quiet) * scale + y) * side + (column + quiet) * scale
                    for x in 0..<scale { output[start + x] = 0 }
                }
            }
        }
        return GrayImage(width: side, height: side, pixels: output)
    }

    /// The grey at a fractional position, interpolated; the nearest edge beyond the picture.
    @inline(__always)
    static func bilinear(_ px: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> Double {
        let fx = max(0, min(Double(w - 1), x)), fy = max(0, min(Double(h - 1), y))
        let x0 = min(Int(fx), max(0, w - 2)), y0 = min(Int(fy), max(0, h - 2))
        let x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
        let ax = fx - Double(x0), ay = fy - Double(y0)
        // Wrapping index arithmetic: the clamps above keep every index inside the picture.
        let top = Double(px[y0 &* w &+ x0]) * (1 - ax) + Double(px[y0 &* w &+ x1]) * ax
        let bottom = Double(px[y1 &* w &+ x0]) * (1 - ax) + Double(px[y1 &* w &+ x1]) * ax
        return top * (1 - ay) + bottom * ay
    }

    /// The first guess at the map for a `dimension`-module code whose finder centres are `triple`.
    static func guide(for triple: FinderTriple, dimension: Int) -> Homography? {
        let d = Double(dimension), c = QRGeometry.finderCentre
        let moduleCentres = [(x: c, y: c), (x: d - c, y: c), (x: c, y: d - c)]
        return triple.perspectiveMap(dimension: dimension)
            ?? Homography(affineFrom: moduleCentres, to: [triple.topLeft, triple.topRight, triple.bottomLeft])
    }

    /// The perspective map for a `dimension`-module code that `guide` roughly places in `image`.
    static func map(guided guide: Homography, for triple: FinderTriple, dimension: Int, in image: GrayImage) -> Homography {
        guard dimension >= QRGeometry.smallestAlignedSide else { return guide }
        let d = Double(dimension), c = QRGeometry.finderCentre, a = d - QRGeometry.alignmentCentre
        let radius = min(largestAlignmentSearch, max(smallestAlignmentSearch, d / alignmentSearchShare))
        guard let found = AlignmentSearch.locate(in: image, map: guide, u: a, v: a, radius: radius) else { return guide }
        return Homography(from: [(c, c), (d - c, c), (c, d - c), (a, a)],
                          to: [triple.topLeft, triple.topRight, triple.bottomLeft, found]) ?? guide
    }
}
