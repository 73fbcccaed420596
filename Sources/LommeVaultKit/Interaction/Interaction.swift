import LommeCore

/// Everything the library needs from a person, and everything it tells one. The library
/// never prints, prompts or reads the terminal itself: the CLI implements this on the
/// controlling terminal (`TerminalInteraction`: /dev/tty, no echo for secrets, messages
/// on stderr), tests with scripted answers. Policy (three tries, "typed twice", the
/// weak-passphrase warning, what to confirm) stays in the library, which calls these
/// one question at a time.
package protocol Interaction: AnyObject {
    /// True when a question can be asked now (a terminal to ask on, or answers scripted).
    var canAsk: Bool { get }
    /// One line of text, shown as it is typed (the config's id fields on `issue`).
    func ask(_ prompt: String) throws(LommeError) -> String
    /// One secret line, typed without echo (a passphrase, the client secret).
    func askSecret(_ prompt: String) throws(LommeError) -> SecureBytes
    /// A yes/no question; anything but yes is no.
    func confirm(_ question: String) throws(LommeError) -> Bool
    /// A message for the person (the CLI: stderr, control characters escaped).
    func notice(_ text: String)
    /// Runs a slow step (the key derivation) while `text` says what is happening.
    func progress<R>(_ text: String, _ body: () throws(LommeError) -> R) throws(LommeError) -> R
}

extension Interaction {
    /// A warning, worded as every warning of the tool is: `lomme-vault: warning: …`.
    package func warning(_ text: String) {
        notice("lomme-vault: warning: " + text)
    }
}
