/// A plane-to-plane perspective map (a 3×3 matrix up to scale).
struct Homography: Equatable {
    /// Row-major, the last entry fixed at 1.
    private let m0, m1, m2, m3, m4, m5, m6, m7: Double
    private let m8 = 1.0

    /// A pivot smaller than this means the points are (nearly) on one line: no map.
    static let singularPivot = 1e-10

    /// The map taking each of four `from` points to the `to` at its index; nil when three are (nearly) in line.
    init?(from: [(x: Double, y: Double)], to: [(x: Double, y: Double)]) {
        guard from.count == 4, to.count == 4 else { return nil }
        // Eight equations in the eight unknowns h0…h7 (h8 = 1): an 8×9 augmented matrix, row after row.
        var a = [Double](repeating: 0, count: 8 * 9)
        for i in 0..<4 {
            let (x, y) = from[i], (u, v) = to[i], r = 2 * i * 9
            // [x, y, 1, 0, 0, 0, -ux, -uy, u] and [0, 0, 0, x, y, 1, -vx, -vy, v]
            (a[r], a[r + 1], a[r + 2], a[r + 6], a[r + 7], a[r + 8]) = (x, y, 1, -u * x, -u * y, u)
            (a[r + 12], a[r + 13], a[r + 14], a[r + 15], a[r + 16], a[r + 17]) = (x, y, 1, -v * x, -v * y, v)
        }
        guard let h = Homography.solve(&a, unknowns: 8) else { return nil }
        (m0, m1, m2, m3, m4, m5, m6, m7) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
    }

    /// The affine map through three point pairs (the fourth corner completes a parallelogram).
    init?(affineFrom from: [(x: Double, y: Double)], to: [(x: Double, y: Double)]) {
        guard from.count == 3, to.count == 3 else { return nil }
        let fourthFrom = (x: from[1].x + from[2].x - from[0].x, y: from[1].y + from[2].y - from[0].y)
        let fourthTo = (x: to[1].x + to[2].x - to[0].x, y: to[1].y + to[2].y - to[0].y)
        self.init(from: from + [fourthFrom], to: to + [fourthTo])
    }

    /// Where `(x, y)` goes.
    @inline(__always)
    func map(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let w = m6 * x + m7 * y + m8
        return ((m0 * x + m1 * y + m2) / w, (m3 * x + m4 * y + m5) / w)
    }

    /// Gaussian elimination with partial pivoting on an n×(n+1) augmented matrix stored row after row
    /// (one buffer: this runs for every triple and size the grid pass tries).
    static func solve(_ a: inout [Double], unknowns n: Int) -> [Double]? {
        let width = n + 1
        precondition(a.count == n * width, "an n×(n+1) matrix")
        // Wrapping index arithmetic: every index is below n × (n + 1), the buffer's size.
        return a.withUnsafeMutableBufferPointer { m -> [Double]? in
            for column in 0..<n {
                var pivot = column
                for row in column &+ 1..<n where abs(m[row &* width &+ column]) > abs(m[pivot &* width &+ column]) { pivot = row }
                guard abs(m[pivot &* width &+ column]) > singularPivot else { return nil }
                if pivot != column {
                    for k in 0..<width { m.swapAt(column &* width &+ k, pivot &* width &+ k) }
                }
                let top = column &* width
                for row in 0..<n where row != column {
                    let here = row &* width
                    let factor = m[here &+ column] / m[top &+ column]
                    if factor == 0 { continue }
                    for k in column...n { m[here &+ k] -= factor * m[top &+ k] }
                }
            }
            return (0..<n).map { m[$0 * width + n] / m[$0 * width + $0] }
        }
    }
}
