//! What only a reviewer can judge, found in a learner file's tokens.
//!
//! The grader does not reject code for what it contains — a test passes or fails for what
//! the code does — with one exception: a learner file that brings in another file is
//! refused, because the grader takes only the learner's files and what they bring in is
//! work it did not take. That covers `#[path]` (and any attribute that can yield one, such
//! as `cfg_attr`), `include!` and its kin under any name (`use std::include_str as grab;`)
//! or handed to a macro as a name to call (`m!(include_str, "…")`; so a variable called
//! `include` inside a macro call is refused too: rename it), `mod name;`, and a
//! `macro_rules!` whose body writes attributes, modules or includes.
//! Everything else no solution needs is noted, ranked, so a teacher can look: the shapes
//! of known soundness-hole exploits first (safe code that reads and writes any memory,
//! rust-lang/rust#25860 and #57893), then leaving the process, reading the environment or
//! `/proc`, link attributes, `extern` blocks, threads, the network, macros the scan cannot
//! see through, and, for the record, printing.
//!
//! The scan reads tokens, not text: spacing, line breaks, comments and raw identifiers
//! (`r#process`) change nothing. The gate proves that no reference solution draws a note.

use crate::grade::{Note, Severity};
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
    MacroWritesItems,
    ModuleFile,
    SoundnessShape,
    ConstBomb,
    Unreadable,
}

impl Rule {
    fn what(self) -> &'static str {
        match self {
            Rule::BringsInAFile => {
                "brings in another file (a `path` attribute, `include!`, `include_str!`, \
                 `include_bytes!` under any name or handed to a macro, or `mod name;`): the \
                 grader takes only learner files, so the starter is graded in its place"
            }
            Rule::ModuleFile => {
                "declares `mod name;`, which reads the module from a file of its own: a grader \
                 takes only the learner files, so the starter is graded in its place; write the \
                 module inline instead, `mod name { … }`"
            }
            Rule::MacroWritesItems => {
                "defines a macro that writes attributes, modules or file includes: the grader \
                 cannot see what it brings in, so the starter is graded in its place"
            }
            Rule::Process => {
                "uses `std::process` (ending the process early can hide a failing test; \
                 starting another one can do anything)"
            }
            Rule::Environment => "reads the environment or the command line",
            Rule::SystemPath => "names a system path (`/proc`, `/dev`, `/sys`)",
            Rule::Output => "prints to stdout or stderr itself (usually debugging output)",
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
                "combines the ingredients of a known compiler soundness hole (a blanket impl \
                 with an associated type used through a `dyn` binding, rust-lang/rust#57893; \
                 or `for<'a>` with `&'a &'b`, rust-lang/rust#25860), which lets safe code \
                 read any memory: read this file"
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
    // The compiler reads the file it names into the binary's debug information: data,
    // not code, so it is noted, not refused (the sandbox shows no file to read).
    ("debugger_visualizer", Rule::Files),
];

impl Rule {
    /// How much a finding of this rule asks of a reviewer.
    fn severity(self) -> Severity {
        match self {
            Rule::BringsInAFile | Rule::MacroWritesItems | Rule::SoundnessShape => {
                Severity::Serious
            }
            Rule::Output | Rule::Unreadable => Severity::Info,
            _ => Severity::Review,
        }
    }
}

/// What the scan found in one learner file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// For a reviewer: one note per kind of finding, with its lines, most serious first.
    pub notes: Vec<Note>,
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

/// The tokens of a file, with what the readers below ask of them.
struct Tokens<'a>(&'a [(Token, usize)]);

