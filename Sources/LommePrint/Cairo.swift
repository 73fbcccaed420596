import CCairo
import LommeCore
import LommeImages

/// What the kit asks of cairo: one page on a PDF or SVG surface written into memory, or on
/// an image surface (its pixels, its PNG), and a pen to draw with. Every cairo function is
/// CLazyCairo's stub: libcairo is loaded on the first call, and a machine without it stops
/// there with one line naming the package (libcairo2) and exit 1.
enum Cairo {
    /// A document surface that streams its bytes.
    enum Document: String {
        case pdf = "PDF", svg = "SVG"
    }

    /// Collects what a surface writes through `append`.
    final class Sink {
        var bytes: [UInt8] = []
    }

    /// cairo's write callback: appends to the `Sink` behind `closure`.
    static func append(_ closure: UnsafeMutableRawPointer?, _ data: UnsafePointer<UInt8>?, _ length: UInt32) -> cairo_status_t {
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
        if let data, length > 0 { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length))) }
        return CAIRO_STATUS_SUCCESS
    }

    /// One page `width` × `height` points drawn by `draw`, as a PDF or SVG document.
    /// `metadata` goes into a PDF's document information (nothing secret belongs there).
    static func document(_ kind: Document, width: Double, height: Double, metadata: [(cairo_pdf_metadata_t, String)] = [],
                         draw: (Pen) -> Void) throws(LommeError) -> [UInt8] {
        let sink = Sink()
        defer { withExtendedLifetime(sink) {} }
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        let surface: OpaquePointer? = switch kind {
        case .pdf: cairo_pdf_surface_create_for_stream({ Cairo.append($0, $1, $2) }, closure, width, height)
        case .svg: cairo_svg_surface_create_for_stream({ Cairo.append($0, $1, $2) }, closure, width, height)
        }
        guard let surface else { throw LommeError.failure(.kitNotDrawn, "cannot draw the recovery kit: cairo made no \(kind.rawValue) surface") }
        defer { cairo_surface_destroy(surface) }
        try check(cairo_surface_status(surface), making: kind.rawValue)
        if kind == .pdf {
            for (key, value) in metadata { cairo_pdf_surface_set_metadata(surface, key, value) }
        }
        try paint(surface, draw: draw, making: kind.rawValue)
        cairo_surface_finish(surface)
        try check(cairo_surface_status(surface), making: kind.rawValue)
        return sink.bytes
    }

    /// Draws on a fresh context of `surface`, on white, and shows the page.
    static func paint(_ surface: OpaquePointer, scale: Double = 1, draw: (Pen) -> Void, making what: String) throws(LommeError) {
        guard let context = cairo_create(surface) else { throw LommeError.failure(.kitNotDrawn, "cannot draw the recovery kit: cairo made no context") }
        defer { cairo_destroy(context) }
        cairo_scale(context, scale, scale)
        cairo_set_source_rgb(context, 1, 1, 1)
        cairo_paint(context)
        draw(Pen(context: context))
        cairo_show_page(context)
        try check(cairo_status(context), making: what)
    }

    /// Fails with cairo's own words for `status` unless it is success.
    static func check(_ status: cairo_status_t, making what: String) throws(LommeError) {
        guard status != CAIRO_STATUS_SUCCESS else { return }
        let words = cairo_status_to_string(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
        throw LommeError.failure(.kitNotDrawn, "cannot draw the recovery kit as \(what): cairo says \(words)")
    }

    /// A page drawn as pixels (RGB, white ground), `scale` pixels per point.
    final class Raster {
        let surface: OpaquePointer
        let width: Int, height: Int

        init(width: Int, height: Int, scale: Double, draw: (Pen) -> Void) throws(LommeError) {
            guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
                throw LommeError.failure(.kitNotDrawn, "cannot draw the recovery kit: cairo made no image surface")
            }
            self.surface = surface
            self.width = width
            self.height = height
            try check(cairo_surface_status(surface), making: "an image")
            try paint(surface, scale: scale, draw: draw, making: "an image")
        }

        deinit { cairo_surface_destroy(surface) }

        /// cairo's PNG of the pixels (8-bit RGB).
        func png() throws(LommeError) -> [UInt8] {
            let sink = Sink()
            let status = withExtendedLifetime(sink) {
                cairo_surface_write_to_png_stream(surface, { Cairo.append($0, $1, $2) }, Unmanaged.passUnretained(sink).toOpaque())
            }
            try check(status, making: "PNG")
            return sink.bytes
        }

        /// The pixels as grey levels (what the read-back check scans).
        func gray() throws(LommeError) -> GrayImage {
            cairo_surface_flush(surface)
            let stride = Int(cairo_image_surface_get_stride(surface))
            guard let data = cairo_image_surface_get_data(surface) else {
                throw LommeError.failure(.kitNotDrawn, "cannot draw the recovery kit: cairo gave no pixels")
            }
            var image = GrayImage(width: width, height: height, fill: 255)
            for y in 0..<height {
                // RGB24 is one native-endian 32-bit word a pixel, 0x00RRGGBB.
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let pixel = row[x]
                    let red = (pixel >> 16) & 0xFF, green = (pixel >> 8) & 0xFF, blue = pixel & 0xFF
                    image.pixels[y * width + x] = UInt8((red * 299 + green * 587 + blue * 114) / 1000)
                }
            }
            return image
        }
    }
}

/// Draws on one cairo context, in points from the page's top left corner.
struct Pen {
    let context: OpaquePointer

    /// The kit's two typefaces, from fonts-dejavu-core (fontconfig picks a stand-in when
    /// they are missing): the words in DejaVu Sans, the key and the commands in DejaVu Sans
    /// Mono, whose letters and digits do not look alike.
    enum Face {
        case sans, sansBold, mono, monoBold

        var family: String { self == .sans || self == .sansBold ? "DejaVu Sans" : "DejaVu Sans Mono" }
        var weight: cairo_font_weight_t { self == .sansBold || self == .monoBold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL }
    }

    func font(_ face: Face, size: Double) {
        cairo_select_font_face(context, face.family, CAIRO_FONT_SLANT_NORMAL, face.weight)
        cairo_set_font_size(context, size)
    }

    /// How far `text` advances in the current font.
    func width(_ text: String) -> Double {
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, text, &extents)
        return extents.x_advance
    }

    /// `text` with its baseline starting at (`x`, `y`).
    func text(_ text: String, x: Double, y: Double) {
        cairo_move_to(context, x, y)
        cairo_show_text(context, text)
        cairo_new_path(context)
    }

    /// 0 is black, 1 white.
    func grey(_ level: Double) { cairo_set_source_rgb(context, level, level, level) }

    /// Fills the rectangles as one path: squares that touch leave no seam between them.
    func fill(_ rectangles: [(x: Double, y: Double, width: Double, height: Double)]) {
        cairo_new_path(context)
        for r in rectangles { cairo_rectangle(context, r.x, r.y, r.width, r.height) }
        cairo_fill(context)
    }

    func line(from start: (Double, Double), to end: (Double, Double), width: Double) {
        cairo_new_path(context)
        cairo_set_line_width(context, width)
        cairo_move_to(context, start.0, start.1)
        cairo_line_to(context, end.0, end.1)
        cairo_stroke(context)
    }

    func frame(x: Double, y: Double, width: Double, height: Double, line: Double) {
        cairo_new_path(context)
        cairo_set_line_width(context, line)
        cairo_rectangle(context, x, y, width, height)
        cairo_stroke(context)
    }
}
