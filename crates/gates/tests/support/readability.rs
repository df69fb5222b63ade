//! The readability gate's measures (tests/gates/readability.rs), for any lab in any workbook:
//! the files a learner reads, their functions, and what the learner's crate depends on.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use workbook::meta::Lab;

pub const MAX_FILE_LINES: usize = 300;
pub const MAX_FUNCTION_LINES: usize = 60;

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every file a learner of `lab` (in the workbook at `root`) reads: its sources, its
/// graded suite, and the reference solution's learner files (what the learner's file
/// becomes once solved, which the class walks through after the lab).
pub fn learner_visible(root: &Path, lab: &Lab) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&lab.dir.join("src"), &mut files);
    files.push(root.join(&lab.meta.graded_suite));
    let solution = root.join("solutions").join(lab.slug());
    for learner in &lab.meta.learner_files {
        let solved = solution.join(learner);
        if solved.is_file() {
            files.push(solved);
        }
    }
    files.sort();
    files
}

/// The length in lines of every file a learner of `lab` reads, with its path from `root`.
pub fn file_sizes(root: &Path, lab: &Lab) -> Vec<(usize, String)> {
    learner_visible(root, lab)
        .iter()
        .map(|file| {
            let lines = std::fs::read_to_string(file).unwrap().lines().count();
            let shown = file.strip_prefix(root).unwrap_or(file).display();
            (lines, shown.to_string())
        })
        .collect()
}

/// A token of a source file, flattened, with the line it starts on; a group's opening
/// token holds the index of its closing one.
enum Token {
    Ident(String),
    Punct(char, Spacing),
    Open(Delimiter, usize),
    Close,
    Other,
}

fn flatten(stream: TokenStream, out: &mut Vec<(Token, usize)>) {
    for tree in stream {
        let line = tree.span().start().line;
        match tree {
            TokenTree::Ident(ident) => out.push((Token::Ident(ident.to_string()), line)),
            TokenTree::Punct(punct) => {
                out.push((Token::Punct(punct.as_char(), punct.spacing()), line));
            }
            TokenTree::Literal(_) => out.push((Token::Other, line)),
            TokenTree::Group(group) => {
                let open = out.len();
                out.push((Token::Open(group.delimiter(), 0), line));
                flatten(group.stream(), out);
                let close = out.len();
                out[open].0 = Token::Open(group.delimiter(), close);
                out.push((Token::Close, group.span_close().start().line));
            }
        }
    }
}

/// The functions of a source file, as (name, line of `fn`, number of lines to the closing
/// brace): every `fn` item with a body, whatever its visibility and qualifiers, in
/// modules, impls, traits and other functions, read as Rust tokens (so strings, comments
/// and attributes cannot fool it). A source that is not Rust tokens is an error.
pub fn functions(source: &str) -> Result<Vec<(String, usize, usize)>, String> {
    let stream = source
        .parse::<TokenStream>()
        .map_err(|e| format!("not Rust tokens: {e}"))?;
    let mut tokens = Vec::new();
    flatten(stream, &mut tokens);
    let mut found = Vec::new();
    for (i, (token, line)) in tokens.iter().enumerate() {
        let (Token::Ident(keyword), Some((Token::Ident(name), _))) = (token, tokens.get(i + 1))
        else {
            continue;
        };
        if keyword != "fn" {
            continue;
        }
        if let Some(close) = body_end(&tokens, i + 2) {
            let name = name.strip_prefix("r#").unwrap_or(name).to_string();
            found.push((name, *line, tokens[close].1 - line + 1));
        }
    }
    Ok(found)
}