impl Tokens<'_> {
    fn at(&self, i: usize) -> Option<&Token> {
        self.0.get(i).map(|(t, _)| t)
    }

    fn line(&self, i: usize) -> usize {
        self.0.get(i).map_or(0, |(_, line)| *line)
    }

    fn punct(&self, i: usize, c: char) -> bool {
        matches!(self.at(i), Some(Token::Punct(p, _)) if *p == c)
    }

    fn ident(&self, i: usize, name: &str) -> bool {
        matches!(self.at(i), Some(Token::Ident(n)) if n == name)
    }

    /// The index of the `Close` that ends the group opened at `open`.
    fn group_end(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for (i, (token, _)) in self.0.iter().enumerate().skip(open) {
            match token {
                Token::Open(_) => depth += 1,
                Token::Close if depth <= 1 => return i,
                Token::Close => depth -= 1,
                _ => {}
            }
        }
        self.0.len()
    }
}

/// The findings in `tokens`, each a rule and the line it was found on.
fn findings(tokens: &[(Token, usize)]) -> Vec<(Rule, usize)> {
    let t = Tokens(tokens);
    let calls = macro_arguments(&t);
    let mut found = Vec::new();
    let mut in_use = false;
    for (i, (token, line)) in tokens.iter().enumerate() {
        match token {
            Token::Ident(name) => {
                in_use |= name == "use";
                let in_call = calls.iter().any(|&(open, close)| open < i && i < close);
                for rule in ident_rules(&t, i, name, in_use, in_call) {
                    found.push((rule, *line));
                }
            }
            Token::Punct(';', _) => in_use = false,
            Token::Punct('#', _) => found.extend(attribute_rule(&t, i).map(|r| (r, *line))),
            Token::Literal(text)
                if ["/proc", "/dev/", "/sys/"].iter().any(|p| text.contains(p)) =>
            {
                found.push((Rule::SystemPath, *line));
            }
            _ => {}
        }
    }
    found.extend(exploit_shapes(&t));
    found
}

/// The token groups a macro is called with (`name!(…)`, `name! { … }`) or defined by
/// (`macro_rules! name { … }`), as the indices of their `Open` and `Close`.
fn macro_arguments(t: &Tokens<'_>) -> Vec<(usize, usize)> {
    let mut calls = Vec::new();
    for i in 1..t.0.len() {
        if !(t.punct(i, '!') && matches!(t.at(i - 1), Some(Token::Ident(_)))) {
            continue;
        }
        let open = if matches!(t.at(i + 1), Some(Token::Ident(_))) {
            i + 2
        } else {
            i + 1
        };
        if matches!(t.at(open), Some(Token::Open(_))) {
            calls.push((open, t.group_end(open)));
        }
    }
    calls
}

/// What an identifier at `i` means: a name that always matters, a module reached by a
/// path, a built-in macro called, imported or handed to a macro under any name, `mod
/// name;`, `static mut`, a macro that writes items.
fn ident_rules(t: &Tokens<'_>, i: usize, name: &str, in_use: bool, in_call: bool) -> Vec<Rule> {
    let mut rules = Vec::new();
    let in_path = in_use
        || (i >= 2 && t.punct(i - 1, ':') && t.punct(i - 2, ':'))
        || (t.punct(i + 1, ':') && t.punct(i + 2, ':'));
    rules.extend(lookup(NAMES, name));
    rules.extend(lookup(MODULES, name).filter(|_| in_path));
    // `include_str!(…)`, and `use std::include_str as grab;`: an import of a built-in
    // macro is the macro, whatever it is called afterwards.
    if t.punct(i + 1, '!') || in_use {
        rules.extend(lookup(MACROS, name));
    } else if in_call {
        // `m!(include_str, "/etc/hostname")` with `($i:ident, …) => { $i!(…) }`: a macro
        // can call any name it is handed, and the name is the only trace of the call.
        rules.extend(lookup(MACROS, name).filter(|r| *r == Rule::BringsInAFile));
    }
    // `mod name;` reads another file; `mod name { … }` does not.
    if name == "mod" && matches!(t.at(i + 1), Some(Token::Ident(_))) && t.punct(i + 2, ';') {
        rules.push(Rule::ModuleFile);
    }
    if name == "static" && t.ident(i + 1, "mut") {
        rules.push(Rule::Unsafe);
    }
    if name == "macro_rules" && t.punct(i + 1, '!') && macro_writes_items(t, i + 3) {
        rules.push(Rule::MacroWritesItems);
    }
    rules
}

