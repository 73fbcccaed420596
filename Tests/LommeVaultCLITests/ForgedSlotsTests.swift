import Foundation
@testable import LommeCore
import LommeTestSupport
import Testing

/// A vault file edited to carry more passphrase slots than lomme-vault makes (each would
/// cost one Argon2id run per guess), or two slots with one id, is refused as damaged
/// (exit 5) before any KDF runs. Attacked through the built binary.
@Suite("Forged key slots (through the built binary)")
struct ForgedSlotsTests {
    /// The vault with `extra` slots appended to its own.
    static func forged(_ vault: PromiseVault, _ extra: (VaultSlot) -> [VaultSlot]) throws -> [UInt8] {
        let sealed = try VaultFormat.parse(vault.bytes)
        let passphrase = try #require(sealed.slots.first)
        return VaultFormat.replacingSlots(sealed, with: sealed.slots + extra(passphrase))
    }

    @Test(arguments: [2, 8])
    func morePassphraseSlotsThanOneAreDamaged(count: Int) throws {
        let vault = PromiseVault()
        let bytes = try Self.forged(vault) { slot in
            (1..<count).map { n in var copy = slot; copy.id = UInt8(n + 10); return copy }
        }
        vault.replace(with: bytes)
        // Refused from the header, before any Argon2id run.
        expectRefusal(vault.run(["get", "clientId"]), 5, "\(count) passphrase slots")
        expectRefusal(CLI.run(["slots"] + vault.args), 5, "passphrase slots")
    }

    @Test func twoSlotsWithOneIdAreDamaged() throws {
        let vault = PromiseVault()
        let id = try VaultFormat.parse(vault.bytes).slots[0].id
        let bytes = try Self.forged(vault) { slot in
            var other = slot
            other.kindByte = 2  // a TPM slot's kind, with the passphrase slot's id
            return [other]
        }
        vault.replace(with: bytes)
        expectRefusal(vault.run(["get", "clientId"]), 5, "two key slots have the id \(id)")
    }

    /// A slot of a kind this version does not know (a newer lomme-vault's) is kept, shown as
    /// such, and never counted as a passphrase slot: the vault's only passphrase slot stays.
    @Test func aSlotOfAnUnknownKindIsNeverCountedAsAPassphraseSlot() throws {
        let vault = PromiseVault()
        let bytes = try Self.forged(vault) { slot in
            var other = slot
            other.kindByte = 99
            other.id = 5
            return [other]
        }
        vault.replace(with: bytes)
        let slots = CLI.run(["slots"] + vault.args)
        #expect(slots.status == 0 && slots.out.contains("unknown kind 99"), "\(slots.out) \(slots.stderr)")
        expectRefusal(vault.run(["unenroll", "0"]), 1, "the vault's only passphrase slot")
        #expect(try VaultFormat.parse(vault.bytes).slots.count == 2)
        #expect(vault.run(["get", "clientId"]).status == 0)
    }

    /// A new slot takes the lowest free id, so ids never wrap round onto one in use.
    @Test func aNewSlotTakesTheLowestFreeId() throws {
        let vault = PromiseVault()
        let sealed = try VaultFormat.parse(vault.bytes)
        let layout = VaultLayout(sealed)
        let slot = layout.slots[0]
        func with(_ ids: [UInt8]) -> VaultLayout {
            var copy = layout
            copy.slots = ids.map { id in var s = slot; s.id = id; return s }
            return copy
        }
        #expect(with([0]).nextSlotID == 1)
        #expect(with([0, 255]).nextSlotID == 1, "after 255 the ids must not wrap to a taken 0")
        #expect(with([0, 1, 3]).nextSlotID == 2)
        #expect(with([1, 2]).nextSlotID == 0)
        #expect(with([0, 1, 2, 3, 4, 5, 6]).nextSlotID == 7)
    }
}
