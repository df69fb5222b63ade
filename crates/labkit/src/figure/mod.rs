//! Figures for the book, drawn by code so they cannot drift from the labs: sequence
//! diagrams of protocols and bar charts of measured values, as standalone SVG.
//!
//! A lab lists its figures in a `figures()` function; its binary writes them with
//! `figures DIR` and the consistency gate checks them with `figures DIR --check`.
//!
//! The text every figure shares (measured, wrapped at word boundaries, escaped) is here;
//! the sequence diagram is in `sequence` (its layout) and `sequence/svg` (its drawing),
//! the bar chart in `chart`.

use crate::font::{FONT_FAMILY, text_width};
use std::fmt::Write;

mod chart;
mod sequence;
#[cfg(test)]
mod tests;

pub use chart::BarChart;
pub use sequence::Sequence;

#[cfg(test)]
use chart::{axis, format_value};

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Text sizes, in pixels.
const TEXT: f64 = 13.0;
const TITLE: f64 = 15.0;
const CHART_TEXT: f64 = 12.0;
/// The line height of a wrapped title.
const TITLE_LINE: i32 = 19;
/// The line height of a wrapped label, note or caption (13 px text), and of a wrapped
/// category label (12 px text).
const TEXT_LINE: i32 = 16;
const CHART_LINE: i32 = 15;
/// A title wider than its picture wraps at the picture's width, or at this width when
/// the picture is narrower (a narrow chart does not stretch for its title).
const TITLE_WRAP: i32 = 640;
/// The widest picture: the book's content column is 750 px (mdBook's default), and a
/// wider picture is shrunk by the browser until its 13 px text reads at 9 or 10 px.
pub const MAX_WIDTH: i32 = 740;
/// The margin kept free at the picture's edges.
const EDGE: i32 = 10;

fn measure(text: &str, size: f64, bold: bool) -> i32 {
    text_width(text, size, bold).ceil() as i32
}

/// Symbols that bind the words on both sides: a line never starts or ends with one, so
/// `epoch 1 → 2` or `sent = 1` stays whole.
const BINDING: [&str; 14] = [
    "→", "←", "=", "==", "!=", "+", "+=", "-=", "<", ">", "<=", ">=", "≤", "≥",
];

/// The words of `text`, split at spaces, the units a line breaks between: a crash
/// caption's ⚡ is glued to the word after it, and a [`BINDING`] symbol to its neighbours.
fn words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut glue_next = false;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let binding = BINDING.contains(&word);
        match words.last_mut() {
            Some(last) if glue_next || binding => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        glue_next = binding || word == "⚡";
    }
    words
}

fn widest_word(text: &str, size: f64, bold: bool) -> i32 {
    words(text)
        .iter()
        .map(|w| measure(w, size, bold))
        .max()
        .unwrap_or(0)
}

/// Fills lines word by word up to `room` pixels; a word wider than `room` gets a line
/// of its own.
fn fill(words: &[String], size: f64, bold: bool, room: i32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in words {
        match lines.last_mut() {
            Some(line) if measure(&format!("{line} {word}"), size, bold) <= room => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.clone()),
        }
    }
    lines
}

/// `text` wrapped at word boundaries into lines at most `room` pixels wide (a single
/// word wider than `room` stays whole), as few lines as that takes, and those lines as
/// even as they can be: a label split in two reads as two halves, not a line and a word.
fn wrap(text: &str, size: f64, bold: bool, room: i32) -> Vec<String> {
    let words = words(text);
    let count = fill(&words, size, bold, room).len();
    if count <= 1 {
        return vec![words.join(" ")];
    }
    // Filling line by line gives no more lines at a wider room, so the narrowest room
    // that still takes `count` lines is found by bisection.
    let (mut narrow, mut wide) = (widest_word(text, size, bold), room.max(1));
    while narrow < wide {
        let mid = (narrow + wide) / 2;
        if fill(&words, size, bold, mid).len() <= count {
            wide = mid;
        } else {
            narrow = mid + 1;
        }
    }
    fill(&words, size, bold, wide)
}

fn widest_line(lines: &[String], size: f64, bold: bool) -> i32 {
    lines
        .iter()
        .map(|l| measure(l, size, bold))
        .max()
        .unwrap_or(0)
}

/// The title's lines for a picture `content` pixels wide, and the picture's width.
fn title_lines(title: &str, content: i32) -> (Vec<String>, i32) {
    let room = content.max(TITLE_WRAP.min(measure(title, TITLE, true) + 24));
    let mut lines: Vec<String> = Vec::new();
    for word in title.split(' ') {
        match lines.last_mut() {
            Some(line) if measure(&format!("{line} {word}"), TITLE, true) + 24 <= room => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    let widest = lines
        .iter()
        .map(|l| measure(l, TITLE, true) + 24)
        .max()
        .unwrap_or(0);
    (lines, room.max(widest))
}

fn svg_open(out: &mut String, width: i32, height: i32, size: f64, title: &str) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" font-family=\"{FONT_FAMILY}\" font-size=\"{size}\">\n\
         <title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        escape(title)
    );
}

fn title_text(out: &mut String, lines: &[String], width: i32) {
    for (i, line) in lines.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\" font-size=\"{TITLE}\">{}</text>",
            width / 2,
            22 + TITLE_LINE * i as i32,
            escape(line)
        );
    }
}

/// Writes `lines` one `<text>` each, the last on baseline `last_baseline` and the others
/// above it, then ends the line of SVG.
fn text_lines(out: &mut String, lines: &[String], x: i32, last_baseline: i32, style: &str) {
    let above = lines.len() as i32 - 1;
    for (k, line) in lines.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{}\" {style}>{}</text>",
            last_baseline - TEXT_LINE * (above - k as i32),
            escape(line)
        );
    }
    out.push('\n');
}

/// Writes each figure into `dir`, or with `check` compares instead and lists the stale
/// ones. Used by the lab binaries' `figures` command only: crate-private, so that no code
/// linked with the kit (a learner's file among it) can write a file through it.
pub(crate) fn write_or_check(
    dir: &std::path::Path,
    figures: &[(&str, String)],
    check: bool,
) -> Result<(), String> {
    let mut stale = Vec::new();
    for (name, svg) in figures {
        let path = dir.join(name);
        if check {
            let current = std::fs::read_to_string(&path).unwrap_or_default();
            if &current != svg {
                stale.push(path.display().to_string());
            }
        } else {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "figures out of date (regenerate with `cargo labs bless`): {}",
            stale.join(", ")
        ))
    }
}
