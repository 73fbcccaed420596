import Glibc
import LommeImages

/// When a picture whose codes were read has been searched enough: no finder patterns off the
/// codes read make a code the grid sampler would try (a triple whose corners sample as finder
/// patterns), dark on light or light on dark, in any search of the working view
/// (docs/scanner.md, "Searched enough"). A code of another application's, read by the first
/// pass, then ends the scan at once, as zbarimg's one look does; a second code beside it, or
/// one the first pass cannot read, shows a triple of its own and the search goes on.
enum Settle {
    // MARK: Tuning: searched enough

    /// How far outside a code's outline, in the pattern's modules, its own finder pattern may
    /// be seen: zbar's outline is the code's edge, a finder's centre 3.5 modules inside it.
    static let margin = 2.0
    /// A pattern off the codes read counts when crossed by at least this many rows, and by
    /// `leastSightingsPerModule` a module: a finder's 3-module centre is crossed by about three
    /// rows a module (8-12 at 3-4 px on the tune half's photos), a look-alike in paper grain,
    /// noise or a code's border by two.
    static let leastSightings = 3
    static let leastSightingsPerModule = 1.5

    /// Whether `s` shows no code beyond those read, outlined by `codes` in the working view.
    /// Never for a picture the fine passes search at full resolution (a small code there
    /// shows in no search of the working view) or with no code outlined.
    static func searchedEnough(_ s: ScanSubject, codes: [[SIMD2<Double>]]) -> Bool {
        guard !codes.isEmpty, Pass.fineSide(long: s.fullLongSide) == nil, let image = Pass.working(s) else { return false }
        let outlines = codes.map(hull)
        let onACode = { (p: FinderPattern) in outlines.contains { contains($0, SIMD2(p.x, p.y), margin: margin * p.module) } }
        // A picture bigger than the working view: the grid sampler samples a small code from a finer view.
        let reduced = s.fullLongSide > max(image.width, image.height)
        for inverted in [false, true] {
            let grey = inverted ? Pass.negated(s, "working", image) : image
            // The searches share patterns (one window's with the other's added): each set of
            // patterns off the codes is made into triples once.
            var tried: [[FinderPattern]] = []
            for search in GridPass.searches(s, inverted: inverted) {
                let (binary, patterns) = search()
                let loose = patterns.filter { !onACode($0) && seen($0) }
                guard loose.count >= QRGeometry.finders, !tried.contains(loose) else { continue }
                tried.append(loose)
                for triple in FinderSearch.triples(from: loose, in: binary, grey: grey) {
                    if reduced && min(triple.moduleAcross, triple.moduleDown) < GridPass.minimumModule { return false }
                    if triple.candidateDimensions.contains(where: {
                        GridPass.cornerAgreement(triple, in: grey, dimension: $0) >= GridPass.leastFinderAgreement
                    }) { return false }
                }
            }
        }
        return true
    }

    /// Whether `pattern` is crossed by enough rows to be a finder pattern of a code.
    static func seen(_ pattern: FinderPattern) -> Bool {
        pattern.hits >= leastSightings && Double(pattern.hits) >= leastSightingsPerModule * pattern.module
    }

    /// `points` as a convex polygon in order round its centre (zbar lists a code's corners
    /// top-left, top-right, bottom-left, bottom-right).
    static func hull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        guard !points.isEmpty else { return [] }
        let centre = points.reduce(.zero, +) / Double(points.count)
        return points.sorted { a, b in
            let da = a - centre, db = b - centre
            return atan2(da.y, da.x) < atan2(db.y, db.x)
        }
    }

    /// Whether `point` lies inside the convex polygon `outline`, or within `margin` of it.
    static func contains(_ outline: [SIMD2<Double>], _ point: SIMD2<Double>, margin: Double) -> Bool {
        guard outline.count >= 3 else { return false }
        let centre = outline.reduce(.zero, +) / Double(outline.count)
        for (n, a) in outline.enumerated() {
            let edge = outline[(n + 1) % outline.count] - a
            let length = (edge * edge).sum().squareRoot()
            guard length > 0 else { continue }
            // Signed distance from the edge's line, positive on the centre's side.
            let side = { (q: SIMD2<Double>) in (edge.x * (q.y - a.y) - edge.y * (q.x - a.x)) / length }
            let inward: Double = side(centre) >= 0 ? 1 : -1
            if side(point) * inward < -margin { return false }
        }
        return true
    }
}
