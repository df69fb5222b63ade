//! The readability gate's measures (tests/readability.rs), for any lab in any workbook:
//! the files a learner reads, their functions, and what the learner's crate depends on.

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

/// Every file a learner of `lab` (in the workbook at `root`) reads: its sources and its
/// graded suite.
pub fn learner_visible(root: &Path, lab: &Lab) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&lab.dir.join("src"), &mut files);
    files.push(root.join(&lab.meta.graded_suite));
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

/// The functions of a source file, as (name, first line, number of lines), found by
/// matching braces outside strings, characters and comments.
pub fn functions(source: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let signature = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "async fn ",
            "pub async fn ",
        ]
        .iter()
        .find_map(|p| trimmed.strip_prefix(p));
        let Some(rest) = signature else { continue };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let mut depth = 0i32;
        let mut opened = false;
        'lines: for (i, body) in lines.iter().enumerate().skip(start) {
            let mut chars = body.chars().peekable();
            let mut in_string = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' if in_string => {
                        chars.next();
                    }
                    '"' => in_string = !in_string,
                    '/' if !in_string && chars.peek() == Some(&'/') => break,
                    '{' if !in_string => {
                        depth += 1;
                        opened = true;
                    }
                    '}' if !in_string => {
                        depth -= 1;
                        if opened && depth == 0 {
                            found.push((name.clone(), start + 1, i - start + 1));
                            break 'lines;
                        }
                    }
                    ';' if !in_string && !opened => break 'lines,
                    _ => {}
                }
            }
        }
    }
    found
}

/// Every function of the files a learner of `lab` reads that runs past the limit.
pub fn long_functions(root: &Path, lab: &Lab) -> Vec<String> {
    let mut over = Vec::new();
    for file in learner_visible(root, lab) {
        let source = std::fs::read_to_string(&file).unwrap();
        for (name, line, length) in functions(&source) {
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