/// Whether the body of a `macro_rules!` (its group opens at `open`) writes attributes,
/// modules, includes or paths: what it expands to could bring in any file.
fn macro_writes_items(t: &Tokens<'_>, open: usize) -> bool {
    if !matches!(t.at(open), Some(Token::Open(_))) {
        return false;
    }
    (open + 1..t.group_end(open)).any(|j| match t.at(j) {
        Some(Token::Punct('#', _)) => true,
        Some(Token::Ident(n)) => n == "mod" || n == "path" || n.starts_with("include"),
        _ => false,
    })
}

/// An attribute at `i` (`#[name …]` or `#![name …]`): its rule by its first name, and
/// any attribute that can yield `path = …` (`cfg_attr(…, path = "…")`) brings in a file.
fn attribute_rule(t: &Tokens<'_>, i: usize) -> Option<Rule> {
    let open = if t.punct(i + 1, '!') { i + 2 } else { i + 1 };
    if t.at(open) != Some(&Token::Open(Delimiter::Bracket)) {
        return None;
    }
    let end = t.group_end(open);
    let yields_path = (open + 1..end).any(|j| t.ident(j, "path") && t.punct(j + 1, '='));
    if yields_path {
        return Some(Rule::BringsInAFile);
    }
    let first = if t.ident(open + 1, "unsafe") {
        open + 3
    } else {
        open + 1
    };
    match t.at(first) {
        Some(Token::Ident(name)) => lookup(ATTRIBUTES, name),
        _ => None,
    }
}

/// The ingredients of the known soundness holes, found together: rust-lang/rust#25860
/// (`for<'a>` beside `&'a &'b`) and the #57893 family (a blanket impl with an associated
/// type, used through a `dyn` type that binds it). One ingredient alone is ordinary code
/// (a table of function pointers, a higher-ranked bound) and draws nothing.
fn exploit_shapes(t: &Tokens<'_>) -> Vec<(Rule, usize)> {
    let n = t.0.len();
    let higher_ranked: Vec<usize> = (0..n)
        .filter(|&i| t.ident(i, "for") && t.punct(i + 1, '<'))
        .collect();
    let nested_refs: Vec<usize> = (0..n)
        .filter(|&i| {
            t.punct(i, '&')
                && t.at(i + 1) == Some(&Token::Lifetime)
                && t.punct(i + 2, '&')
                && t.at(i + 3) == Some(&Token::Lifetime)
        })
        .collect();
    let blanket: Vec<usize> = (0..n).filter(|&i| blanket_impl_with_type(t, i)).collect();
    let bound_dyn: Vec<usize> = (0..n).filter(|&i| dyn_with_binding(t, i)).collect();
    let mut at = Vec::new();
    if !higher_ranked.is_empty() && !nested_refs.is_empty() {
        at.extend(higher_ranked.iter().chain(&nested_refs));
    }
    if !blanket.is_empty() && !bound_dyn.is_empty() {
        at.extend(blanket.iter().chain(&bound_dyn));
    }
    at.into_iter()
        .map(|i| (Rule::SoundnessShape, t.line(i)))
        .collect()
}

