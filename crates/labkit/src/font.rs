//! Text widths for the book's figures, so that every box and canvas is sized to its text.
//!
//! The figures name `DejaVu Sans` first in their font family (see [`FONT_FAMILY`]), and
//! this module measures text with DejaVu Sans's own advance widths (version 2.37, 2048
//! units per em), copied below for the characters the figures use: printable ASCII and
//! a few symbols, in the Book and Bold faces (the Oblique face has the Book widths).
//! DejaVu Sans is among the widest common sans-serif faces, and the families named after
//! it (Arial, Helvetica, the generic sans-serif) are narrower character for character, so
//! text measured to fit in DejaVu Sans also fits where the reader's browser falls back.
//! A character not in the table counts as a full em, and the emoji ⚡, which browsers
//! usually draw with a colour emoji font, as 1.3 em.

/// The `font-family` every figure declares: the face measured here first, then narrower
/// fallbacks.
pub const FONT_FAMILY: &str = "DejaVu Sans, Arial, Helvetica, sans-serif";

/// Units per em of the advance widths below.
const UNITS_PER_EM: f64 = 2048.0;

/// Advance widths of U+0020 to U+007E, DejaVu Sans Book.
const ASCII_BOOK: [u16; 95] = [
    651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, 1303,
    1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087, 2048,
    1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235,
    1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024, 1024,
    1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253, 1300,
    1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303, 1716,
];

/// Advance widths of U+0020 to U+007E, DejaVu Sans Bold.
const ASCII_BOLD: [u16; 95] = [
    713, 934, 1067, 1716, 1425, 2052, 1786, 627, 936, 936, 1071, 1716, 778, 850, 778, 748, 1425,
    1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 819, 819, 1716, 1716, 1716, 1188, 2048,
    1585, 1561, 1503, 1700, 1399, 1399, 1681, 1714, 762, 762, 1587, 1305, 2038, 1714, 1741, 1501,
    1741, 1577, 1475, 1397, 1663, 1585, 2259, 1579, 1483, 1485, 936, 748, 936, 1716, 1024, 1024,
    1382, 1466, 1214, 1466, 1389, 891, 1466, 1458, 702, 702, 1362, 702, 2134, 1458, 1407, 1466,
    1466, 1010, 1219, 979, 1458, 1335, 1892, 1321, 1335, 1192, 1458, 748, 1458, 1716,
];

/// Other characters the figures use: (character, Book, Bold).
const SYMBOLS: [(char, u16, u16); 21] = [
    ('—', 2048, 2048), // U+2014
    ('…', 2048, 2048), // U+2026
    ('→', 1716, 1716), // U+2192
    ('←', 1716, 1716), // U+2190
    ('–', 1024, 1024), // U+2013
    ('✕', 1716, 1716), // U+2715
    ('×', 1716, 1716), // U+00D7
    ('≤', 1716, 1716), // U+2264
    ('≥', 1716, 1716), // U+2265
    ('≠', 1716, 1716), // U+2260
    ('≈', 1716, 1716), // U+2248
    ('✓', 1716, 1716), // U+2713
    ('✗', 1716, 1716), // U+2717
    ('·', 651, 778),   // U+00B7
    ('’', 651, 778),   // U+2019
    ('‘', 651, 778),   // U+2018
    ('“', 1061, 1346), // U+201C
    ('”', 1061, 1346), // U+201D
    ('é', 1260, 1389), // U+00E9
    ('°', 1024, 1024), // U+00B0
    ('µ', 1303, 1507), // U+00B5
];

/// How wide a browser draws ⚡ (an emoji font's glyph, wider than DejaVu's own).
const EMOJI_ADVANCE: u16 = 2662;

fn advance(c: char, bold: bool) -> u16 {
    let code = c as u32;
    if (0x20..=0x7e).contains(&code) {
        let i = (code - 0x20) as usize;
        return if bold { ASCII_BOLD[i] } else { ASCII_BOOK[i] };
    }
    if c == '⚡' {
        return EMOJI_ADVANCE;
    }
    SYMBOLS.iter().find(|(symbol, _, _)| *symbol == c).map_or(
        UNITS_PER_EM as u16,
        |&(_, book, heavy)| if bold { heavy } else { book },
    )
}

/// The width in pixels of `text` set in DejaVu Sans at `size` pixels, Book or Bold.
pub fn text_width(text: &str, size: f64, bold: bool) -> f64 {
    let units: u32 = text.chars().map(|c| advance(c, bold) as u32).sum();
    units as f64 * size / UNITS_PER_EM
}

/// How far above its baseline a line of text reaches (DejaVu Sans's ascender, 1901/2048
/// em), so a figure leaves room above its text.
pub fn ascent(size: f64) -> f64 {
    size * 1901.0 / UNITS_PER_EM
}

/// How far below its baseline a line of text reaches (DejaVu Sans's descender, 483/2048
/// em), so a figure leaves room below its text.
pub fn descent(size: f64) -> f64 {
    size * 483.0 / UNITS_PER_EM
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_the_fonts_advances() {
        // "m" is 1995 units, "i" 569: at 2048 px per em they measure their units.
        assert_eq!(text_width("m", 2048.0, false), 1995.0);
        assert_eq!(text_width("i", 2048.0, false), 569.0);
        assert_eq!(text_width("m", 2048.0, true), 2134.0);
        assert_eq!(text_width("→", 2048.0, false), 1716.0);
        // Bold is wider, a longer text is wider, and unknown characters count an em.
        assert!(text_width("Recovery", 13.0, true) > text_width("Recovery", 13.0, false));
        assert_eq!(text_width("中", 10.0, false), 10.0);
        assert_eq!(text_width("", 13.0, false), 0.0);
    }
}
