import LommeCore
@testable import LommeScan
import Testing

/// Pass names come in from the benchmark's `--passes` and from tests: a name the pipeline
/// does not know is an error, not a pass quietly left out.
@Suite("Scanner pass names")
struct PassNameTests {
    @Test func anUnknownPassNameIsAUsageErrorThatNamesIt() {
        #expect {
            _ = try ScanOptions(passes: ["plain", "sharpend"])
        } throws: { error in
            guard let error = error as? LommeError else { return false }
            return error.code == .usage && error.message.contains("\"sharpend\"")
                && error.message.contains("sharpened") && !error.message.contains("\n")
        }
    }

    @Test func anEmptyPassListIsAUsageError() {
        #expect(throws: LommeError.self) { _ = try ScanOptions(passes: []) }
    }

    @Test func knownNamesAreKeptInTheirOrder() throws {
        let options = try ScanOptions(passes: ["grid", "plain"])
        #expect(options.passes == ["grid", "plain"])
        #expect(try ScanOptions(passes: nil).passes == nil)
        #expect(try ScanOptions(passes: Scanner.allPassNames).passes == Scanner.allPassNames)
    }

    /// Every pass of the catalogue but the adaptive threshold, once: the grid sampler reads
    /// what it did on photos (a camera's frames keep it, LommeCameraTests).
    @Test func thePipelineRunsEveryPassOfTheCatalogueButAdaptiveOnce() {
        #expect(Scanner.pipeline.map(\.name) == Scanner.order)
        #expect(Set(Scanner.order).count == Scanner.order.count)
        #expect(Set(Scanner.allPassNames).subtracting(Scanner.order) == ["adaptive"])
    }
}
