import LommeImages

/// A rectangle in pixel coordinates.
struct Region: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    /// Module size inside it, in the coordinates of the image it was found in.
    var module: Double
    /// Finder patterns in it (1 to 3 for a real code).
    var finders: Int
}

extension FinderSearch {
    // MARK: Tuning: grouping finder patterns into regions to crop

    /// Patterns of one code have module sizes within this factor of each other…
    static let groupScale = 1.6
    /// …and centres more than a finder's side apart (nearer, it is the same finder) and under this many
    /// modules (version 40's are 170 apart, but that far apart is rarely one code in a photo).
    static let groupFarthest = 60.0
    /// The margin round three grouped finders, in modules.
    static let fullGroupMargin = 9.0
    /// Round fewer than three: where the finders not seen could be, for a typical code.
    static let partialGroupMargin = 30.0
    /// A region's score: every finder it holds outweighs any number of sightings.
    static let finderWeight = 1000
    /// Regions cropped, best first.
    static let maximumRegions = 3

    /// Rectangles likely to hold a code.
    static func regions(from patterns: [FinderPattern], width: Int, height: Int) -> [Region] {
        var used = [Bool](repeating: false, count: patterns.count)
        var regions: [(Region, Int)] = []
        for i in patterns.indices where !used[i] {
            used[i] = true
            var group = [patterns[i]]
            for j in patterns.indices where !used[j] {
                let a = patterns[i], b = patterns[j]
                let distance = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
                if b.module < a.module * groupScale, b.module > a.module / groupScale, distance < a.module * groupFarthest,
                   distance > a.module * Double(QRGeometry.finderSide) {
                    group.append(b); used[j] = true
                    if group.count == QRGeometry.finders { break }
                }
            }
            let module = group.map(\.module).reduce(0, +) / Double(group.count)
            let margin = group.count >= QRGeometry.finders ? module * fullGroupMargin : max(module * partialGroupMargin, 0)
            let minX = group.map(\.x).min()! - margin, maxX = group.map(\.x).max()! + margin
            let minY = group.map(\.y).min()! - margin, maxY = group.map(\.y).max()! + margin
            let x0 = max(0, Int(minX)), y0 = max(0, Int(minY))
            let x1 = min(width, Int(maxX.rounded(.up))), y1 = min(height, Int(maxY.rounded(.up)))
            guard x1 - x0 >= QRGeometry.smallestSide, y1 - y0 >= QRGeometry.smallestSide else { continue }
            let score = group.count * finderWeight + group.map(\.hits).reduce(0, +)
            regions.append((Region(x: x0, y: y0, width: x1 - x0, height: y1 - y0, module: module, finders: group.count), score))
        }
        return regions.sorted { $0.1 > $1.1 }.prefix(maximumRegions).map(\.0)
    }
}

extension Pass {
    // MARK: Tuning: the crops the regions passes scan

    /// Pixels a module gets in a crop: zbar reads modules of 3 to 4 pixels reliably.
    static let cropModule = 4.0
    /// A crop is enlarged at most this much: beyond, interpolation invents the edges.
    static let cropLargestEnlargement = 3.0
    /// The quiet zone added round a crop counts modules of at most this many pixels.
    static let cropLargestModule = 8.0
    /// `regions-bin` binarises a crop with a window this many modules wide.
    static let cropWindowModules = 3.0

    /// Crops round groups of finder patterns in the binarised working view, cut from the best resolution
    /// available, about four pixels a module, binarised against a window of a few modules.
    static func regionCrops(_ s: ScanSubject) -> [GrayImage] {
        guard let image = working(s) else { return [] }
        let patterns = workingPatterns(s, divisor: narrowWindow, inverted: false)
        let regions = FinderSearch.regions(from: patterns, width: image.width, height: image.height)
        let toFull = Double(s.fullWidth) / Double(image.width)
        var crops: [GrayImage] = []
        for region in regions {
            let fullModule = region.module * toFull
            guard let (source, factor) = s.view(forModule: fullModule, minimum: cropModule) else { continue }
            let scale = factor * toFull
            let box = Region(x: Int(Double(region.x) * scale), y: Int(Double(region.y) * scale),
                             width: Int(Double(region.width) * scale), height: Int(Double(region.height) * scale),
                             module: fullModule * factor, finders: region.finders)
            var crop = source.cropped(to: box)
            guard crop.width > 0 else { continue }
            let resize = min(cropLargestEnlargement, cropModule / box.module)
            crop = crop.scaled(by: resize)
            crop = crop.padded(Int(Double(QRGeometry.quietZone) * min(box.module * resize, cropLargestModule)), fill: 255)
            crops.append(crop.adaptiveBinarized(radius: max(smallestRadius, Int(box.module * resize * cropWindowModules))))
        }
        return crops
    }
}

extension GrayImage {
    /// The part of the picture inside `region` (clipped to the picture).
    func cropped(to region: Region) -> GrayImage {
        let x0 = max(0, region.x), y0 = max(0, region.y)
        let x1 = min(width, region.x + region.width), y1 = min(height, region.y + region.height)
        guard x1 > x0, y1 > y0 else { return GrayImage(width: 0, height: 0) }
        var output = [UInt8](repeating: 0, count: (x1 - x0) * (y1 - y0))
        output.withUnsafeMutableBufferPointer { target in
            pixels.withUnsafeBufferPointer { source in
                for y in y0..<y1 {
                    (target.baseAddress! + (y - y0) * (x1 - x0)).update(from: source.baseAddress! + y * width + x0, count: x1 - x0)
                }
            }
        }
        return GrayImage(width: x1 - x0, height: y1 - y0, pixels: output)
    }
}
