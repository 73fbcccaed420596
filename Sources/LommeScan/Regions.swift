import LommeImages

/// Finding where a code probably is, so that a crop of it can be scanned again at a
/// better scale: QR finder patterns (the three nested squares, a 1:1:3:1:1 run of
/// dark and light along any line through their centre) in a two-level picture.
struct FinderPattern: Equatable {
    var x: Double
    var y: Double
    /// Width of one module in pixels.
    var module: Double
    /// How many scan lines confirmed it.
    var hits: Int
}

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

enum FinderSearch {
    /// Finder patterns in `image`, which should be binarised (0 and 255).
    static func patterns(in image: GrayImage) -> [FinderPattern] {
        let w = image.width, h = image.height
        guard w >= 21, h >= 21 else { return [] }
        var found: [FinderPattern] = []
        image.pixels.withUnsafeBufferPointer { px in
            var starts: [Int] = [], lengths: [Int] = []
            starts.reserveCapacity(w); lengths.reserveCapacity(w)
            var five = [0, 0, 0, 0, 0]
            for y in 0..<h {
                let row = y * w
                // The row as runs; runs at even indices are dark.
                starts.removeAll(keepingCapacity: true); lengths.removeAll(keepingCapacity: true)
                var x = 0
                while x < w && px[row + x] >= 128 { x += 1 }
                while x < w {
                    let dark = px[row + x] < 128
                    var end = x + 1
                    while end < w && (px[row + end] < 128) == dark { end += 1 }
                    starts.append(x); lengths.append(end - x)
                    x = end
                }
                var i = 0
                while i + 4 < lengths.count {
                    for k in 0..<5 { five[k] = lengths[i + k] }
                    if let module = ratioModule(five) {
                        let centerX = Double(starts[i + 2]) + Double(lengths[i + 2]) / 2
                        if let (centerY, vModule) = crossCheckVertical(px, w, h, x: Int(centerX), y: y, expected: module) {
                            add(&found, FinderPattern(x: centerX, y: centerY, module: (module + vModule) / 2, hits: 1))
                        }
                    }
                    i += 2
                }
            }
        }
        // An upright finder's 3-module centre is crossed by about 3·module scan lines, but one
        // turned 30-45° only by the few rows near its exact centre (its runs keep the ratio
        // there alone); asking for 1.5·module sightings lost codes turned that far.
        // Look-alikes in the data area are confirmed by fewer still, and triples are ranked
        // by sightings.
        return found.filter { $0.hits >= max(2, Int($0.module * 0.5)) }.sorted { $0.hits > $1.hits }
    }

    /// The module size if five run lengths are close enough to 1:1:3:1:1.
    static func ratioModule(_ r: [Int]) -> Double? {
        let total = r[0] + r[1] + r[2] + r[3] + r[4]
        guard total >= 7 else { return nil }
        let module = Double(total) / 7
        let tolerance = module * 0.7
        for i in [0, 1, 3, 4] where abs(Double(r[i]) - module) > tolerance { return nil }
        guard abs(Double(r[2]) - 3 * module) < 3 * tolerance * 0.8 else { return nil }
        return module
    }

    /// Counts runs up and down from a dark centre pixel and checks the same ratio there.
    static func crossCheckVertical(_ px: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, x: Int, y: Int, expected: Double) -> (Double, Double)? {
        guard x >= 0, x < w else { return nil }
        @inline(__always) func dark(_ yy: Int) -> Bool { px[yy * w + x] < 128 }
        guard dark(y) else { return nil }
        let limit = Int(expected * 5) + 2
        var r = [0, 0, 0, 0, 0]
        // Upwards: centre dark, light, dark.
        var yy = y
        while yy >= 0 && dark(yy) { r[2] += 1; yy -= 1 }
        while yy >= 0 && !dark(yy) && r[1] <= limit { r[1] += 1; yy -= 1 }
        while yy >= 0 && dark(yy) && r[0] <= limit { r[0] += 1; yy -= 1 }
        yy = y + 1
        while yy < h && dark(yy) { r[2] += 1; yy += 1 }
        while yy < h && !dark(yy) && r[3] <= limit { r[3] += 1; yy += 1 }
        while yy < h && dark(yy) && r[4] <= limit { r[4] += 1; yy += 1 }
        guard r[0] > 0, r[1] > 0, r[3] > 0, r[4] > 0, let module = ratioModule(r) else { return nil }
        guard module < expected * 1.6, module > expected / 1.6 else { return nil }
        let centerY = Double(yy - r[4] - r[3]) - Double(r[2]) / 2
        return (centerY, module)
    }

    /// Merges a sighting with a pattern found before at the same place and scale.
    static func add(_ found: inout [FinderPattern], _ new: FinderPattern) {
        for i in found.indices {
            let old = found[i]
            if abs(old.x - new.x) <= old.module * 2, abs(old.y - new.y) <= old.module * 2,
               new.module < old.module * 1.5, new.module > old.module / 1.5 {
                let n = Double(old.hits)
                found[i] = FinderPattern(x: (old.x * n + new.x) / (n + 1), y: (old.y * n + new.y) / (n + 1),
                                         module: (old.module * n + new.module) / (n + 1), hits: old.hits + 1)
                return
            }
        }
        found.append(new)
    }

    /// Rectangles likely to hold a code: finder patterns of a similar module size near
    /// each other grouped, and each group's extent grown by the quiet zone (or, with
    /// fewer than three patterns, by a typical code size in every direction).
    static func regions(from patterns: [FinderPattern], width: Int, height: Int, limit: Int = 3) -> [Region] {
        var used = [Bool](repeating: false, count: patterns.count)
        var regions: [(Region, Int)] = []
        for i in patterns.indices where !used[i] {
            used[i] = true
            var group = [patterns[i]]
            for j in patterns.indices where !used[j] {
                let a = patterns[i], b = patterns[j]
                let distance = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
                if b.module < a.module * 1.6, b.module > a.module / 1.6, distance < a.module * 60, distance > a.module * 7 {
                    group.append(b); used[j] = true
                    if group.count == 3 { break }
                }
            }
            let module = group.map(\.module).reduce(0, +) / Double(group.count)
            let margin = group.count >= 3 ? module * 9 : max(module * 30, 0)
            let minX = group.map(\.x).min()! - margin, maxX = group.map(\.x).max()! + margin
            let minY = group.map(\.y).min()! - margin, maxY = group.map(\.y).max()! + margin
            let x0 = max(0, Int(minX)), y0 = max(0, Int(minY))
            let x1 = min(width, Int(maxX.rounded(.up))), y1 = min(height, Int(maxY.rounded(.up)))
            guard x1 - x0 >= 21, y1 - y0 >= 21 else { continue }
            let score = group.count * 1000 + group.map(\.hits).reduce(0, +)
            regions.append((Region(x: x0, y: y0, width: x1 - x0, height: y1 - y0, module: module, finders: group.count), score))
        }
        return regions.sorted { $0.1 > $1.1 }.prefix(limit).map(\.0)
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