/// `impl<…, T, …> Trait for T { type X = …; }`: an impl for every type of a parameter,
/// with an associated type.
fn blanket_impl_with_type(t: &Tokens<'_>, i: usize) -> bool {
    if !(t.ident(i, "impl") && t.punct(i + 1, '<')) {
        return false;
    }
    let (mut j, mut depth, mut params) = (i + 1, 0i32, Vec::new());
    while j < t.0.len() {
        match t.at(j) {
            Some(Token::Punct('<', _)) => depth += 1,
            Some(Token::Punct('>', _)) if depth == 1 => break,
            Some(Token::Punct('>', _)) => depth -= 1,
            Some(Token::Ident(name))
                if depth == 1 && (t.punct(j - 1, '<') || t.punct(j - 1, ',')) =>
            {
                params.push(name.clone())
            }
            _ => {}
        }
        j += 1;
    }
    let Some(body) = (j..t.0.len()).find(|&k| t.at(k) == Some(&Token::Open(Delimiter::Brace)))
    else {
        return false;
    };
    // `for T`, or the same type in parentheses (`for (T)`, `for ((T))`).
    let for_param = (j..body).any(|k| {
        let mut ty = k + 1;
        while t.at(ty) == Some(&Token::Open(Delimiter::Parenthesis)) {
            ty += 1;
        }
        t.ident(k, "for") && matches!(t.at(ty), Some(Token::Ident(p)) if params.contains(p))
    });
    for_param && (body..t.group_end(body)).any(|k| t.ident(k, "type"))
}

/// `dyn Trait<…, Name = Type>`: a trait object that binds an associated type.
fn dyn_with_binding(t: &Tokens<'_>, i: usize) -> bool {
    if !t.ident(i, "dyn") {
        return false;
    }
    let mut depth = 0i32;
    for j in i + 1..t.0.len().min(i + 64) {
        match t.at(j) {
            Some(Token::Punct('<', _)) => depth += 1,
            Some(Token::Punct('>', _)) if !t.punct(j - 1, '-') => {
                depth -= 1;
                if depth <= 0 {
                    return false;
                }
            }
            Some(Token::Punct('=', Spacing::Alone)) if depth >= 1 => {
                return matches!(t.at(j - 1), Some(Token::Ident(_)));
            }
            Some(Token::Punct(',' | ';', _) | Token::Open(Delimiter::Brace)) if depth == 0 => {
                return false;
            }
            _ => {}
        }
    }
    false
}

