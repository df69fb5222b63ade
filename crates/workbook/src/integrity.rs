//! What only a reviewer can judge, found in a learner file's tokens.
//!
//! The grader does not reject code for what it contains — a test passes or fails for what
//! the code does — with one exception: a learner file that brings in another file
//! (`#[path]`, `include!` and its kin, `mod name;`) is refused, because the grader takes
//! only the learner's files and what they bring in is work it did not take. Everything
//! else no solution needs is noted, so a teacher can look: leaving the process, reading
//! the environment or `/proc`, writing to stdout outside the harness, `unsafe`, link
//! attributes, `extern` blocks, threads, the network, other processes, macros the scan
//! cannot see through, and the shapes of known soundness-hole exploits (which read and
//! write any memory in safe code, rust-lang/rust#25860).
//!
//! The scan reads tokens, not text: spacing, line breaks, comments and raw identifiers
//! (`r#process`) change nothing. The gate proves that no reference solution draws a note.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use std::collections::BTreeMap;
use std::str::FromStr;

/// One kind of thing no solution needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rule {
    BringsInAFile,
    Process,
    Environment,
    SystemPath,
    Output,
    Unsafe,
    Link,
    Extern,
    Files,
    Threads,
    Network,
    Panics,
    RawMemory,
    Macro,
    SoundnessShape,
    ConstBomb,
    Unreadable,
}

impl Rule {
    fn what(self) -> &'static str {
        match self {
            Rule::BringsInAFile => {
                "brings in another file (`#[path]`, `include!`, `include_str!`, \
                 `include_bytes!` or `mod name;`): the grader takes only learner files, so \
                 this lab is graded as if the file were not submitted"
            }
            Rule::Process => {
                "uses `std::process` (ending the process early can hide a failing test; \
                 starting another one can do anything)"
            }
            Rule::Environment => "reads the environment or the command line",
            Rule::SystemPath => "names a system path (`/proc`, `/dev`, `/sys`)",
            Rule::Output => {
                "writes to stdout or stderr itself (debug output, or lines that imitate the \
                 harness)"
            }
            Rule::Unsafe => "uses `unsafe`",
            Rule::Link => {
                "uses link or crate attributes (`link_section`, `no_mangle`, `export_name`, \
                 `used`, …)"
            }
            Rule::Extern => "declares `extern` items or crates",
            Rule::Files => "touches files or paths outside its world",
            Rule::Threads => "starts threads",
            Rule::Network => "uses the network",
            Rule::Panics => "catches panics or replaces the panic hook",
            Rule::RawMemory => "handles raw pointers, the allocator or transmutes",
            Rule::Macro => {
                "defines or calls a macro the scan cannot see through (`macro_rules!`, \
                 `asm!`, `concat_idents!`)"
            }
            Rule::SoundnessShape => {
                "has the shape of a known soundness-hole exploit (a function-pointer type, \
                 higher-ranked `for<'a>` lifetimes or `&'a &'b`), which reads and writes any \
                 memory without `unsafe` (rust-lang/rust#25860)"
            }
            Rule::ConstBomb => "silences the compiler's guard against endless const evaluation",
            Rule::Unreadable => "cannot be read as Rust tokens (it will not compile)",
        }
    }
}

/// Module names a path may not go through, and what going through them means.
const MODULES: &[(&str, Rule)] = &[
    ("process", Rule::Process),
    ("env", Rule::Environment),
    ("fs", Rule::Files),
    ("path", Rule::Files),
    ("os", Rule::Files),
    ("io", Rule::Output),
    ("thread", Rule::Threads),
    ("net", Rule::Network),
    ("panic", Rule::Panics),
    ("ptr", Rule::RawMemory),
    ("alloc", Rule::RawMemory),
    ("arch", Rule::RawMemory),
    ("intrinsics", Rule::RawMemory),
];