/// The index of the closing brace of the body of the function whose signature goes on
/// at `start`, or none if the signature ends at `;` (a declaration in a trait or an
/// `extern` block). Groups in the signature are stepped over whole; a `{` inside the
/// generics (`Foo<{ N }>`) is not the body.
fn body_end(tokens: &[(Token, usize)], start: usize) -> Option<usize> {
    let mut angle = 0usize;
    let mut i = start;
    while let Some((token, _)) = tokens.get(i) {
        match token {
            Token::Open(Delimiter::Brace, close) if angle == 0 => return Some(*close),
            Token::Open(_, close) => i = *close,
            Token::Punct(';', _) if angle == 0 => return None,
            Token::Punct('<', _) => angle += 1,
            Token::Punct('>', _) if !arrow(tokens, i) => angle = angle.saturating_sub(1),
            Token::Close => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether the `>` at `i` ends a `->`.
fn arrow(tokens: &[(Token, usize)], i: usize) -> bool {
    i > 0 && matches!(tokens[i - 1].0, Token::Punct('-', Spacing::Joint))
}

/// Every function of the files a learner of `lab` reads that runs past the limit.
pub fn long_functions(root: &Path, lab: &Lab) -> Vec<String> {
    let mut over = Vec::new();
    for file in learner_visible(root, lab) {
        let source = std::fs::read_to_string(&file).unwrap();
        let found = functions(&source).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (name, line, length) in found {
            if length > MAX_FUNCTION_LINES {
                over.push(format!(
                    "{}:{line}: `{name}` has {length} lines (at most {MAX_FUNCTION_LINES})",
                    file.strip_prefix(root).unwrap_or(&file).display()
                ));
            }
        }
    }
    over
}

/// The names a manifest's `[dependencies]` (and, when `dev` is set, `[dev-dependencies]`)
/// give the packages it depends on.
fn dependencies(manifest: &Path, dev: bool) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return Vec::new();
    };
    let Ok(table) = toml::from_str::<toml::Table>(&text) else {
        return Vec::new();
    };
    let tables: &[&str] = if dev {
        &["dependencies", "dev-dependencies"]
    } else {
        &["dependencies"]
    };
    let mut names = Vec::new();
    for key in tables {
        let Some(deps) = table.get(*key).and_then(|d| d.as_table()) else {
            continue;
        };
        for (name, dep) in deps {
            let package = dep.get("package").and_then(|p| p.as_str());
            names.push(package.unwrap_or(name).to_string());
        }
    }
    names
}

/// What keeps the learner's file apart from the rest of the lab, so that the learner's
/// file uses the world and only the harness's users call the learner: the learner's crate
/// depends on the lab's harness (`harness/`) and reaches neither the kit nor the graded
/// suites' harness (the suite has them as dev-dependencies); the harness does not depend
/// on the learner's crate, so no module of the harness can import the learner's file, and
/// cargo refuses any circle.
pub fn import_circles(lab: &Lab) -> Vec<String> {
    let n = &lab.meta.number;
    let learner = dependencies(&lab.dir.join("Cargo.toml"), false);
    let harness_manifest = lab.dir.join("harness/Cargo.toml");
    let harness_name = std::fs::read_to_string(&harness_manifest)
        .ok()
        .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
        .and_then(|t| Some(t.get("package")?.get("name")?.as_str()?.to_string()));
    let mut problems = Vec::new();
    match &harness_name {
        Some(name) if learner.contains(name) => {}
        Some(name) => problems.push(format!(
            "lab {n}: the learner's crate does not depend on the lab's harness `{name}`"
        )),
        None => problems.push(format!(
            "lab {n}: {} is missing: the lab has no harness apart from the learner's file",
            harness_manifest.display()
        )),
    }
    for kit in ["labkit", "graded"] {
        if learner.iter().any(|d| d == kit) {
            problems.push(format!(
                "lab {n}: the learner's crate depends on `{kit}`: a learner file must not reach it; re-export from the world what the learner's file needs, and make it a dev-dependency for the graded suite"
            ));
        }
    }
    if dependencies(&harness_manifest, true).contains(&lab.meta.package) {
        problems.push(format!(
            "lab {n}: the harness depends on the learner's crate `{}`: the learner's file may use the world; only the lab's binary and graded suite hand it to the harness",
            lab.meta.package
        ));
    }
    problems
}

/// The crates a learner opens beside the labs: the simulators of the services the labs
/// talk to (`crates/sim-*`) and the kit the labs are built on (`crates/labkit`).
pub fn learner_crates(root: &Path) -> Vec<PathBuf> {
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("sim-") || name == "labkit"
        })
        .collect();
    crates.sort();
    crates
}

/// Whether `file` is a test's own file (`tests.rs`, or anything under a `tests` folder):
/// the cases that pin a behaviour to the documentation it quotes. A learner opens a crate
/// to read what it does, not its test suite, and a limit on the tests would only push
/// coverage down. (A test module written inline in a source file is part of that file.)
pub fn is_test_file(file: &Path) -> bool {
    file.file_name().is_some_and(|name| name == "tests.rs")
        || file.components().any(|part| part.as_os_str() == "tests")
}

