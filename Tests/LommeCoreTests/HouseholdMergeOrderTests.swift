import LommeCore
import LommeTestSupport
import Testing

/// docs/SYNC.md, "Merging": the same journals give every machine the same household, in any
/// order, merged once or twice, an older copy of a journal after the newer one or before it.
/// Three machines changed the household between syncs: the config (two of them the same
/// revision two ways), children added, rekeyed and removed at equal and at different
/// versions, records new and later handed out and confirmed. Each journal goes through its
/// JSON as a journal file carries it (its entries stamped with the writer on reading).
@Suite("The merge gives one household in any order")
struct HouseholdMergeOrderTests {
    let household = RecoveryKey.generate().householdKey
    let x = IssuerKeyPair.generate(), y = IssuerKeyPair.generate(), z = IssuerKeyPair.generate()
    let observer = IssuerKeyPair.generate()
    /// Each machine's receiving key, the same in every entry that names it.
    let receiving = (0..<3).map { _ in ReceivingKeyPair.generate().publicKey }
    let keys = (0..<6).map { _ in ReceivingKeyPair.generate().publicKey }
    static let now = Instant(text: "2026-11-29T12:00:00Z")!

    func id(_ machine: IssuerKeyPair) -> IssuerID { machine.publicKey.id }

    func vouch(_ version: UInt64) throws -> Vouch {
        try Vouch.make(household, version: version, issuers: [x, y, z, observer].map(\.publicKey.id))
    }

    func config(_ secret: String) -> Config { sampleConfig(secret: secret) }

    func child(_ name: String, key: Int, version: UInt64, by machine: IssuerKeyPair, added: Instant = Instant(text: "2026-01-01T00:00:00Z")!) -> Child {
        var child = Child(name: name, receivingKey: keys[key], accountNr: "97104133219", fields: [], added: added)
        child.version = version
        child.by = id(machine)
        return child
    }

    func record(_ name: String, key: Int, issued: Int64, revision: UInt64, by machine: IssuerKeyPair,
                handedOut: IssueRecord.HandOut = .no, confirmed: Int64? = nil) -> IssueRecord {
        var record = IssueRecord(child: name, recipient: keys[key].fingerprint, id: Sodium.hex(Sodium.blake2b(Array("\(name) \(issued)".utf8) + id(machine).bytes, length: 16)),
                                 issued: issued, expires: issued + 86_400 * 400, credential: String(repeating: "ab", count: 16), handedOut: handedOut)
        record.confirmed = confirmed
        record.by = id(machine)
        record.revision = revision
        return record
    }

    func parent(_ name: String, _ machine: IssuerKeyPair, version: UInt64, by writer: IssuerKeyPair) -> Parent {
        let index = [x, y, z].firstIndex { $0.publicKey == machine.publicKey }!
        let key = ParentKey(receiving: receiving[index], issuer: machine.publicKey)
        return Parent(name: name, key: key, added: Instant(text: "2026-01-01T00:00:00Z")!, version: version, by: id(writer))
    }

    /// `facts` as the writer's journal says them: sealed in JSON and read back, as `sync` reads it.
    func journal(_ writer: IssuerKeyPair, sequence: UInt64, vouch: Vouch, _ fill: (inout HouseholdFacts) -> Void) throws -> HouseholdFacts {
        var facts = HouseholdFacts(household: household.publicKey, vouch: vouch, rotations: [])
        fill(&facts)
        let text = Journal(sequence: sequence, written: Self.now, facts: facts).json.text
        return try Journal(json: try JSON.parse(text), writer: id(writer)).facts
    }

    /// The observer's vault before any of the journals: revision 1 of the config (made by
    /// x), Anna and Lise, one record.
    func base() throws -> VaultContents {
        var contents = VaultContents(config: config("revision one"), now: Instant(text: "2026-01-01T00:00:00Z")!)
        contents.household.root = HouseholdRoot(publicKey: household.publicKey, vouch: try vouch(100), made: Instant(text: "2026-01-01T00:00:00Z")!)
        contents.household.revision = 1
        contents.household.configBy = id(x)
        contents.household.secretSet = Instant(text: "2026-01-01T00:00:00Z")!
        contents.household.children = [child("anna", key: 0, version: 1, by: x), child("lise", key: 4, version: 2, by: x)]
        contents.household.issued = [record("anna", key: 0, issued: 1_000, revision: 1, by: x, handedOut: .at(1_001))]
        return contents
    }