/// Names that mean the same wherever they appear.
const NAMES: &[(&str, Rule)] = &[
    ("stdout", Rule::Output),
    ("stderr", Rule::Output),
    ("stdin", Rule::Output),
    ("catch_unwind", Rule::Panics),
    ("resume_unwind", Rule::Panics),
    ("set_hook", Rule::Panics),
    ("take_hook", Rule::Panics),
    ("transmute", Rule::RawMemory),
    ("transmute_copy", Rule::RawMemory),
    ("TcpStream", Rule::Network),
    ("TcpListener", Rule::Network),
    ("UdpSocket", Rule::Network),
    ("unsafe", Rule::Unsafe),
    ("extern", Rule::Extern),
    ("long_running_const_eval", Rule::ConstBomb),
];

/// Macros, by name (followed by `!`).
const MACROS: &[(&str, Rule)] = &[
    ("include", Rule::BringsInAFile),
    ("include_str", Rule::BringsInAFile),
    ("include_bytes", Rule::BringsInAFile),
    ("env", Rule::Environment),
    ("option_env", Rule::Environment),
    ("print", Rule::Output),
    ("println", Rule::Output),
    ("eprint", Rule::Output),
    ("eprintln", Rule::Output),
    ("dbg", Rule::Output),
    ("macro_rules", Rule::Macro),
    ("asm", Rule::Macro),
    ("global_asm", Rule::Macro),
    ("naked_asm", Rule::Macro),
    ("concat_idents", Rule::Macro),
];

/// Attributes, by their first name.
const ATTRIBUTES: &[(&str, Rule)] = &[
    ("path", Rule::BringsInAFile),
    ("link_section", Rule::Link),
    ("no_mangle", Rule::Link),
    ("export_name", Rule::Link),
    ("used", Rule::Link),
    ("link", Rule::Link),
    ("link_name", Rule::Link),
    ("linkage", Rule::Link),
    ("naked", Rule::Link),
    ("panic_handler", Rule::Link),
    ("global_allocator", Rule::Link),
    ("no_std", Rule::Link),
    ("no_main", Rule::Link),
    ("no_builtins", Rule::Link),
    ("recursion_limit", Rule::ConstBomb),
];

/// What the scan found in one learner file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// For a reviewer: one line per kind of finding, with its lines.
    pub notes: Vec<String>,
    /// True when the file brings in another file: the grader does not take it.
    pub refused: bool,
}

/// A token as the rules read it: flattened, with the line it starts on.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Punct(char, Spacing),
    Literal(String),
    Lifetime,
    Open(Delimiter),
    Close,
}

fn flatten(stream: TokenStream, out: &mut Vec<(Token, usize)>) {
    let mut trees = stream.into_iter().peekable();
    while let Some(tree) = trees.next() {
        let line = tree.span().start().line;
        match tree {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                out.push((Token::Ident(name), line));
            }
            TokenTree::Punct(punct) if punct.as_char() == '\'' => {
                // A lifetime is a joint `'` and the identifier after it.
                trees.next();
                out.push((Token::Lifetime, line));
            }
            TokenTree::Punct(punct) => {
                out.push((Token::Punct(punct.as_char(), punct.spacing()), line));
            }
            TokenTree::Literal(literal) => out.push((Token::Literal(literal.to_string()), line)),
            TokenTree::Group(group) => {
                out.push((Token::Open(group.delimiter()), line));
                flatten(group.stream(), out);
                out.push((Token::Close, group.span_close().start().line));
            }
        }
    }
}

fn lookup(table: &[(&str, Rule)], name: &str) -> Option<Rule> {
    table
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, rule)| *rule)
}