/// The source as rustc reads it: a first line that starts with `#!` and does not open an
/// inner attribute (`#![`, whitespace and plain comments allowed between) is a shebang,
/// which rustc ignores (`rustc_lexer::strip_shebang`). It is blanked here, the line kept
/// so that line numbers hold, so that it cannot make the rest unreadable to the scan.
fn without_shebang(source: &str) -> std::borrow::Cow<'_, str> {
    let Some(mut rest) = source.strip_prefix("#!") else {
        return source.into();
    };
    loop {
        let trimmed = rest.trim_start();
        let doc = trimmed.starts_with("///") || trimmed.starts_with("//!");
        if let (Some(comment), false) = (trimmed.strip_prefix("//"), doc) {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let (Some(comment), false) = (
            trimmed.strip_prefix("/*"),
            trimmed.starts_with("/**") || trimmed.starts_with("/*!"),
        ) {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else {
            rest = trimmed;
            break;
        }
    }
    if rest.starts_with('[') {
        return source.into();
    }
    let first_line = source.find('\n').unwrap_or(source.len());
    source[first_line..].to_string().into()
}

/// Scans one learner file (`name` is how the notes refer to it).
pub fn scan(name: &str, source: &str) -> Scan {
    let mut by_rule: BTreeMap<Rule, Vec<usize>> = BTreeMap::new();
    match TokenStream::from_str(&without_shebang(source)) {
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
    let source_lines: Vec<&str> = source.lines().collect();
    let mut notes: Vec<Note> = by_rule
        .iter()
        .map(|(rule, lines)| {
            let mut lines = lines.clone();
            lines.sort_unstable();
            let excerpt = lines
                .first()
                .and_then(|l| source_lines.get(l.saturating_sub(1)))
                .map(|text| text.trim().chars().take(120).collect());
            Note {
                severity: rule.severity(),
                text: rule.what().to_string(),
                file: Some(name.to_string()),
                lines,
                excerpt,
            }
        })
        .collect();
    notes.sort_by_key(|n| n.severity);
    Scan {
        notes,
        refused: [
            Rule::BringsInAFile,
            Rule::MacroWritesItems,
            Rule::ModuleFile,
        ]
        .iter()
        .any(|rule| by_rule.contains_key(rule)),
    }
}

/// At most `max` notes: the first ones, then one that says how many more there were. A
/// flood of notes must not bury the ones that matter, nor make a grade file unusable.
pub fn capped(notes: Vec<Note>, max: usize) -> Vec<Note> {
    if notes.len() <= max {
        return notes;
    }
    let more = notes.len() - (max - 1);
    let mut kept: Vec<Note> = notes.into_iter().take(max - 1).collect();
    kept.push(Note::new(
        Severity::Info,
        format!("… and {more} more notes like these"),
    ));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(source: &str) -> Vec<String> {
        scan("x.rs", source)
            .notes
            .iter()
            .map(Note::one_line)
            .collect()
    }

    #[test]
    fn each_kind_is_noted_with_its_lines_most_serious_first() {
        let source = "fn f() {\n    std::process::exit(0);\n    println!(\"test x ... ok\");\n    let p = \"/proc/self/mem\";\n}\n";
        let notes = scan("relay.rs", source).notes;
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].text.contains("std::process") && notes[0].lines == [2]);
        assert_eq!(notes[0].excerpt.as_deref(), Some("std::process::exit(0);"));
        assert!(notes[1].text.contains("system path") && notes[1].lines == [4]);
        assert!(notes[2].text.contains("prints to stdout") && notes[2].lines == [3]);
        assert_eq!(notes[2].severity, Severity::Info);
    }

    #[test]
    fn a_shebang_line_hides_nothing_and_an_inner_attribute_is_not_one() {
        // rustc ignores the first line: the scan reads the rest as rustc does.
        let source = "#!/bin/false \"x\nfn f() { std::process::exit(0); }\n";
        let said = rules(source);
        assert!(said.iter().any(|n| n.contains("std::process")), "{said:?}");
        assert!(
            !said.iter().any(|n| n.contains("cannot be read")),
            "{said:?}"
        );
        assert_eq!(scan("x.rs", source).notes[0].lines, [2]);
        for attribute in [
            "#![allow(unused)]\n",
            "#! /* c */ [allow(unused)]\n",
            "#!\n[allow(unused)]\n",
        ] {
            assert_eq!(without_shebang(attribute), attribute, "{attribute}");
        }
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
    fn honest_code_draws_no_note() {
        let source = "// std::process::exit is not needed\n/* unsafe { } */\nfn process(env: u32, path: &str) -> u32 { let io = env; io }\nfn on_exit() { for x in 0..3 { let _ = x; } }\nmod inline { pub fn f() {} }\n#[cfg(test)]\nmod tests { #[test] fn t() {} }\n";
        assert_eq!(rules(source), Vec::<String>::new());
        // A table of function pointers, a higher-ranked bound, an error kind: ordinary.
        let ordinary = "use std::io::ErrorKind;\nconst STEPS: &[(&str, fn(u32) -> u32)] = &[(\"a\", f)];\nfn f(x: u32) -> u32 { x }\nfn g<F>(f: F) where F: for<'a> Fn(&'a str) -> &'a str { let _ = f; }\nfn kind(e: std::io::Error) -> bool { e.kind() == ErrorKind::NotFound }\nimpl<T: Clone> Named for T { fn name(&self) -> String { String::new() } }\ntrait Named { fn name(&self) -> String; }\n";
        assert_eq!(rules(ordinary), Vec::<String>::new());
    }

    #[test]
    fn bringing_in_a_file_is_refused_under_every_name() {
        for source in [
            "#[path = \"/work/solutions/relay.rs\"] mod borrowed; pub use borrowed::*;",
            "#[ path = \"x.rs\" ]\nmod b { }",
            "#[cfg_attr(all(), path = \"/abs/solutions/01-outbox/src/relay.rs\")] mod sol { }",
            "const S: &str = include_str ! (\"/etc/os-release\");",
            "include!(\"../../solutions/relay.rs\");",
            "use std::include_str as grab; const S: &str = grab!(\"/etc/hostname\");",
            "use core::{include_bytes as b}; const S: &[u8] = b!(\"k\");",
            "pub use ::std::include as inc;",
            "macro_rules! m { ($p:literal) => { #[cfg_attr(all(), path = $p)] mod sol; } }",
            "macro_rules! m { () => { mod x; } }",
            "macro_rules! m { ($i:ident, $p:literal) => { $i!($p) } }\nconst S: &str = m!(include_str, \"/etc/hostname\");",
            "macro_rules! m { ($($t:tt)*) => { $($t)*!(\"/abs/solution.rs\"); } }\nm! { include }",
        ] {
            let scan = scan("relay.rs", source);
            assert!(scan.refused, "{source}: {scan:?}");
            assert_eq!(scan.notes[0].severity, Severity::Serious, "{source}");
        }
        let module = scan("relay.rs", "fn f() {}\n#[cfg(test)]\nmod tests;\n");
        assert!(module.refused);
        assert_eq!(module.notes[0].severity, Severity::Review);
        assert!(module.notes[0].text.contains("write the module inline"));
        let harmless = scan(
            "x.rs",
            "macro_rules! sq { ($x:expr) => { $x * $x } }\nfn f() -> u32 { sq!(3) }",
        );
        assert!(!harmless.refused);
        assert!(harmless.notes[0].text.contains("macro"));
        let visualizer = scan(
            "x.rs",
            "#![debugger_visualizer(gdb_script_file = \"/home/t/solution.rs\")]\nfn f() {}",
        );
        assert!(!visualizer.refused);
        assert!(visualizer.notes[0].text.contains("files or paths"));
    }

    #[test]
    fn the_shapes_of_soundness_hole_exploits_are_noted_together_not_alone() {
        let cve_rs = "fn translate<'a, 'b, T: ?Sized>(_a: &'a &'b (), b: &'b T) -> &'a T { b }\n\
                      fn expand<'a, 'b, T: ?Sized>(x: &'a T) -> &'b T {\n\
                      let f: for<'x> fn(_, &'x T) -> &'b T = translate;\n\
                      f(&&(), x) }\n";
        let notes = scan("x.rs", cve_rs).notes;
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(notes[0].severity, Severity::Serious);
        assert_eq!(notes[0].lines, [1, 3]);
        let blanket = "trait Object<U> { type Output; }\n\
                       impl<T: ?Sized, U> Object<U> for T { type Output = U; }\n\
                       fn foo<T: ?Sized, U>(x: <T as Object<U>>::Output) -> U { x }\n\
                       fn cast<T, U>(x: T) -> U { foo::<dyn Object<U, Output = T>, U>(x) }\n";
        let notes = scan("x.rs", blanket).notes;
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].text.contains("57893"));
        assert_eq!(notes[0].lines, [2, 4]);
        // The same impl for the parameter in parentheses (a learner's walk-through hid it so).
        let parenthesised = blanket.replace("for T {", "for ((T)) {");
        let notes = scan("x.rs", &parenthesised).notes;
        assert!(
            notes.len() == 1 && notes[0].text.contains("57893"),
            "{notes:?}"
        );
    }

    #[test]
    fn unreadable_files_and_floods_are_reported_in_bounds() {
        assert!(rules("fn f() { (")[0].contains("cannot be read"));
        let many: Vec<Note> = (0..100)
            .map(|i| Note::new(Severity::Info, format!("note {i}")))
            .collect();
        let kept = capped(many, 10);
        assert_eq!(kept.len(), 10);
        assert_eq!(kept[9].text, "… and 91 more notes like these");
    }
}
