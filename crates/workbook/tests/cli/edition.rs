//! The gate that holds in both editions — the teacher's and the student's, before and
//! after a learner solves labs: every lab's metadata and key load and agree; every file a
//! learner must not change is as published; every learner file's published starter is at
//! hand for `cargo labs reset`; the book's includes resolve; the generated prediction
//! pages are current. It builds nothing, so it stays fast.

use crate::common;

use common::repo as root;
use workbook::meta::load_labs;

fn report(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}

#[test]
fn every_lab_loads_with_a_key_that_matches_its_items() {
    let labs = load_labs(&root()).unwrap();
    let problems: Vec<String> = labs
        .broken
        .iter()
        .map(|b| format!("{}: {}", b.slug(), b.problem))
        .collect();
    report(problems);
    assert!(!labs.labs.is_empty(), "no lab under labs/");
}

#[test]
fn files_a_learner_must_not_change_are_as_published() {
    let root = root();
    let mut problems = Vec::new();
    for lab in load_labs(&root).unwrap().labs {
        for path in workbook::grade::changed_published_files(&root, &lab, u64::MAX) {
            problems.push(format!(
                "lab {}: {path} differs from its published version; put it back (`git checkout {path}`, or the file from a fresh copy of the workbook)",
                lab.meta.number
            ));
        }
    }
    report(problems);
}

#[test]
fn every_learner_file_has_its_published_starter_at_hand() {
    let root = root();
    let mut problems = Vec::new();
    for lab in load_labs(&root).unwrap().labs {
        for file in &lab.meta.learner_files {
            if let Err(e) = workbook::starters::published_starter(&root, &lab, file) {
                problems.push(format!("lab {}: {e}", lab.meta.number));
            }
        }
    }
    report(problems);
}

#[test]
fn the_generated_prediction_pages_are_current() {
    let root = root();
    let labs = load_labs(&root).unwrap().labs;
    let mut problems = Vec::new();
    for (path, text) in workbook::pages::generated_pages(&root, &labs) {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            problems.push(format!(
                "{} is out of date: run `cargo labs bless`",
                path.display()
            ));
        }
    }
    report(problems);
}

/// Every `{{#include path:anchor}}` in the book names an existing file and anchor (mdBook
/// renders a missing anchor as nothing, silently), and every image exists.
#[test]
fn every_book_include_and_image_resolves() {
    let book = root().join("book/src");
    let mut problems = Vec::new();
    let mut stack = vec![book.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let base = path.parent().unwrap();
            for part in text.split("{{#").skip(1) {
                let Some(body) = part.split("}}").next() else {
                    continue;
                };
                let mut words = body.split_whitespace();
                let (Some(kind), Some(spec)) = (words.next(), words.next()) else {
                    continue;
                };
                if kind != "include" && kind != "rustdoc_include" {
                    continue;
                }
                let (file, anchor) = spec.split_once(':').unwrap_or((spec, ""));
                let target = base.join(file);
                let Ok(source) = std::fs::read_to_string(&target) else {
                    problems.push(format!(
                        "{}: {{{{#{kind} {spec}}}}}: no such file",
                        path.display()
                    ));
                    continue;
                };
                let is_lines = anchor.chars().all(|c| c.is_ascii_digit() || c == ':');
                if !anchor.is_empty() && !is_lines {
                    let start = format!("ANCHOR: {anchor}");
                    let end = format!("ANCHOR_END: {anchor}");
                    let has = |marker: &str| source.lines().any(|l| l.trim_end().ends_with(marker));
                    if !has(&start) || !has(&end) {
                        problems.push(format!(
                            "{}: {{{{#{kind} {spec}}}}}: no `{start}` … `{end}` in {}",
                            path.display(),
                            target.display()
                        ));
                    }
                }
            }
            for part in text.split("](").skip(1) {
                let link = part.split(')').next().unwrap_or("");
                let image = link.ends_with(".svg") || link.ends_with(".png");
                if image && !base.join(link).is_file() {
                    problems.push(format!("{}: image {link} does not exist", path.display()));
                }
            }
        }
    }
    report(problems);
}