/// Every source file of the crates a learner opens, but their tests' own files.
pub fn crate_sources(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in learner_crates(root) {
        rust_files(&dir.join("src"), &mut files);
    }
    files.retain(|file| !is_test_file(file.strip_prefix(root).unwrap_or(file)));
    files.sort();
    files
}

/// What the rule measures: a file, or a function of a file (all the functions of one name
/// in a file are one item, as long as the longest of them).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Item {
    File(String),
    Function(String, String),
}

impl Item {
    pub fn file(&self) -> &str {
        match self {
            Item::File(file) | Item::Function(file, _) => file,
        }
    }

    fn limit(&self) -> usize {
        match self {
            Item::File(_) => MAX_FILE_LINES,
            Item::Function(..) => MAX_FUNCTION_LINES,
        }
    }
}

impl std::fmt::Display for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Item::File(file) => write!(f, "{file}"),
            Item::Function(file, name) => write!(f, "{file}: `{name}`"),
        }
    }
}

/// Every file of `files` and every function in them, with its length in lines and where
/// it starts (`path:line`); paths are shown from `root`.
pub fn measure(root: &Path, files: &[PathBuf]) -> BTreeMap<Item, (usize, String)> {
    let mut measured = BTreeMap::new();
    for file in files {
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        let source = std::fs::read_to_string(file).unwrap();
        let lines = source.lines().count();
        measured.insert(Item::File(shown.clone()), (lines, format!("{shown}:1")));
        let found = functions(&source).unwrap_or_else(|e| panic!("{shown}: {e}"));
        for (name, line, length) in found {
            let item = Item::Function(shown.clone(), name);
            let at = format!("{shown}:{line}");
            let longest = measured.entry(item).or_insert((length, at.clone()));
            if length > longest.0 {
                *longest = (length, at);
            }
        }
    }
    measured
}

/// The list of the files and functions that were over the limits when the rule was
/// extended to the crates, with their lengths: an entry may only shrink, and goes once
/// its item fits.
pub const OVERSIZED: &str = "crates/gates/tests/support/oversized.toml";

/// The entries of the list at `path`: `[files]` maps a path to its lines,
/// `[functions."path"]` a function's name to its lines.
pub fn oversized_list(path: &Path) -> BTreeMap<Item, usize> {
    let text = std::fs::read_to_string(path).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let lines = |value: &toml::Value| value.as_integer().unwrap() as usize;
    let mut listed = BTreeMap::new();
    let section = |name: &str| table.get(name).and_then(|v| v.as_table()).cloned();
    for (file, value) in section("files").unwrap_or_default() {
        listed.insert(Item::File(file), lines(&value));
    }
    for (file, names) in section("functions").unwrap_or_default() {
        for (name, value) in names.as_table().unwrap() {
            listed.insert(Item::Function(file.clone(), name.clone()), lines(value));
        }
    }
    listed
}

/// What the gate says of the `measured` items against the `listed` ones: an item over its
/// limit that the list lacks, a listed item longer or shorter than its entry, and an entry
/// whose item fits now or is gone. `in_scope` says whether an entry's file was measured
/// in this run at all (`LABS_ONLY` leaves labs out).
pub fn against_list(
    measured: &BTreeMap<Item, (usize, String)>,
    listed: &BTreeMap<Item, usize>,
    in_scope: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (item, (lines, at)) in measured {
        let limit = item.limit();
        match listed.get(item) {
            None if *lines > limit => problems.push(format!(
                "{at}: {item} has {lines} lines (at most {limit}): split it"
            )),
            Some(entry) if lines > entry => problems.push(format!(
                "{at}: {item} has {lines} lines, more than its {entry} in {OVERSIZED}, which may only shrink: split it"
            )),
            Some(_) if *lines <= limit => problems.push(format!(
                "{at}: {item} has {lines} lines and fits now (at most {limit}): remove its entry from {OVERSIZED}"
            )),
            Some(entry) if lines < entry => problems.push(format!(
                "{at}: {item} has {lines} lines, fewer than its {entry} in {OVERSIZED}: write {lines} there"
            )),
            _ => {}
        }
    }
    for item in listed.keys() {
        if !measured.contains_key(item) && in_scope(item.file()) {
            problems.push(format!(
                "{item} is gone or not read by a learner: remove its entry from {OVERSIZED}"
            ));
        }
    }
    problems
}
