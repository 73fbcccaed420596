package enum LommeVersion {
    package static let string = "0.1.0"
}
