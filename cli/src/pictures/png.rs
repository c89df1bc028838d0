//! Pictures as PNG, for readers whose mail client shows no SVG (most of
//! them block it): Yam's own SVG ([`super::svg`]) drawn by resvg, a pure
//! Rust renderer, with DejaVu Sans embedded in the binary instead of the
//! machine's fonts, so the same position gives the same PNG on every
//! machine (`assets/fonts/`, under the DejaVu fonts' licence).

use std::sync::{Arc, OnceLock};

use resvg::tiny_skia;
use resvg::usvg::{self, fontdb};

/// The fonts every picture is drawn with.
const FONTS: [&[u8]; 2] = [
    include_bytes!("../../assets/fonts/DejaVuSans.ttf"),
    include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf"),
];

/// How many pixels a picture unit is: 1.5, so a board stays sharp on a
/// phone's dense screen (the HTML shows it at its SVG size) while a turn
/// mail stays under 100 kB (2 would make it 125 kB for a siege board).
pub const SCALE: f32 = 1.5;

/// Why a picture could not be drawn as PNG.
#[derive(Debug, thiserror::Error)]
pub enum PngError {
    /// The SVG did not parse (a defect of the picture code, said plainly).
    #[error("the picture's SVG does not parse: {0}")]
    Svg(#[from] usvg::Error),
    /// The picture has no area, or is too large to draw.
    #[error("the picture's size ({0} by {1}) cannot be drawn")]
    Size(u32, u32),
    /// The PNG could not be encoded.
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
}

fn fonts() -> Arc<fontdb::Database> {
    static FONTS_DB: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    FONTS_DB
        .get_or_init(|| {
            let mut db = fontdb::Database::new();
            for font in FONTS {
                db.load_font_data(font.to_vec());
            }
            // The pictures ask for "DejaVu Sans, Helvetica, Arial,
            // sans-serif": every family resolves to the embedded one.
            db.set_sans_serif_family("DejaVu Sans");
            Arc::new(db)
        })
        .clone()
}

/// `svg` drawn as a PNG at [`SCALE`] pixels a unit; its size in units
/// (width, height) with it, for the HTML that shows it.
pub fn png(svg: &str) -> Result<(Vec<u8>, (u32, u32)), PngError> {
    let options = usvg::Options {
        fontdb: fonts(),
        font_family: "DejaVu Sans".to_owned(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)?;
    let size = tree.size();
    let (w, h) = (size.width().ceil() as u32, size.height().ceil() as u32);
    let (pw, ph) = (
        (w as f32 * SCALE).ceil() as u32,
        (h as f32 * SCALE).ceil() as u32,
    );
    // A board is a few hundred units a side; anything near this bound is
    // a defect, not a picture to spend memory on.
    if pw == 0 || ph == 0 || pw > 8192 || ph > 8192 {
        return Err(PngError::Size(w, h));
    }
    let mut pixmap = tiny_skia::Pixmap::new(pw, ph).ok_or(PngError::Size(w, h))?;
    // Drawn on white, as a mail shows it (a transparent picture shows dark
    // text on a dark-mode client's dark background): every pixel opaque,
    // the edge rows a fractional scale leaves half-covered too.
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(SCALE, SCALE),
        &mut pixmap.as_mut(),
    );
    let png = encode(&pixmap).map_err(|e| PngError::Encode(e.to_string()))?;
    Ok((png, (w, h)))
}

/// The pixmap as PNG. An opaque picture (every one [`png`] draws) of at
/// most 256 colours (a Khan board has about 120: its flat fills and their
/// antialiased edges) is written with a palette, one byte a pixel instead
/// of three, the same pixels exactly; any other opaque picture as RGB, a
/// quarter fewer bytes than the RGBA tiny-skia's own encoder writes. The
/// compression is zlib's level 3 with adaptive filters: against the
/// balanced default (level 6) it takes about 0.6 times the time for 3%
/// more bytes (RGB: a Khan board 3.3 ms and 34.1 kB against 5.3 ms and
/// 33.2 kB, a siege board with its legend 19 ms and 164 kB against 31 ms
/// and 160 kB); level 1 is quicker still but 40% larger, and the fast one
/// (fdeflate) ten times quicker but 2.6 times larger, too much for a mail.
fn encode(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let data = pixmap.data();
    let opaque = data.chunks_exact(4).all(|p| p[3] == 255);
    let mut palette = None;
    let (color, pixels): (png::ColorType, Vec<u8>) = if opaque {
        match indexed(data) {
            Some((colors, indices)) => {
                palette = Some(colors);
                (png::ColorType::Indexed, indices)
            }
            None => {
                let rgb = data
                    .chunks_exact(4)
                    .flat_map(|p| [p[0], p[1], p[2]])
                    .collect();
                (png::ColorType::Rgb, rgb)
            }
        }
    } else {
        let rgba = pixmap
            .pixels()
            .iter()
            .flat_map(|p| {
                let c = p.demultiply();
                [c.red(), c.green(), c.blue(), c.alpha()]
            })
            .collect();
        (png::ColorType::Rgba, rgba)
    };
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    if let Some(palette) = palette {
        encoder.set_palette(palette);
    }
    // Adaptive filters on the palette indices too: 7% smaller than none
    // for a Khan board, in the same time.
    encoder.set_deflate_compression(png::DeflateCompression::Level(3));
    encoder.set_filter(png::Filter::Adaptive);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&pixels)?;
    writer.finish()?;
    Ok(out)
}