/// The findings in `tokens`, each a rule and the line it was found on.
fn findings(tokens: &[(Token, usize)]) -> Vec<(Rule, usize)> {
    let at = |i: usize| tokens.get(i).map(|(t, _)| t);
    let is_punct = |i: usize, c: char| matches!(at(i), Some(Token::Punct(p, _)) if *p == c);
    let path_sep_before = |i: usize| i >= 2 && is_punct(i - 1, ':') && is_punct(i - 2, ':');
    let path_sep_after = |i: usize| is_punct(i + 1, ':') && is_punct(i + 2, ':');
    let mut found = Vec::new();
    let mut in_use = false;
    for (i, (token, line)) in tokens.iter().enumerate() {
        let line = *line;
        match token {
            Token::Ident(name) => {
                if name == "use" {
                    in_use = true;
                }
                if let Some(rule) = lookup(NAMES, name) {
                    found.push((rule, line));
                }
                if let Some(rule) = lookup(MODULES, name)
                    && (in_use || path_sep_before(i) || path_sep_after(i))
                {
                    found.push((rule, line));
                }
                if is_punct(i + 1, '!')
                    && let Some(rule) = lookup(MACROS, name)
                {
                    found.push((rule, line));
                }
                // `mod name;` reads another file; `mod name { … }` does not.
                if name == "mod"
                    && matches!(at(i + 1), Some(Token::Ident(_)))
                    && is_punct(i + 2, ';')
                {
                    found.push((Rule::BringsInAFile, line));
                }
                // A function-pointer type: `fn` straight before its parameters.
                if name == "fn" && at(i + 1) == Some(&Token::Open(Delimiter::Parenthesis)) {
                    found.push((Rule::SoundnessShape, line));
                }
                // Higher-ranked lifetimes: `for<'a>`.
                if name == "for" && is_punct(i + 1, '<') {
                    found.push((Rule::SoundnessShape, line));
                }
                if name == "static" && matches!(at(i + 1), Some(Token::Ident(m)) if m == "mut") {
                    found.push((Rule::Unsafe, line));
                }
            }
            Token::Punct(';', _) => in_use = false,
            // `&'a &'b`: a reference to a reference, both lifetimes named.
            Token::Punct('&', _)
                if at(i + 1) == Some(&Token::Lifetime)
                    && is_punct(i + 2, '&')
                    && at(i + 3) == Some(&Token::Lifetime) =>
            {
                found.push((Rule::SoundnessShape, line));
            }
            // An attribute: `#[name …]` or `#![name …]`.
            Token::Punct('#', _) => {
                let open = if is_punct(i + 1, '!') { i + 2 } else { i + 1 };
                if at(open) == Some(&Token::Open(Delimiter::Bracket)) {
                    let first = match at(open + 1) {
                        Some(Token::Ident(name)) if name == "unsafe" => at(open + 3),
                        other => other,
                    };
                    if let Some(Token::Ident(name)) = first
                        && let Some(rule) = lookup(ATTRIBUTES, name)
                    {
                        found.push((rule, line));
                    }
                }
            }
            Token::Literal(text)
                if ["/proc", "/dev/", "/sys/"].iter().any(|p| text.contains(p)) =>
            {
                found.push((Rule::SystemPath, line));
            }
            _ => {}
        }
    }
    found
}

/// Scans one learner file (`name` is how the notes refer to it).
pub fn scan(name: &str, source: &str) -> Scan {
    let mut by_rule: BTreeMap<Rule, Vec<usize>> = BTreeMap::new();
    match TokenStream::from_str(source) {
        Ok(stream) => {
            let mut tokens = Vec::new();
            flatten(stream, &mut tokens);
            for (rule, line) in findings(&tokens) {
                let lines = by_rule.entry(rule).or_default();
                if !lines.contains(&line) {
                    lines.push(line);
                }
            }
        }
        Err(e) => {
            by_rule.insert(Rule::Unreadable, vec![e.span().start().line]);
        }
    }
    let notes = by_rule
        .iter()
        .map(|(rule, lines)| {
            let shown: Vec<String> = lines.iter().take(5).map(|n| n.to_string()).collect();
            format!(
                "{name} {} (line {}{})",
                rule.what(),
                shown.join(", "),
                if lines.len() > 5 { ", …" } else { "" }
            )
        })
        .collect();
    Scan {
        notes,
        refused: by_rule.contains_key(&Rule::BringsInAFile),
    }
}

