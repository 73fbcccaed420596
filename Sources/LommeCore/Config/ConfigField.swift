extension Config {
    /// The names of the config fields lomme-vault knows, as a config spells them: the one
    /// place they are written in the sources. A command that takes a field name as typed
    /// asks `FieldNames` (any case, the aliases, near misses).
    package enum Field {
        package static let clientId = "clientId"
        package static let clientSecret = "clientSecret"
        /// The account owner's national id.
        package static let userId = "userId"
        package static let accountNr = "accountNr"
        /// A label (an extra field the tool asks for).
        package static let name = "name"
        /// The bank's token endpoint (`lomme-vault token`).
        package static let tokenUrl = "tokenUrl"
        /// The day the bank retires the client secret (`SecretExpiry`).
        package static let secretExpires = "secretExpires"

        /// What a config may say for `clientSecret`.
        package static let secretAlias = "secret"
        /// What a config may say for `accountNr`.
        package static let accountNrAlias = "cardAccountNr"
    }
}