    /// What each machine wrote: x twice (an older journal and its newer one), y and z once.
    func journals() throws -> (xOld: HouseholdFacts, xNew: HouseholdFacts, y: HouseholdFacts, z: HouseholdFacts) {
        let v100 = try vouch(100), v200 = try vouch(200)
        let xOld = try journal(x, sequence: 1, vouch: v100) { facts in
            facts.configs = [ConfigFact(revision: 2, config: config("x's revision two"), secretSet: Instant(text: "2026-02-01T00:00:00Z")!, by: id(x))]
            facts.children = [child("anna", key: 1, version: 2, by: x)]
            facts.gone = [ChildTombstone(name: "lise", version: 3, by: id(x))]
            facts.parents = [parent("far", x, version: 1, by: x)]
            facts.issued = [record("anna", key: 1, issued: 2_000, revision: 2, by: x)]
        }
        let xNew = try journal(x, sequence: 2, vouch: v100) { facts in
            facts.configs = xOld.configs
            facts.children = xOld.children + [child("ola", key: 2, version: 1, by: x, added: Instant(text: "2026-02-02T00:00:00Z")!)]
            facts.gone = xOld.gone
            facts.parents = xOld.parents + [parent("tante", z, version: 1, by: x)]
            facts.issued = [record("anna", key: 1, issued: 2_000, revision: 2, by: x, handedOut: .at(2_001), confirmed: 2_050),
                            record("ola", key: 2, issued: 2_100, revision: 2, by: x, handedOut: .at(2_101))]
        }
        let yFacts = try journal(y, sequence: 7, vouch: v200) { facts in
            facts.configs = [ConfigFact(revision: 3, config: config("y's revision three"), secretSet: Instant(text: "2026-03-01T00:00:00Z")!, by: id(y))]
            // Anna rekeyed on y as on x, at the same version; Lise rekeyed where x removed her.
            facts.children = [child("anna", key: 3, version: 2, by: y), child("per", key: 5, version: 1, by: y, added: Instant(text: "2026-03-02T00:00:00Z")!),
                              child("lise", key: 3, version: 3, by: y)]
            facts.gone = [ChildTombstone(name: "kari", version: 2, by: id(y))]
            facts.parents = [parent("mor", y, version: 1, by: y)]
            facts.issued = [record("per", key: 5, issued: 3_000, revision: 3, by: y, handedOut: .at(3_001))]
        }
        let zFacts = try journal(z, sequence: 3, vouch: v100) { facts in
            facts.configs = [ConfigFact(revision: 3, config: config("z's revision three"), secretSet: Instant(text: "2026-03-03T00:00:00Z")!, by: id(z))]
            facts.children = [child("kari", key: 4, version: 1, by: z, added: Instant(text: "2026-03-01T00:00:00Z")!), child("ola", key: 5, version: 2, by: z)]
            facts.parents = [parent("tante", z, version: 2, by: z)]
            facts.issued = [record("kari", key: 4, issued: 2_500, revision: 2, by: z, handedOut: .at(2_501)),
                            record("ola", key: 5, issued: 3_100, revision: 3, by: z, handedOut: .at(3_101), confirmed: 3_200)]
        }
        return (xOld, xNew, yFacts, zFacts)
    }

    /// The household (and the stored config) after merging `order` into the base, as the
    /// vault would hold them.
    func merged(_ order: [(IssuerKeyPair, HouseholdFacts)]) throws -> String {
        var contents = try base()
        for (writer, facts) in order { _ = contents.merge(facts, writer: writer.publicKey, me: id(observer), now: Self.now) }
        return contents.household.json.text + "\n" + (contents.config?.json.text ?? "no config")
    }

    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[T]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    @Test func everyOrderOfThreeMachinesJournalsGivesTheSameHousehold() throws {
        let j = try journals()
        let three = [(x, j.xNew), (y, j.y), (z, j.z)]
        let expected = try merged(three)
        // (Compared as a Bool: the config holds a secret, never put into a message.)
        for order in Self.permutations(three) {
            let once = try merged(order) == expected, twice = try merged(order + order) == expected
            #expect(once, "order \(order.map { $0.0.publicKey.fingerprint })")
            #expect(twice, "merged twice in order \(order.map { $0.0.publicKey.fingerprint })")
        }
        // An older copy of x's journal, before or after the newer one, anywhere: nothing changes.
        for order in Self.permutations(three + [(x, j.xOld)]) {
            let same = try merged(order) == expected
            #expect(same, "with x's older journal, order \(order.map { $0.0.publicKey.fingerprint + "/\($0.1.issued.count)" })")
        }
    }

