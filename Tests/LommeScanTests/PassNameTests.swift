import LommeCore
@testable import LommeScan
import Testing

/// Pass names come in from the benchmark's `--passes`: a name the pipeline does not know is
/// an error, not a pass quietly left out. Each pass has one identity (`PassName`), one
/// catalogue entry, and a place at most once in each plan.
@Suite("Scanner pass names")
struct PassNameTests {
    @Test func anUnknownPassNameIsAUsageErrorThatNamesIt() {
        #expect {
            _ = try PassName.parse(["plain", "sharpend"])
        } throws: { error in
            guard let error = error as? LommeError else { return false }
            return error.code == .usage && error.message.contains("\"sharpend\"")
                && error.message.contains("sharpened") && !error.message.contains("\n")
        }
    }

    /// The wording `lomme-bench --passes` has always printed.
    @Test func theUsageErrorsNameEveryPass() {
        let known = "plain, up2, up3, inverted, adaptive, adaptive-inv, sharpened-inv, grid, grid-inv, grid-fine, "
            + "grid-fine-inv, regions-bin, grid-unlined, grid-unlined-inv, normalized"
        #expect { _ = try PassName.parse(["x"]) } throws: { error in
            (error as? LommeError)?.message == "unknown scanner pass \"x\" — the passes are: \(known)"
        }
        #expect { _ = try PassName.parse([]) } throws: { error in
            (error as? LommeError)?.message == "no scanner pass named — name one or more of: \(known)"
                && (error as? LommeError)?.code == .usage
        }
    }

    @Test func everyNameIsAcceptedAndKeptInItsOrder() throws {
        for name in PassName.allCases {
            #expect(try PassName.parse([name.rawValue]) == [name])
            #expect("\(name)" == name.rawValue)
        }
        #expect(try PassName.parse(["grid", "plain"]) == [.grid, .plain])
        let all = PassName.allCases.map(\.rawValue)
        #expect(try PassName.parse(all) == PassName.allCases)
        #expect(ScanOptions(passes: [.grid, .plain]).passes == [.grid, .plain])
        #expect(ScanOptions().passes == nil)
    }

    @Test func everyNameHasOneCatalogueEntryInTheNamesOrder() {
        #expect(Pass.catalogue.map(\.name) == PassName.allCases)
        for name in PassName.allCases { #expect(Pass.named(name)?.name == name) }
    }

    @Test func thePlansUseNoPassTwice() {
        for plan in [ScanPlan.photo] + ScanPlan.frames {
            #expect(Set(plan.passes).count == plan.passes.count, "\(plan.passes)")
            #expect(plan.mandatory > 0 && plan.mandatory <= plan.passes.count)
        }
        #expect(ScanOptions(plan: .frame).passes == ScanPlan.frame.passes && ScanOptions(plan: .frame).mandatory == 3)
    }

    /// A plan less some passes (`lomme-bench --without`): the others in their order, those
    /// left of the first `mandatory` still mandatory.
    @Test func aPlanLessSomePassesKeepsTheOthersInOrder() {
        let photo = ScanPlan.photo
        let lessOne = photo.without([.normalized])
        #expect(lessOne.passes == photo.passes.filter { $0 != .normalized } && lessOne.passes.count == photo.passes.count - 1)
        #expect(lessOne.mandatory == photo.mandatory)
        let lessGrid = photo.without([.grid, .regionsBin])
        #expect(lessGrid.passes.first == .plain && !lessGrid.passes.contains(.grid) && !lessGrid.passes.contains(.regionsBin))
        #expect(lessGrid.passes.count == photo.passes.count - 2 && lessGrid.mandatory == photo.mandatory - 1)
        #expect(photo.without([]) == photo && photo.without([.adaptive]) == photo, "a pass the plan does not run")
    }

    /// Every pass of the catalogue but the adaptive threshold and its negation, once: on photos
    /// the other passes read what they did (a camera's frames keep both, LommeCameraTests).
    @Test func thePipelineRunsEveryPassOfTheCatalogueButTheAdaptiveThresholdsOnce() {
        #expect(Scanner.pipeline.map(\.name) == ScanPlan.photo.passes)
        #expect(Set(PassName.allCases).subtracting(ScanPlan.photo.passes) == [.adaptive, .adaptiveInv])
        #expect(ScanOptions().mandatory == ScanPlan.photo.mandatory && ScanPlan.photo.mandatory == 2)
    }
}
