import LommeCore

/// A plain code into a vault whose config came from sealed codes of a pinned issuer:
/// refused (exit 7) unless `--allow-plain`, which drops the pin. `--yes` alone never
/// overrides it, and on a terminal `--allow-plain` is asked again.
package enum PlainOverPinned {
    /// The pinned issuer, when there is one and `--allow-plain` was given; a refusal when
    /// there is one and it was not; nil when nothing is pinned.
    static func pinnedIssuer(in contents: VaultContents, allowPlain: Bool) throws(LommeError) -> IssuerKey? {
        guard let pinned = contents.identity?.pinnedIssuer else { return nil }
        guard allowPlain else {
            throw LommeError.refused(.plainOverPinned,
                "this vault's config comes from sealed codes of the pinned issuer \(pinned.fingerprint), and a plain code could have been made by anyone; ask the parent for a sealed code, or run again with --allow-plain to store it and drop the pin")
        }
        return pinned
    }

    /// On a terminal, asks once more (whatever --yes says) before the pin is dropped.
    static func confirmDroppingPin(_ pinned: IssuerKey, noPrompt: Bool, _ interaction: any Interaction) throws(LommeError) {
        guard !noPrompt, interaction.canAsk else { return }
        interaction.warning("--allow-plain: the pinned issuer \(pinned.fingerprint) will be forgotten, and the config will come from a plain code that anyone could have made.")
        guard try interaction.confirm("Drop the pin and store the plain code?") else { throw LommeError.failure(.declined, "not stored; nothing changed (the pin is kept)") }
    }

    /// Forgets the pinned issuer and household key (the last envelope is kept, so rollback
    /// is still refused).
    static func dropPin(in contents: inout VaultContents) throws(LommeError) {
        guard var identity = contents.identity, identity.pinnedIssuer != nil else { return }
        identity.pinnedIssuer = nil
        identity.pinnedSince = nil
        identity.household = nil
        contents.identity = identity
    }
}
