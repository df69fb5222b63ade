//! Text that fits a width: timelines, failure reports and crash matrices.
//!
//! The book shows this text in code blocks about 90 columns wide, and a terminal is as
//! wide as it is; a line that runs past the edge hides what matters most (the truth
//! column, the "Contradiction:"). So each renderer takes a width, keeps a line whole when
//! it fits, and otherwise stacks the second column under the first and wraps long text at
//! word boundaries. The layout depends only on the text and the width, never on the
//! environment, so the same token and width print byte-identical text.

use super::event::Event;

/// The width of the book's code blocks, and of any output that does not go to a terminal.
pub const BOOK_WIDTH: usize = 88;

/// The narrowest width the renderers honour; below it they still wrap at this width.
pub(crate) const MIN_WIDTH: usize = 40;

/// The width for text a lab prints: `COLUMNS` when it holds a number (the `cargo labs`
/// CLI sets it to its terminal's width; a shell may export it), otherwise
/// [`BOOK_WIDTH`]. Figures for the book never use this: they are rendered at
/// [`BOOK_WIDTH`] so they do not depend on who generated them.
pub fn output_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|&columns| columns > 0)
        .unwrap_or(BOOK_WIDTH)
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// Splits `text` into lines of at most `width` characters, breaking at spaces; a word
/// longer than `width` is cut. Text that fits comes back as one line, unchanged.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    if chars(text) <= width {
        return vec![text.to_string()];
    }
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut line_len = 0;
    for word in text.split(' ') {
        let mut word = word;
        let mut word_len = chars(word);
        if line_len > 0 && line_len + 1 + word_len <= width {
            line.push(' ');
            line.push_str(word);
            line_len += 1 + word_len;
            continue;
        }
        if line_len > 0 {
            lines.push(std::mem::take(&mut line));
        }
        // A word wider than a whole line is cut into pieces of `width` characters.
        while word_len > width {
            let cut = word
                .char_indices()
                .nth(width)
                .map_or(word.len(), |(i, _)| i);
            lines.push(word[..cut].to_string());
            word = &word[cut..];
            word_len -= width;
        }
        line.push_str(word);
        line_len = word_len;
    }
    if line_len > 0 || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` wrapped to `width`, its first line after `first` and the others after
/// `hanging` (both are counted in the width).
pub fn wrap_indented(text: &str, width: usize, first: &str, hanging: &str) -> String {
    let room = width
        .max(MIN_WIDTH)
        .saturating_sub(chars(first).max(chars(hanging)));
    let mut out = String::new();
    for (i, line) in wrap(text, room).iter().enumerate() {
        out.push_str(if i == 0 { first } else { hanging });
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Chooses the width of a first column so that as many rows as possible keep their
/// second column on the same line within `room` characters (the header's second column,
/// `header` characters, must fit too): every candidate width is the length of some first
/// cell; the best count wins, ties go to the widest (so a table that fits keeps the
/// layout of one that was never wrapped).
fn first_column_width(
    rows: &[(usize, usize)],
    room: usize,
    minimum: usize,
    header: usize,
) -> usize {
    let fits = |width: usize| {
        if width + 2 + header > room {
            return 0;
        }
        rows.iter()
            .filter(|&&(first, second)| second > 0 && first <= width && width + 2 + second <= room)
            .count()
    };
    let mut best = (fits(minimum), minimum);
    for &(first, _) in rows {
        if first > minimum {
            let count = fits(first);
            if (count, first) > best {
                best = (count, first);
            }
        }
    }
    best.1
}

/// The label that marks a stacked truth.
const TRUTH: &str = "truth: ";

/// Formats events one per line: tick, actor, glyph, what the client saw and, in a second
/// column, the truth, within [`BOOK_WIDTH`] columns.
pub fn render_timeline(events: &[Event]) -> String {
    render_timeline_width(events, BOOK_WIDTH)
}

/// [`render_timeline`] within `width` columns. A line that would be wider keeps its
/// event on the first line and stacks the truth under it, indented and marked `truth:`;
/// text longer than a line wraps at word boundaries. Nothing is cut off.
pub(crate) fn render_timeline_width(events: &[Event], width: usize) -> String {
    let width = width.max(MIN_WIDTH);
    let actor_width = events
        .iter()
        .map(|e| chars(e.actor))
        .max()
        .unwrap_or(5)
        .max(5);
    // "tick" (5), two spaces, the actor, a space, the glyph, a space.
    let prefix = 5 + 2 + actor_width + 3;
    let text_room = width.saturating_sub(prefix).max(MIN_WIDTH / 2);
    let rows: Vec<(usize, usize)> = events
        .iter()
        .map(|e| (chars(&e.client), chars(&e.truth)))
        .collect();
    let client_width = first_column_width(&rows, width.saturating_sub(prefix), 10, 5);
    let inline = |e: &Event| {
        let (client, truth) = (chars(&e.client), chars(&e.truth));
        truth > 0 && client <= client_width && prefix + client_width + 2 + truth <= width
    };
    let any_inline = events.iter().any(inline);
    let mut out = if any_inline {
        format!(
            "{:>5}  {:<actor_width$}   {:<client_width$}  truth\n",
            "tick", "actor", "client saw"
        )
    } else {
        format!("{:>5}  {:<actor_width$}   client saw\n", "tick", "actor")
    };
    for e in events {
        let head = format!(
            "{:>5}  {:<actor_width$} {} ",
            e.tick,
            e.actor,
            e.glyph.symbol()
        );
        if inline(e) {
            let line = format!("{head}{:<client_width$}  {}", e.client, e.truth);
            out.push_str(line.trim_end());
            out.push('\n');
        } else {
            stacked(&mut out, e, &head, prefix, text_room, width);
        }
    }
    out
}

/// An event whose truth does not fit beside it: what the client saw after `head`, wrapped
/// to `text_room`, and the truth under it, indented past the `prefix` and marked `truth:`.
fn stacked(out: &mut String, e: &Event, head: &str, prefix: usize, text_room: usize, width: usize) {
    let indent = " ".repeat(prefix);
    // Continuation lines are indented two more columns, so they wrap two shorter.
    for (i, line) in wrap(&e.client, text_room - 2).iter().enumerate() {
        let line = if i == 0 {
            format!("{head}{line}")
        } else {
            format!("{indent}  {line}")
        };
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !e.truth.is_empty() {
        let hanging = " ".repeat(prefix + TRUTH.len());
        out.push_str(&wrap_indented(
            &e.truth,
            width,
            &format!("{indent}{TRUTH}"),
            &hanging,
        ));
    }
}

/// Two columns within `width`: each row's first cell, then its second on the same line
/// when the row fits, else on the next line indented by `stack_indent`. Used by the crash
/// matrix; `header` names the two columns.
pub(crate) fn render_two_columns(
    header: (&str, &str),
    rows: &[(String, String)],
    width: usize,
    stack_indent: usize,
) -> String {
    let width = width.max(MIN_WIDTH);
    let sizes: Vec<(usize, usize)> = rows.iter().map(|(a, b)| (chars(a), chars(b))).collect();
    let first_width = first_column_width(&sizes, width, chars(header.0), chars(header.1));
    let mut out = format!("{:<first_width$}  {}\n", header.0, header.1);
    let indent = " ".repeat(stack_indent);
    for (first, second) in rows {
        let (a, b) = (chars(first), chars(second));
        if a <= first_width && first_width + 2 + b <= width {
            out.push_str(format!("{first:<first_width$}  {second}").trim_end());
            out.push('\n');
        } else {
            for line in wrap(first, width) {
                out.push_str(&line);
                out.push('\n');
            }
            out.push_str(&wrap_indented(second, width, &indent, &indent));
        }
    }
    out
}
