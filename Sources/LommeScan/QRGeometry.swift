/// What the QR standard (ISO/IEC 18004) fixes about a code's layout, in modules: the
/// grid sampler and the finder search measure against these. Not tuning: a code that
/// breaks them is not a QR code.
enum QRGeometry {
    /// A finder pattern is 7 modules square (1:1:3:1:1 along any line through its centre).
    static let finderSide = 7
    /// A code has three, at its top-left, top-right and bottom-left corners.
    static let finders = 3
    /// Its dark centre is 3 modules wide.
    static let finderCentreSide = 3
    /// A finder's centre, from the code's nearest corner along each side.
    static let finderCentre = 3.5
    /// The bottom-right alignment pattern's centre, from the bottom-right corner (versions 2 and up).
    static let alignmentCentre = 6.5
    /// The light margin round a code.
    static let quietZone = 4
    /// A code is 4·version + 17 modules wide: 21 (version 1) to 177 (version 40), in steps of 4.
    static let smallestSide = 21
    static let largestSide = 177
    static let sideStep = 4
    /// The smallest code with an alignment pattern (version 2).
    static let smallestAlignedSide = 25
}
