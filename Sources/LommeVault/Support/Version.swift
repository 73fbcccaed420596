public enum LommeVersion {
    public static let string = "0.1.0"
}
