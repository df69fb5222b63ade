//! What only a reviewer can judge. The grader never rejects code for what it contains —
//! a test passes or fails for what the code does — but it notes what no solution needs,
//! so a teacher can look: leaving the process, reading the environment or `/proc`, writing
//! to stdout outside the harness, `unsafe`, link attributes, including other files,
//! `extern` blocks, threads, the network or other processes. The gate proves that no
//! reference solution draws a single note.

/// One kind of thing no solution needs, and the words that reveal it.
struct Pattern {
    what: &'static str,
    needles: &'static [&'static str],
}

const PATTERNS: &[Pattern] = &[
    Pattern {
        what: "uses `std::process` (ending the process early can hide a failing test; \
               starting another one can do anything)",
        needles: &[
            "std::process",
            "process::exit",
            "process::abort",
            "Command::new",
        ],
    },
    Pattern {
        what: "reads the environment",
        needles: &["std::env", "env::var", "env!(", "option_env!("],
    },
    Pattern {
        what: "reads /proc",
        needles: &["/proc"],
    },
    Pattern {
        what: "writes to stdout or stderr itself (debug output, or lines that imitate the harness)",
        needles: &[
            "print!(",
            "println!(",
            "eprint!(",
            "eprintln!(",
            "stdout()",
            "stderr()",
            "dbg!(",
        ],
    },
    Pattern {
        what: "uses `unsafe`",
        needles: &["unsafe"],
    },
    Pattern {
        what: "uses link attributes (`link_section`, `no_mangle`, `export_name`, `used`)",
        needles: &[
            "link_section",
            "no_mangle",
            "export_name",
            "#[used",
            "linkage",
        ],
    },
    Pattern {
        what: "includes another file (`include!`, `include_str!`, `include_bytes!`, `#[path]`)",
        needles: &["include!(", "include_str!(", "include_bytes!(", "#[path"],
    },
    Pattern {
        what: "declares `extern` items or crates",
        needles: &["extern "],
    },
    Pattern {
        what: "touches files outside its world",
        needles: &["std::fs", "fs::", "File::"],
    },
    Pattern {
        what: "starts threads",
        needles: &["thread::", "std::thread"],
    },
    Pattern {
        what: "uses the network",
        needles: &["std::net", "TcpStream", "UdpSocket"],
    },
    Pattern {
        what: "catches panics or replaces the panic hook",
        needles: &["catch_unwind", "set_hook", "take_hook", "resume_unwind"],
    },
];

/// `source` without its comments (strings stay: a path in a string literal counts).
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut depth = 1;
                let mut previous = ' ';
                for d in chars.by_ref() {
                    if previous == '/' && d == '*' {
                        depth += 1;
                    } else if previous == '*' && d == '/' {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    previous = d;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The notes for one learner file (`name` is how the note refers to it).
pub fn scan(name: &str, source: &str) -> Vec<String> {
    let code = without_comments(source);
    let mut notes = Vec::new();
    for pattern in PATTERNS {
        let lines: Vec<usize> = code
            .lines()
            .enumerate()
            .filter(|(_, line)| pattern.needles.iter().any(|n| contains_word(line, n)))
            .map(|(i, _)| i + 1)
            .collect();
        if !lines.is_empty() {
            let shown: Vec<String> = lines.iter().take(5).map(|n| n.to_string()).collect();
            notes.push(format!(
                "{name} {} (line {}{})",
                pattern.what,
                shown.join(", "),
                if lines.len() > 5 { ", …" } else { "" }
            ));
        }
    }
    notes
}

/// True when `needle` occurs in `line` not glued to an identifier on its left (so
/// `exit(` does not match `on_exit(`, nor `fs::` match `offs::`).
fn contains_word(line: &str, needle: &str) -> bool {
    let starts_with_word = needle.starts_with(|c: char| c.is_alphanumeric() || c == '_');
    line.match_indices(needle).any(|(at, _)| {
        !starts_with_word
            || !line[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_noted_with_its_lines() {
        let source = "fn f() {\n    std::process::exit(0);\n    println!(\"test x ... ok\");\n    let p = \"/proc/self/mem\";\n}\n";
        let notes = scan("relay.rs", source);
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].contains("std::process") && notes[0].contains("line 2"));
        assert!(notes[1].contains("reads /proc") && notes[1].contains("line 4"));
        assert!(notes[2].contains("writes to stdout") && notes[2].contains("line 3"));
    }

    #[test]
    fn comments_and_longer_names_draw_no_note() {
        let source = "// std::process::exit is not needed\n/* unsafe { } */\nfn on_exit() {}\nfn g() { on_exit(); let offs = 1; }\n";
        assert_eq!(scan("x.rs", source), Vec::<String>::new());
    }

    #[test]
    fn a_string_with_slashes_is_not_a_comment() {
        let source = "let url = \"http://x\"; std::env::var(\"HOME\");\n";
        let notes = scan("x.rs", source);
        assert!(notes.iter().any(|n| n.contains("environment")), "{notes:?}");
    }
}
