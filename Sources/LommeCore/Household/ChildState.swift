/// Where one child stands (`Household.state(of:config:)`, what `child list` shows).
package struct ChildState: Sendable {
    /// The last code handed out to the child's present key: its file written and synced,
    /// or its drawing finished.
    package var lastHandedOut: IssueRecord?
    /// A newer code recorded for that key and not handed out (an interrupted `issue`).
    package var pending: IssueRecord?
    /// Why the child is not current; empty when the last handed-out code carries
    /// everything the parent now holds for the child.
    package var reasons: [Reason]

    package var current: Bool { reasons.isEmpty }
    /// The child's receipt for their last handed-out code was checked (`child confirm`).
    package var confirmed: Bool { lastHandedOut?.confirmed != nil }
}
