//! A book page in the terminal, for `cargo labs read`: the Markdown the book is written
//! in (includes already expanded, see [`crate::pages`]) as text a person reads — headings
//! set off, paragraphs and list items wrapped to the width, links as their words, Rust
//! code highlighted. With `colour` off the result is plain text, for a file or a pipe.

/// Terminal styles, as SGR parameters.
const BOLD: &str = "1";
const DIM: &str = "2";
const UNDERLINE: &str = "4";
const ITALIC: &str = "3";
const KEYWORD: &str = "35";
const STRING: &str = "32";
const NUMBER: &str = "36";
const COMMENT: &str = "2;3";
const CODE_SPAN: &str = "36";

/// `text` in `style` when `colour` is on.
fn paint(text: &str, style: &str, colour: bool) -> String {
    if colour && !text.is_empty() {
        format!("\x1b[{style}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// How many columns `text` takes on a terminal (colour sequences take none).
fn columns(text: &str) -> usize {
    crate::text::strip_ansi(text).chars().count()
}

/// The Markdown page `markdown` rendered for a terminal `width` columns wide.
pub fn render(markdown: &str, width: usize, colour: bool) -> String {
    let width = width.clamp(40, 120);
    let mut out = String::new();
    let mut block: Vec<&str> = Vec::new();
    let mut fence: Option<String> = None;
    // The indent of the options under a numbered question (a bold paragraph `**5. …**`).
    let mut under = 0;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if let Some(lang) = &fence {
            if trimmed.starts_with("```") {
                fence = None;
                out.push('\n');
            } else {
                out.push_str(&code_line(line, lang, colour));
            }
            continue;
        }
        if let Some(info) = trimmed.strip_prefix("```") {
            flush(&mut out, &mut block, width, colour, &mut under);
            fence = Some(info.split([',', ' ']).next().unwrap_or("").to_string());
        } else if trimmed.is_empty() {
            flush(&mut out, &mut block, width, colour, &mut under);
        } else if starts_block(trimmed) && !block.is_empty() && !same_list(&block, trimmed) {
            flush(&mut out, &mut block, width, colour, &mut under);
            block.push(line);
        } else {
            block.push(line);
        }
    }
    flush(&mut out, &mut block, width, colour, &mut under);
    out.trim_end().to_string() + "\n"
}

/// A line that begins a block of its own even without a blank line before it: a heading,
/// a list item, a table row after prose, an image.
fn starts_block(line: &str) -> bool {
    line.starts_with('#') || list_marker(line).is_some() || line.starts_with("![")
}

/// Whether `line` is one more item of the list `block` holds.
fn same_list(block: &[&str], line: &str) -> bool {
    list_marker(line).is_some() && list_marker(block[0].trim_start()).is_some()
}

/// `- `, `* ` or `12. ` at the start of a list item, with its width.
fn list_marker(line: &str) -> Option<usize> {
    if line.starts_with("- ") || line.starts_with("* ") {
        return Some(2);
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    (digits > 0 && line[digits..].starts_with(". ")).then_some(digits + 2)
}

/// Renders the lines gathered since the last blank line, and empties `block`. A numbered
/// question set in bold (`**5. What …?**`) reads as the numbered items before it, and the
/// list of its options after it (`under`, its marker's width) sits under its text.
fn flush(out: &mut String, block: &mut Vec<&str>, width: usize, colour: bool, under: &mut usize) {
    if block.is_empty() {
        return;
    }
    let first = block[0].trim_start();
    let options = std::mem::take(under);
    let question = (first.strip_prefix("**"))
        .filter(|_| block.last().is_some_and(|l| l.trim_end().ends_with("**")))
        .and_then(|rest| list_marker(rest).map(|marker| (rest, marker)));
    let text = if let Some((_, marker)) = question {
        *under = marker;
        let joined = block.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        let inner = joined.trim_start_matches("**").trim_end_matches("**");
        paint_lines(&wrap(inner, width, (0, marker), false), BOLD, colour)
    } else if options > 0 && list_marker(first).is_some() {
        *under = options;
        let shifted: Vec<String> = block
            .iter()
            .map(|l| format!("{}{l}", " ".repeat(options)))
            .collect();
        let lines: Vec<&str> = shifted.iter().map(String::as_str).collect();
        prose(&lines, width, colour)
    } else if first == "---" {
        format!("{}\n", paint(&"─".repeat(width.min(60)), DIM, colour))
    } else if first.starts_with('#') {
        heading(first, colour)
    } else if first.starts_with('|') {
        block.iter().map(|l| format!("{l}\n")).collect()
    } else if let Some(image) = first.strip_prefix("![") {
        format!("{}\n", figure(image, colour))
    } else if is_definition(first) {
        (block.iter())
            .map(|l| format!("{}\n", paint(l.trim(), DIM, colour)))
            .collect()
    } else {
        prose(block, width, colour)
    };
    out.push_str(&text);
    out.push('\n');
    block.clear();
}

/// Each line of `text` painted with `style`.
fn paint_lines(text: &str, style: &str, colour: bool) -> String {
    text.lines()
        .map(|l| format!("{}\n", paint(l, style, colour)))
        .collect()
}

/// A reference definition: `[label]: https://…`.
fn is_definition(line: &str) -> bool {
    line.starts_with('[')
        && line
            .split_once("]: ")
            .is_some_and(|(l, _)| !l.contains(']'))
}

/// A heading, set off by weight and, for the two first levels, a rule under it.
fn heading(line: &str, colour: bool) -> String {
    let level = line.chars().take_while(|c| *c == '#').count();
    let title = inline(line[level..].trim(), false);
    let rule = match level {
        1 => Some('═'),
        2 => Some('─'),
        _ => None,
    };
    let style = if level == 1 {
        format!("{BOLD};{UNDERLINE}")
    } else {
        BOLD.to_string()
    };
    let mut text = format!("{}\n", paint(&title, &style, colour));
    if let Some(rule) = rule {
        let line: String = std::iter::repeat_n(rule, title.chars().count()).collect();
        text.push_str(&format!("{}\n", paint(&line, DIM, colour)));
    }
    text
}

/// An image, by its caption and the file that holds it.
fn figure(image: &str, colour: bool) -> String {
    let (caption, rest) = image.split_once("](").unwrap_or((image, ""));
    let file = rest.split(')').next().unwrap_or("");
    paint(&format!("[{caption} — book/src/{file}]"), DIM, colour)
}

/// Paragraphs and list items, each wrapped to `width` with a hanging indent.
fn prose(block: &[&str], width: usize, colour: bool) -> String {
    let mut out = String::new();
    let mut item: Vec<String> = Vec::new();
    let mut indent = (0, 0);
    for line in block {
        let trimmed = line.trim_start();
        let depth = line.len() - trimmed.len();
        if let Some(marker) = list_marker(trimmed) {
            out.push_str(&wrap(&item.join(" "), width, indent, colour));
            item.clear();
            indent = (depth, depth + marker);
        }
        item.push(trimmed.trim_start_matches("> ").to_string());
    }
    out.push_str(&wrap(&item.join(" "), width, indent, colour));
    out
}

/// `text` (Markdown inline) wrapped to `width`: the first line indented by `first`, the
/// others by `rest` columns. A code span's words stay on one line.
fn wrap(text: &str, width: usize, (first, rest): (usize, usize), colour: bool) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = vec![" ".repeat(first)];
    let mut used = first;
    let mut fresh = true;
    for word in inline(text, colour).split(' ').filter(|w| !w.is_empty()) {
        let size = columns(word);
        if !fresh && used + 1 + size > width {
            lines.push(" ".repeat(rest));
            used = rest;
            fresh = true;
        }
        let line = lines.last_mut().expect("one line at least");
        if !fresh {
            line.push(' ');
            used += 1;
        }
        line.push_str(word);
        used += size;
        fresh = false;
    }
    lines.join("\n").replace('\u{a0}', " ") + "\n"
}

/// Markdown inline syntax as a terminal shows it: code spans coloured, `**strong**` in
/// bold, `*emphasis*` as it is, links as their words (and a web link's address after
/// them), images as their caption.
pub fn inline(text: &str, colour: bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let taken = match c {
            '`' => code_span(rest, colour),
            '*' if rest.starts_with("**") => strong(rest, colour),
            '*' => emphasis(rest, colour),
            '!' if rest.starts_with("![") => link(&rest[1..], colour).map(|(t, n)| (t, n + 1)),
            '[' => link(rest, colour),
            _ => None,
        };
        match taken {
            Some((shown, length)) => {
                out.push_str(&shown);
                rest = &rest[length..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// `` `code` `` at the start of `text`: (what to show, bytes taken).
fn code_span(text: &str, colour: bool) -> Option<(String, usize)> {
    let ticks = text.chars().take_while(|c| *c == '`').count();
    let fence = &text[..ticks];
    let end = text[ticks..].find(fence)?;
    let body = text[ticks..ticks + end].trim();
    // A code span keeps its spaces: words joined by no-break spaces do not wrap apart.
    let kept = body.replace(' ', "\u{a0}");
    Some((paint(&kept, CODE_SPAN, colour), ticks + end + ticks))
}

/// `**strong**` at the start of `text`.
fn strong(text: &str, colour: bool) -> Option<(String, usize)> {
    let end = text[2..].find("**")?;
    let inner = inline(&text[2..2 + end], false);
    let shown = (inner.split(' '))
        .map(|w| paint(w, BOLD, colour))
        .collect::<Vec<_>>()
        .join(" ");
    Some((shown, end + 4))
}

/// `*emphasis*` at the start of `text`, in italics (a lone `*` stays as it is).
fn emphasis(text: &str, colour: bool) -> Option<(String, usize)> {
    let end = text[1..].find('*')?;
    let inner = &text[1..1 + end];
    if inner.is_empty() || inner.starts_with(' ') || inner.ends_with(' ') {
        return None;
    }
    let shown = (inner.split(' '))
        .map(|w| paint(w, ITALIC, colour))
        .collect::<Vec<_>>()
        .join(" ");
    Some((shown, end + 2))
}

/// `[words](target)` or `[words][label]` at the start of `text`.
fn link(text: &str, colour: bool) -> Option<(String, usize)> {
    let close = text.find(']')?;
    let words = inline(&text[1..close], colour);
    let after = &text[close + 1..];
    if let Some(target) = after.strip_prefix('(') {
        let end = target.find(')')?;
        let url = &target[..end];
        let shown = if url.starts_with("http") {
            format!("{words} ({})", paint(url, DIM, colour))
        } else {
            words
        };
        return Some((shown, close + 2 + end + 1));
    }
    if let Some(label) = after.strip_prefix('[') {
        let end = label.find(']')?;
        return Some((format!("{words} [{}]", &label[..end]), close + 2 + end + 1));
    }
    None
}

/// One line of a code block, indented, and highlighted when it is Rust.
fn code_line(line: &str, lang: &str, colour: bool) -> String {
    let shown = if colour && lang == "rust" {
        highlight_rust(line)
    } else {
        line.to_string()
    };
    format!("    {shown}\n")
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while",
];

/// One line of Rust, coloured: keywords, strings, numbers and comments.
pub fn highlight_rust(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        let (piece, length) = if rest.starts_with("//") {
            (paint(rest, COMMENT, true), rest.len())
        } else if c == '"' {
            let end = string_end(rest);
            (paint(&rest[..end], STRING, true), end)
        } else if c.is_alphanumeric() || c == '_' {
            let end =
                (rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))).unwrap_or(rest.len());
            let word = &rest[..end];
            let style = if KEYWORDS.contains(&word) {
                Some(KEYWORD)
            } else if c.is_ascii_digit() {
                Some(NUMBER)
            } else {
                None
            };
            (
                style.map_or(word.to_string(), |s| paint(word, s, true)),
                end,
            )
        } else {
            (c.to_string(), c.len_utf8())
        };
        out.push_str(&piece);
        rest = &rest[length..];
    }
    out
}

/// The length of the string literal at the start of `text` (to the end of the line when
/// it does not close there).
fn string_end(text: &str) -> usize {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return i + 1,
            _ => escaped = false,
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_reads_as_text_without_its_markdown() {
        let page = "# Title\n\nA **bold** *claim* with `code here` and a [link](02-x.md) and a [web\nlink](https://example.com/a).\n\n## Predict\n\n1. first question\n   goes on\n2. second\n\n![Figure 1.1: A caption](figures/a.svg)\n\n[ref]: https://example.com/r\n";
        let shown = render(page, 60, false);
        assert_eq!(
            shown,
            "Title\n═════\n\nA bold claim with code here and a link and a web link\n(https://example.com/a).\n\nPredict\n───────\n\n1. first question goes on\n2. second\n\n[Figure 1.1: A caption — book/src/figures/a.svg]\n\n[ref]: https://example.com/r\n"
        );
    }

    #[test]
    fn long_paragraphs_and_list_items_wrap_with_a_hanging_indent() {
        let page = "- one two three four five six seven eight nine ten eleven twelve thirteen\n";
        let shown = render(page, 40, false);
        assert_eq!(
            shown,
            "- one two three four five six seven\n  eight nine ten eleven twelve thirteen\n"
        );
        assert!(shown.lines().all(|l| l.chars().count() <= 40));
    }

    #[test]
    fn a_bold_numbered_question_reads_as_an_item_with_its_options_under_it() {
        let page = "1. a check\n\n**2. Which one of the two holds, after all of this?**\n\n\
                    - (a) one\n- (b) two\n";
        assert_eq!(
            render(page, 40, false),
            "1. a check\n\n2. Which one of the two holds, after all\n   of this?\n\n   \
             - (a) one\n   - (b) two\n"
        );
    }

    #[test]
    fn rust_code_is_highlighted_and_other_code_left_as_it_is() {
        let page = "```rust,ignore\nlet x = \"a\"; // note\n```\n\n```text\nlet y\n```\n";
        let coloured = render(page, 80, true);
        assert!(
            coloured
                .contains("\x1b[35mlet\x1b[0m x = \x1b[32m\"a\"\x1b[0m; \x1b[2;3m// note\x1b[0m")
        );
        assert!(coloured.contains("    let y\n"));
        let plain = render(page, 80, false);
        assert_eq!(plain, "    let x = \"a\"; // note\n\n    let y\n");
        assert!(!plain.contains('\x1b'));
    }

    #[test]
    fn a_table_keeps_its_rows() {
        let page = "Text.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
        assert_eq!(
            render(page, 80, false),
            "Text.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
        );
    }
}