    @Test func theMergedHouseholdIsWhatTheRulesSay() throws {
        let j = try journals()
        var contents = try base()
        for (writer, facts) in [(x, j.xNew), (y, j.y), (z, j.z)] {
            _ = contents.merge(facts, writer: writer.publicKey, me: id(observer), now: Self.now)
        }
        let household = contents.household
        /// Of two machines, the one whose id orders later.
        let later = { (a: IssuerKeyPair, b: IssuerKeyPair) in Versioned.later((1, id(a)), than: (1, id(b))) ? a : b }
        let yLower = id(later(y, z)) == id(z)
        // The config: revision 3 made two ways; the one of the lower maker's id is stored.
        #expect(household.revision == 3 && household.configBy == id(yLower ? y : z))
        let stored = contents.config?.clientSecret == (yLower ? "y's revision three" : "z's revision three")
        #expect(stored, "the config of the lower maker's id is stored")
        #expect(household.conflict.map(\.by) == [id(yLower ? z : y)])
        // Anna: version 2 on x and on y, the higher maker's id wins; Ola: z's version 2
        // over x's 1; Kari: y's removal (2) over z's adding (1); Lise: 3 removed on x and
        // rekeyed on y, the higher id wins; Per: y's.
        let anna = try #require(household.child(named: "anna"))
        let xLater = id(later(x, y)) == id(x)
        #expect(anna.by == id(later(x, y)) && anna.receivingKey == keys[xLater ? 1 : 3])
        #expect(household.child(named: "ola")?.by == id(z) && household.child(named: "ola")?.version == 2)
        #expect(household.child(named: "kari") == nil && household.gone.contains { $0.name == "kari" && $0.version == 2 })
        #expect((household.child(named: "lise") != nil) == !xLater)
        #expect(household.child(named: "per")?.by == id(y))
        // The record: the union by code id, x's record handed out and confirmed.
        #expect(household.issued.count == 6)
        let annas = try #require(household.issued.first { $0.child == "anna" && $0.issued == 2_000 })
        #expect(annas.handedOut == .at(2_001) && annas.confirmed == 2_050)
        // The newer vouch (y's).
        #expect(household.root?.vouch.version == 200)
        // Tante's entry: z's own change (version 2) over x's adding.
        #expect(household.parents.first { $0.name == "tante" }?.by == id(z))
    }

    /// Two machines that made the same revision the same way (the same secret set on both
    /// between syncs): no conflict, and the same household whichever came first.
    @Test func theSameRevisionMadeTheSameWayTwiceIsOneRevisionInAnyOrder() throws {
        let v100 = try vouch(100)
        let renewed = config("the same renewed secret")
        let onX = try journal(x, sequence: 1, vouch: v100) {
            $0.configs = [ConfigFact(revision: 2, config: renewed, secretSet: Instant(text: "2026-04-01T00:00:00Z")!, by: id(x))]
        }
        let onY = try journal(y, sequence: 1, vouch: v100) {
            $0.configs = [ConfigFact(revision: 2, config: renewed, secretSet: Instant(text: "2026-04-02T00:00:00Z")!, by: id(y))]
        }
        let same = try merged([(x, onX), (y, onY)]) == merged([(y, onY), (x, onX)])
        #expect(same)
        var contents = try base()
        _ = contents.merge(onX, writer: x.publicKey, me: id(observer), now: Self.now)
        _ = contents.merge(onY, writer: y.publicKey, me: id(observer), now: Self.now)
        #expect(contents.household.conflict.isEmpty && contents.household.revision == 2)
    }

    /// A record is its issuing machine's: another machine's copy of it that says it was
    /// handed out or confirmed changes nothing, and neither does an older copy of the issuer's.
    @Test func onlyTheIssuingMachineChangesItsRecord() throws {
        let v100 = try vouch(100)
        let mine = record("anna", key: 0, issued: 5_000, revision: 1, by: x)
        let issued = try journal(x, sequence: 1, vouch: v100) { $0.issued = [mine] }
        var forged = mine
        forged.by = id(y)
        forged.handedOut = .at(5_001)
        forged.confirmed = 5_002
        let claimed = try journal(y, sequence: 1, vouch: v100) { $0.issued = [forged] }
        var contents = try base()
        _ = contents.merge(issued, writer: x.publicKey, me: id(observer), now: Self.now)
        _ = contents.merge(claimed, writer: y.publicKey, me: id(observer), now: Self.now)
        let held = try #require(contents.household.issued.first { $0.id == mine.id })
        #expect(held.handedOut == .no && held.confirmed == nil && held.by == id(x))
    }
}
