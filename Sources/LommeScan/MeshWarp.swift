import LommeImages

/// Local corrections to a perspective map (or the alignment grid's), for codes on bent surfaces (fabric, a can).
struct MeshWarp {
    let map: ModuleMap
    /// Modules between control points.
    let step: Int
    /// Control points per side.
    let side: Int
    var du: [Double]
    var dv: [Double]

    // MARK: Tuning

    /// Modules between control points.
    static let controlSpacing = 4
    /// `fitted`: each point searches this many modules either way in `fittedSteps` steps, nearer
    /// offsets winning ties (`fittedPull` per square module moved).
    static let fittedReach = 0.6
    static let fittedSteps = 6
    static let fittedPull = 0.15
    /// `grown`: a smaller reach round what the neighbours predict, pulled harder toward it.
    static let grownReach = 0.3
    static let grownSteps = 4
    static let grownPull = 0.5
    /// The fitted neighbours up to this many control points away predict a point's offset.
    static let predictionReach = 2
    /// Smoothing counts each point this many times against each of its four neighbours once.
    static let smoothingSelfWeight = 2.0

    /// The two ways of fitting a mesh.
    enum Fit {
        case fitted, grown

        func mesh(to image: GrayImage, map: ModuleMap, dimension: Int) -> MeshWarp {
            switch self {
            case .fitted: return MeshWarp.fitted(to: image, map: map, dimension: dimension)
            case .grown: return MeshWarp.grown(to: image, map: map, dimension: dimension)
            }
        }
    }

    /// Where module coordinates `(u, v)` are in the picture.
    @inline(__always)
    func point(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
        let gu = max(0, min(Double(side - 1), u / Double(step))), gv = max(0, min(Double(side - 1), v / Double(step)))
        let i = min(Int(gu), side - 2), j = min(Int(gv), side - 2)
        let fu = gu - Double(i), fv = gv - Double(j)
        @inline(__always) func blend(_ a: [Double]) -> Double {
            let top = a[j * side + i] * (1 - fu) + a[j * side + i + 1] * fu
            let bottom = a[(j + 1) * side + i] * (1 - fu) + a[(j + 1) * side + i + 1] * fu
            return top * (1 - fv) + bottom * fv
        }
        return map.map(u + blend(du), v + blend(dv))
    }

    /// The mesh fitted to `image` for a `dimension`-module code that `map` roughly places.
    static func fitted(to image: GrayImage, map: ModuleMap, dimension: Int) -> MeshWarp {
        let step = controlSpacing
        let side = (dimension + step - 1) / step + 1
        var du = [Double](repeating: 0, count: side * side), dv = du
        var best = [Double](repeating: -1, count: side * side)
        let window = step - 1
        let stepsPerSide = fittedSteps, delta = fittedReach / Double(stepsPerSide)
        // Every control point tries the same offsets.
        var samples = [Double](repeating: 0, count: dimension * dimension)
        image.pixels.withUnsafeBufferPointer { px in
            for sy in -stepsPerSide...stepsPerSide {
                for sx in -stepsPerSide...stepsPerSide {
                    let ou = Double(sx) * delta, ov = Double(sy) * delta
                    for row in 0..<dimension {
                        for column in 0..<dimension {
                            let p = map.map(Double(column) + 0.5 + ou, Double(row) + 0.5 + ov)
                            samples[row * dimension + column] = GridSampler.bilinear(px, image.width, image.height, p.x, p.y)
                        }
                    }
                    // Nearer offsets win ties: a whole module away also samples cleanly.
                    let pull = 1 - fittedPull * (ou * ou + ov * ov)
                    for j in 0..<side {
                        for i in 0..<side {
                            // The last control points may lie past the code's edge: their window is its edge.
                            let cu = min(i * step, dimension - 1), cv = min(j * step, dimension - 1)
                            let columns = max(0, cu - window)...min(dimension - 1, cu + window)
                            let rows = max(0, cv - window)...min(dimension - 1, cv + window)
                            let score = spread(samples, dimension, rows: rows, columns: columns) * pull
                            if score > best[j * side + i] {
                                best[j * side + i] = score
                                du[j * side + i] = ou
                                dv[j * side + i] = ov
                            }
                        }
                    }
                }
            }
        }
        return MeshWarp(map: map, step: step, side: side, du: smoothed(du, side), dv: smoothed(dv, side))
    }

    /// `clarity` from values sampled already.
    @inline(__always)
    static func spread(_ samples: [Double], _ dimension: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) -> Double {
        var sum = 0.0
        for row in rows { for column in columns { sum += samples[row * dimension + column] } }
        let count = Double(rows.count * columns.count), mean = sum / count
        var spread = 0.0
        for row in rows { for column in columns { spread += abs(samples[row * dimension + column] - mean) } }
        return spread / count
    }

