import LommeCore

/// A scanner pass's one identity. The raw value is the name `--passes`, `bench/scan --matrix`
/// and the benchmark's output use; the cases are in the catalogue's order.
package enum PassName: String, CaseIterable, Sendable, CustomStringConvertible {
    case plain
    case up2
    case up3
    case inverted
    case adaptive
    case adaptiveInv = "adaptive-inv"
    case sharpenedInv = "sharpened-inv"
    case grid
    case gridInv = "grid-inv"
    case gridFine = "grid-fine"
    case gridFineInv = "grid-fine-inv"
    case regionsBin = "regions-bin"
    case gridUnlined = "grid-unlined"
    case gridUnlinedInv = "grid-unlined-inv"
    case normalized

    package var description: String { rawValue }

    /// The passes called `names`, in that order (`--passes a,b,c`). An unknown name or an empty
    /// list is a usage error: a typo must not quietly run fewer passes.
    package static func parse(_ names: [String]) throws(LommeError) -> [PassName] {
        let known = allCases.map(\.rawValue).joined(separator: ", ")
        guard !names.isEmpty else { throw .usage(.scanPassNone, "no scanner pass named — name one or more of: \(known)") }
        return try names.map { name throws(LommeError) in
            guard let pass = PassName(rawValue: name) else {
                throw .usage(.scanPassUnknown, "unknown scanner pass \"\(name)\" — the passes are: \(known)")
            }
            return pass
        }
    }
}
