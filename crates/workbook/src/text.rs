//! Text the CLI shows: a failure without what only a Rust developer needs, and output
//! without colour codes when it goes to a file or a grader.

/// What a failed test printed, without the panic's location line, the backtrace and the
/// note about `RUST_BACKTRACE`. The timeline, the explanation, a diff and the replay
/// command stay.
pub fn clean_failure(output: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut in_backtrace = false;
    for line in output.lines() {
        if line.starts_with("stack backtrace:") {
            in_backtrace = true;
            continue;
        }
        if in_backtrace && !line.starts_with("note: ") {
            continue;
        }
        in_backtrace = false;
        let noise = (line.starts_with("thread '") && line.contains("panicked at"))
            || line.starts_with("note: run with `RUST_BACKTRACE")
            || line.starts_with("note: Some details are omitted");
        if !noise {
            lines.push(line);
        }
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// Removes ANSI colour sequences (pretty_assertions and the compiler colour their output
/// even when it goes to a file or a grader).
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ … final byte in @..~
            for d in chars.by_ref() {
                if ('@'..='~').contains(&d) && d != '[' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` as it should reach the reader: coloured on a terminal, plain elsewhere.
pub fn for_terminal(text: &str) -> String {
    if colored::control::SHOULD_COLORIZE.should_colorize() {
        text.to_string()
    } else {
        strip_ansi(text)
    }
}

/// The width output is wrapped to: the terminal's, or `COLUMNS`, or 100 columns when
/// stdout is not a terminal; never less than 50.
pub fn terminal_width() -> usize {
    use std::io::IsTerminal;
    let terminal = std::io::stdout().is_terminal();
    let size = terminal
        .then(|| crossterm::terminal::size().ok())
        .flatten()
        .map(|(w, _)| usize::from(w));
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
    size.or(columns).unwrap_or(100).max(50)
}

/// `text` in lines of at most `width` columns, broken between words (a word longer than
/// the width gets a line of its own). Never loses a word.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let fits = line.chars().count() + 1 + word.chars().count() <= width;
        if !line.is_empty() && !fits {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` wrapped to `width` columns, every line after `indent` spaces.
pub fn indented(text: &str, indent: usize, width: usize) -> String {
    let pad = " ".repeat(indent);
    wrap(text, width.saturating_sub(indent).max(20))
        .iter()
        .map(|l| format!("{pad}{l}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let text = "a lost response means the receiver did not apply the effect";
        let lines = super::wrap(text, 20);
        assert_eq!(
            lines,
            [
                "a lost response",
                "means the receiver",
                "did not apply the",
                "effect"
            ]
        );
        assert_eq!(lines.join(" "), text);
        assert_eq!(super::wrap("", 20), [""]);
        assert_eq!(
            super::indented("one two three", 3, 30),
            "   one two three\n"
        );
    }

    #[test]
    fn colour_sequences_are_removed() {
        assert_eq!(
            super::strip_ansi("\u{1b}[31m<\u{1b}[0m\u{1b}[1;48;5;52;31mAppl\u{1b}[0m"),
            "<Appl"
        );
    }

    #[test]
    fn a_failure_keeps_its_message_and_loses_the_panic_noise() {
        let output = "\nthread 'x' (12) panicked at crates/labkit/src/fault/explore.rs:146:13:\n\
                      invariant violated: no message is lost\n\
                      stack backtrace:\n   0: rust_begin_unwind\n\
                      note: Some details are omitted, run with `RUST_BACKTRACE=full`\n\
                      replay: cargo labs replay 05 ledger v2:0.1@9f9bf\n\
                      note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(
            super::clean_failure(output),
            vec![
                "invariant violated: no message is lost",
                "replay: cargo labs replay 05 ledger v2:0.1@9f9bf"
            ]
        );
    }
}