    /// How clearly the modules `rows` × `columns` sample dark or light through `map` moved by (`ou`, `ov`).
    @inline(__always)
    static func clarity(_ px: UnsafeBufferPointer<UInt8>, _ image: GrayImage, _ map: ModuleMap,
                        rows: ClosedRange<Int>, columns: ClosedRange<Int>, _ ou: Double, _ ov: Double,
                        _ values: inout [Double]) -> Double {
        values.removeAll(keepingCapacity: true)
        var sum = 0.0
        for row in rows {
            for column in columns {
                let p = map.map(Double(column) + 0.5 + ou, Double(row) + 0.5 + ov)
                let value = GridSampler.bilinear(px, image.width, image.height, p.x, p.y)
                values.append(value)
                sum += value
            }
        }
        let mean = sum / Double(values.count)
        var spread = 0.0
        for value in values { spread += abs(value - mean) }
        return spread / Double(values.count)
    }

    /// Each offset averaged with its four neighbours (itself counted twice).
    static func smoothed(_ a: [Double], _ side: Int) -> [Double] {
        var out = a
        for j in 0..<side {
            for i in 0..<side {
                var sum = smoothingSelfWeight * a[j * side + i], n = smoothingSelfWeight
                for (x, y) in [(i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)] where x >= 0 && y >= 0 && x < side && y < side {
                    sum += a[y * side + x]
                    n += 1
                }
                out[j * side + i] = sum / n
            }
        }
        return out
    }
}

extension MeshWarp {
    /// The mesh grown outward from the finder patterns, for codes bent further than `fitted` can follow.
    static func grown(to image: GrayImage, map: ModuleMap, dimension: Int) -> MeshWarp {
        let step = controlSpacing
        let side = (dimension + step - 1) / step + 1
        var du = [Double](repeating: 0, count: side * side), dv = du
        var done = [Bool](repeating: false, count: side * side)
        let d = Double(dimension), c = QRGeometry.finderCentre
        let anchors = [(c, c), (d - c, c), (c, d - c)]
        func nearest(_ i: Int, _ j: Int) -> Double {
            let u = Double(min(i * step, dimension - 1)), v = Double(min(j * step, dimension - 1))
            return anchors.map { ($0.0 - u) * ($0.0 - u) + ($0.1 - v) * ($0.1 - v) }.min()!
        }
        let points = (0..<(side * side)).sorted { nearest($0 % side, $0 / side) < nearest($1 % side, $1 / side) }
        let window = step - 1
        let stepsPerSide = grownSteps, delta = grownReach / Double(stepsPerSide)
        image.pixels.withUnsafeBufferPointer { px in
            var values: [Double] = []
            for index in points {
                let i = index % side, j = index / side
                // What the fitted neighbours predict, the nearer ones weighing more.
                var pu = 0.0, pv = 0.0, weight = 0.0
                let near = predictionReach
                for y in max(0, j - near)...min(side - 1, j + near) {
                    for x in max(0, i - near)...min(side - 1, i + near) where done[y * side + x] {
                        let w = 1 / Double((x - i) * (x - i) + (y - j) * (y - j))
                        pu += w * du[y * side + x]
                        pv += w * dv[y * side + x]
                        weight += w
                    }
                }
                if weight > 0 { pu /= weight; pv /= weight }
                let cu = min(i * step, dimension - 1), cv = min(j * step, dimension - 1)
                let columns = max(0, cu - window)...min(dimension - 1, cu + window)
                let rows = max(0, cv - window)...min(dimension - 1, cv + window)
                var best = -1.0, bestU = pu, bestV = pv
                for sy in -stepsPerSide...stepsPerSide {
                    for sx in -stepsPerSide...stepsPerSide {
                        let ou = pu + Double(sx) * delta, ov = pv + Double(sy) * delta
                        let moved = (Double(sx) * Double(sx) + Double(sy) * Double(sy)) * delta * delta
                        let score = clarity(px, image, map, rows: rows, columns: columns, ou, ov, &values)
                            * (1 - grownPull * moved)
                        if score > best { best = score; bestU = ou; bestV = ov }
                    }
                }
                du[index] = bestU
                dv[index] = bestV
                done[index] = true
            }
        }
        return MeshWarp(map: map, step: step, side: side, du: smoothed(du, side), dv: smoothed(dv, side))
    }
}

/// A map from module coordinates to the picture that a mesh corrects.
enum ModuleMap {
    case plane(Homography)
    case grid(AlignmentGrid)

    @inline(__always)
    func map(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
        switch self {
        case .plane(let h): return h.map(u, v)
        case .grid(let g): return g.point(u, v)
        }
    }
}