/// The opaque RGBA `data` as a palette (RGB triples, in the order the
/// colours first appear, so the same picture gives the same bytes) and a
/// palette index a pixel; `None` past 256 colours.
fn indexed(data: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut index: std::collections::HashMap<[u8; 3], u8> = std::collections::HashMap::new();
    let mut palette = Vec::new();
    let mut indices = Vec::with_capacity(data.len() / 4);
    // Pixels come in runs of one colour: only a change is looked up.
    let mut last: Option<([u8; 3], u8)> = None;
    for p in data.chunks_exact(4) {
        let rgb = [p[0], p[1], p[2]];
        let i = match last {
            Some((color, i)) if color == rgb => i,
            _ => {
                let i = match index.get(&rgb) {
                    Some(&i) => i,
                    None => {
                        let i = u8::try_from(index.len()).ok()?;
                        index.insert(rgb, i);
                        palette.extend_from_slice(&rgb);
                        i
                    }
                };
                last = Some((rgb, i));
                i
            }
        };
        indices.push(i);
    }
    Some((palette, indices))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_is_drawn_the_same_every_time_with_its_text() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40" width="120" height="40" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
<rect x="0" y="0" width="120" height="40" fill="#ffffff"/>
<text x="10" y="28" font-size="20" font-weight="bold">Khan</text>
</svg>"##;
        let (a, size) = png(svg).expect("drawn");
        let (b, _) = png(svg).expect("drawn again");
        assert_eq!(a, b, "the same picture gives the same bytes");
        assert_eq!(size, (120, 40));
        assert!(a.starts_with(b"\x89PNG\r\n\x1a\n"));
        // The text was drawn: some pixels are dark.
        let blank = png(&svg.replace(">Khan<", "><")).expect("blank").0;
        assert_ne!(a, blank, "the embedded font draws the word");
    }

    /// A picture of few colours is written with a palette, more colours as
    /// RGB, and either way decodes to exactly the pixels drawn.
    #[test]
    fn the_pixels_drawn_are_the_pixels_written() {
        let decoded = |png: &[u8]| {
            let mut decoder = ::png::Decoder::new(std::io::Cursor::new(png));
            decoder.set_transformations(::png::Transformations::EXPAND);
            let mut reader = decoder.read_info().expect("a PNG");
            let color = reader.info().color_type;
            let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
            let frame = reader.next_frame(&mut pixels).expect("a frame");
            pixels.truncate(frame.buffer_size());
            (color, pixels)
        };
        let drawn = |colors: u32| {
            let mut pixmap = tiny_skia::Pixmap::new(colors, 3).expect("a pixmap");
            for (i, p) in pixmap.data_mut().chunks_exact_mut(4).enumerate() {
                let i = u32::try_from(i).unwrap() % colors;
                p.copy_from_slice(&[(i % 256) as u8, (i / 256) as u8, 7, 255]);
            }
            pixmap
        };
        for (colors, indexed) in [(1, true), (256, true), (257, false), (600, false)] {
            let pixmap = drawn(colors);
            let (color, pixels) = decoded(&encode(&pixmap).expect("encoded"));
            assert_eq!(
                color == ::png::ColorType::Indexed,
                indexed,
                "{colors} colours"
            );
            let rgb: Vec<u8> = pixmap
                .data()
                .chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect();
            assert_eq!(pixels, rgb, "{colors} colours");
        }
    }

    #[test]
    fn a_broken_picture_is_an_error_not_a_panic() {
        assert!(matches!(png("<svg"), Err(PngError::Svg(_))));
        let huge = r#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="10"></svg>"#;
        assert!(matches!(png(huge), Err(PngError::Size(..))));
    }
}
