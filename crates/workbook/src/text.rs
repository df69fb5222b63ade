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

#[cfg(test)]
mod tests {
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