/// At most `max` notes: the first ones, then one that says how many more there were. A
/// flood of notes must not bury the ones that matter, nor make a grade file unusable.
pub fn capped(notes: Vec<String>, max: usize) -> Vec<String> {
    if notes.len() <= max {
        return notes;
    }
    let more = notes.len() - (max - 1);
    let mut kept: Vec<String> = notes.into_iter().take(max - 1).collect();
    kept.push(format!("… and {more} more notes like these"));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(source: &str) -> Vec<String> {
        scan("x.rs", source).notes
    }

    #[test]
    fn each_kind_is_noted_with_its_lines() {
        let source = "fn f() {\n    std::process::exit(0);\n    println!(\"test x ... ok\");\n    let p = \"/proc/self/mem\";\n}\n";
        let notes = scan("relay.rs", source).notes;
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].contains("std::process") && notes[0].contains("line 2"));
        assert!(notes[1].contains("system path") && notes[1].contains("line 4"));
        assert!(notes[2].contains("writes to stdout") && notes[2].contains("line 3"));
    }

    #[test]
    fn spacing_comments_and_raw_names_do_not_hide_anything() {
        for source in [
            "fn f() { std :: process :: exit(0); }",
            "fn f() { std::\n  /* hidden */ process\n  ::exit(0); }",
            "fn f() { std::r#process::exit(0); }",
            "use std::{process as p}; fn f() { p::exit(0) }",
            "use std as s; fn f() { s::process::exit(0) }",
        ] {
            assert!(
                rules(source).iter().any(|n| n.contains("std::process")),
                "{source}: {:?}",
                rules(source)
            );
        }
        assert!(rules("fn f() { let out = std::io::stdout (); }").len() == 1);
        assert!(rules("fn f() { print ! (\"x\"); }")[0].contains("stdout"));
    }

    #[test]
    fn comments_and_ordinary_names_draw_no_note() {
        let source = "// std::process::exit is not needed\n/* unsafe { } */\nfn process(env: u32, path: &str) -> u32 { let io = env; io }\nfn on_exit() { for x in 0..3 { let _ = x; } }\nmod inline { pub fn f() {} }\n";
        assert_eq!(rules(source), Vec::<String>::new());
    }

    #[test]
    fn bringing_in_a_file_is_refused() {
        for source in [
            "#[path = \"/work/solutions/relay.rs\"] mod borrowed; pub use borrowed::*;",
            "#[ path = \"x.rs\" ]\nmod b { }",
            "mod borrowed;",
            "const S: &str = include_str ! (\"/etc/os-release\");",
            "include!(\"../../solutions/relay.rs\");",
        ] {
            let scan = scan("relay.rs", source);
            assert!(scan.refused, "{source}: {scan:?}");
            assert!(
                scan.notes
                    .iter()
                    .any(|n| n.contains("brings in another file"))
            );
        }
    }

    #[test]
    fn the_shapes_of_soundness_hole_exploits_are_noted() {
        let cve_rs = "fn translate<'a, 'b, T: ?Sized>(_a: &'a &'b (), b: &'b T) -> &'a T { b }\n\
                      fn expand<'a, 'b, T: ?Sized>(x: &'a T) -> &'b T {\n\
                      let f: for<'x> fn(_, &'x T) -> &'b T = translate;\n\
                      f(&&(), x) }\n";
        let notes = rules(cve_rs);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("soundness") && notes[0].contains("line 1, 3"));
        assert!(rules("fn g(f: fn(&u8) -> &'static u8) {}")[0].contains("soundness"));
    }

    #[test]
    fn macros_the_scan_cannot_see_through_are_noted() {
        let source =
            "macro_rules! m { ($x:ident) => { std::$x::exit(0) } }\nfn f() { m!(process) }";
        let notes = rules(source);
        assert!(notes.iter().any(|n| n.contains("macro")), "{notes:?}");
    }

    #[test]
    fn unreadable_files_and_floods_are_reported_in_bounds() {
        assert!(rules("fn f() { (")[0].contains("cannot be read"));
        let many: Vec<String> = (0..100).map(|i| format!("note {i}")).collect();
        let kept = capped(many, 10);
        assert_eq!(kept.len(), 10);
        assert_eq!(kept[9], "… and 91 more notes like these");
    }
}
