//! The readability gate's measures (tests/readability.rs), for any lab in any workbook:
//! the files a learner reads, their functions, and the modules each file uses.

use std::collections::{BTreeMap, BTreeSet};
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

/// The modules of a lab's crate (`src/X.rs` or `src/X/…` is module X) and the modules each
/// refers to (`crate::Y`).
pub fn module_graph(lab: &Lab) -> BTreeMap<String, BTreeSet<String>> {
    let src = lab.dir.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let module = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let source = std::fs::read_to_string(&file).unwrap();
        let uses = graph.entry(module.clone()).or_default();
        for part in source.split("crate::").skip(1) {
            let target: String = part
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !target.is_empty() && target != module {
                uses.insert(target);
            }
        }
        // `use crate::{a, b}` names several modules at once.
        for part in source.split("crate::{").skip(1) {
            let list = part.split('}').next().unwrap_or_default();
            for item in list.split(',') {
                let target: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !target.is_empty() && target != module {
                    uses.insert(target);
                }
            }
        }
    }
    graph
}

fn reaches(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(module) = stack.pop() {
        if module == to {
            return true;
        }
        if seen.insert(module.clone()) {
            stack.extend(graph.get(&module).into_iter().flatten().cloned());
        }
    }
    false
}

/// Every module a learner file of `lab` uses that leads back to it.
pub fn import_circles(lab: &Lab) -> Vec<String> {
    let graph = module_graph(lab);
    let mut circles = Vec::new();
    for file in &lab.meta.learner_files {
        let learner = Path::new(file)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for used in graph.get(&learner).into_iter().flatten() {
            if reaches(&graph, used, &learner) {
                circles.push(format!(
                    "lab {}: the learner's `{learner}` uses `{used}`, which leads back to `{learner}`: the learner's file may use the world; only the harness calls the learner",
                    lab.meta.number
                ));
            }
        }
    }
    circles
}
