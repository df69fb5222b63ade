//! Pages of the book the CLI writes (and the gate checks current): each lab's list of
//! predictions, and the table of how long each chapter takes to read, measured on the
//! chapters as a reader gets them.

use crate::meta::{Lab, predictions_page};
use std::path::{Path, PathBuf};

/// Reading speeds the table assumes: prose, and code (read, not skimmed).
const WORDS_PER_MINUTE: f64 = 200.0;
const CODE_LINES_PER_MINUTE: f64 = 20.0;

/// The region of `source` between `ANCHOR: name` and `ANCHOR_END: name` (anchor lines
/// dropped); the whole file without anchor lines when `anchor` is empty; lines `a:b` when
/// it is a line range — what mdBook's `{{#include file:anchor}}` shows.
pub fn include_region(source: &str, anchor: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let keep = |l: &str| !l.contains("ANCHOR:") && !l.contains("ANCHOR_END:");
    if anchor.is_empty() {
        return lines
            .iter()
            .filter(|l| keep(l))
            .map(|l| format!("{l}\n"))
            .collect();
    }
    if anchor.chars().all(|c| c.is_ascii_digit() || c == ':') {
        let mut parts = anchor.split(':').map(|p| p.parse::<usize>().ok());
        let from = parts.next().flatten().unwrap_or(1).max(1) - 1;
        let to = parts
            .next()
            .flatten()
            .unwrap_or(lines.len())
            .min(lines.len());
        return lines[from.min(to)..to]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
    }
    let start = lines
        .iter()
        .position(|l| l.trim_end().ends_with(&format!("ANCHOR: {anchor}")));
    let mut out = String::new();
    if let Some(start) = start {
        for line in &lines[start + 1..] {
            if line.trim_end().ends_with(&format!("ANCHOR_END: {anchor}")) {
                break;
            }
            if keep(line) {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// A page as a reader gets it: includes expanded (recursively), code blocks dedented as
/// the book's preprocessor does.
pub fn expanded(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let base = path.parent().unwrap_or(Path::new("."));
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("{{#include ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "{{#include ".len()..];
        let Some(end) = after.find("}}") else {
            break;
        };
        let spec = after[..end].trim();
        let (file, anchor) = spec.split_once(':').unwrap_or((spec, ""));
        let target = base.join(file);
        let included = if target.extension().is_some_and(|e| e == "md") {
            expanded(&target)
        } else {
            include_region(
                &std::fs::read_to_string(&target).unwrap_or_default(),
                anchor,
            )
        };
        out.push_str(&included);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    crate::bookpp::dedent_code_blocks(&out)
}

/// Words of prose and lines of code of a page as a reader gets it.
pub fn measure(text: &str) -> (usize, usize) {
    let (mut words, mut code) = (0, 0);
    let mut in_code = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
        } else if in_code {
            code += usize::from(!line.trim().is_empty());
        } else {
            words += line
                .split_whitespace()
                .filter(|w| w.chars().any(char::is_alphanumeric))
                .count();
        }
    }
    (words, code)
}

/// The table of reading times, one row per lab's chapter.
pub fn reading_times(root: &Path, labs: &[Lab]) -> String {
    let mut out = String::from(
        "| chapter | words | code lines | reading time | lines the learner writes |\n\
         |---|---:|---:|---:|---:|\n",
    );
    let mut total = 0.0;
    for lab in labs {
        let (words, code) = measure(&expanded(&root.join(&lab.meta.chapter)));
        let minutes = words as f64 / WORDS_PER_MINUTE + code as f64 / CODE_LINES_PER_MINUTE;
        total += minutes;
        let solution: usize = lab
            .meta
            .learner_files
            .iter()
            .map(|f| {
                std::fs::read_to_string(root.join("solutions").join(lab.slug()).join(f))
                    .map(|text| text.lines().filter(|l| !l.trim().is_empty()).count())
                    .unwrap_or(0)
            })
            .sum();
        out.push_str(&format!(
            "| {} · {} | {words} | {code} | {:.0} min | {solution} |\n",
            lab.meta.number, lab.meta.title, minutes
        ));
    }
    out.push_str(&format!(
        "\nIn all, about {:.1} hours of reading. Times assume {WORDS_PER_MINUTE} words of prose and {CODE_LINES_PER_MINUTE} lines of code a minute; the last column counts the non-blank lines of the reference solution's learner files.\n",
        total / 60.0
    ));
    out
}

/// Every page the CLI writes into the book, with its content.
pub fn generated_pages(root: &Path, labs: &[Lab]) -> Vec<(PathBuf, String)> {
    let mut pages: Vec<(PathBuf, String)> = labs
        .iter()
        .map(|lab| {
            (
                root.join("book/src/predictions")
                    .join(format!("{}.md", lab.slug())),
                predictions_page(lab),
            )
        })
        .collect();
    // The teacher's chapter measures the labs with their solutions: only the teacher's
    // edition writes it.
    if root.join("solutions").is_dir() {
        pages.push((
            root.join("book/src/figures/reading-times.md"),
            reading_times(root, labs),
        ));
    }
    pages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_a_range_and_a_whole_file_are_included_as_mdbook_does() {
        let source = "a\n// ANCHOR: x\nb\nc\n// ANCHOR_END: x\nd\n";
        assert_eq!(include_region(source, "x"), "b\nc\n");
        assert_eq!(include_region(source, "1:2"), "a\n// ANCHOR: x\n");
        assert_eq!(include_region(source, ""), "a\nb\nc\nd\n");
    }

    #[test]
    fn prose_words_and_code_lines_are_counted_apart() {
        let text = "Two words.\n\n```rust\nfn a() {}\n\nfn b() {}\n```\n| x | — |\n";
        assert_eq!(measure(text), (3, 2));
    }
}
