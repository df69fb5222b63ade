//! The book as a reader gets it, checked on its sources (the browser check in
//! book_web.rs checks the built pages): every chapter in the one order (the situation and
//! its code, Predict, the run, what the run shows, what the service promises, the build
//! phase, simplifications, acceptance criteria, a summary, references); nothing before
//! Predict states what an explanation says; balanced answers and spread letters; every
//! line shown fits the page column; every "chapter N" is a link; every figure numbered and
//! referred to; every coined term in the glossary.

mod common;

use common::{labs, repo};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use workbook::meta::Lab;

/// The widest line a code block may show: the kit renders generated text at this width
/// (`labkit::fault::BOOK_WIDTH`), and the browser check (book_web.rs) confirms that a
/// code block this wide does not scroll in mdBook's 750 px column.
const MAX_COLUMNS: usize = labkit::fault::BOOK_WIDTH;

/// The second-level headings every lab chapter has, in this order (each matched by its
/// start, case-insensitive, except "promises", matched anywhere).
const ORDER: &[&str] = &[
    "predict",
    "run",
    "what the run shows",
    "promises",
    "the build phase",
    "simplifications",
    "acceptance criteria",
    "summary",
    "references",
];

/// Terms the book coins, each with a glossary entry.
const COINED: &[&str] = &[
    "fault budget",
    "crash point",
    "crash-point matrix",
    "truth column",
    "timeline",
    "replay token",
    "unknown outcome",
    "seal",
];

fn chapter_path(lab: &Lab) -> PathBuf {
    repo().join(&lab.meta.chapter)
}

/// A chapter as the reader sees it (includes expanded, code blocks dedented).
fn expanded(path: &Path) -> String {
    workbook::pages::expanded(path)
}

/// The chapter's text before its `## Predict` heading, and the text from there on.
fn split_at_predict(text: &str) -> (String, String) {
    let at = text.find("\n## Predict").unwrap_or(text.len());
    (text[..at].to_string(), text[at..].to_string())
}

fn normalise(text: &str) -> String {
    let words: Vec<String> = text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    words.join(" ")
}

fn report(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn every_chapter_follows_the_one_order() {
    let mut problems = Vec::new();
    for lab in labs() {
        let text = std::fs::read_to_string(chapter_path(&lab)).unwrap();
        let headings: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("## "))
            .map(|h| h.trim().to_lowercase())
            .collect();
        let position = |wanted: &str| {
            headings.iter().position(|h| {
                if wanted == "promises" {
                    h.contains("promise")
                } else {
                    h.starts_with(wanted)
                }
            })
        };
        let mut last = None;
        for wanted in ORDER {
            match position(wanted) {
                None => problems.push(format!(
                    "{}: no `## {wanted}…` heading (the order is: {})",
                    lab.meta.chapter,
                    ORDER.join(" → ")
                )),
                Some(at) => {
                    if last.is_some_and(|l| at < l) {
                        problems.push(format!(
                            "{}: `## {}` comes too early (the order is: {})",
                            lab.meta.chapter,
                            headings[at],
                            ORDER.join(" → ")
                        ));
                    }
                    last = Some(at);
                }
            }
        }
    }
    report(problems);
}

/// The sentences an explanation turns on: its first sentence, and every passage it
/// quotes.
fn key_sentences(explain: &str) -> Vec<String> {
    let mut out = Vec::new();
    let first = explain.split(". ").next().unwrap_or(explain);
    out.push(first.to_string());
    for quote in explain.split(['"', '“', '”']).skip(1).step_by(2) {
        out.push(quote.to_string());
    }
    out.into_iter()
        .map(|s| normalise(&s))
        .filter(|s| s.split(' ').count() >= 5)
        .collect()
}

#[test]
fn nothing_before_predict_states_what_an_explanation_says() {
    let mut problems = Vec::new();
    for lab in labs() {
        let (before, _) = split_at_predict(&expanded(&chapter_path(&lab)));
        let before = normalise(&before);
        let explanations = lab
            .key
            .checks
            .iter()
            .map(|c| (c.id.clone(), c.explain.clone()))
            .chain(
                lab.key
                    .questions
                    .iter()
                    .map(|q| (q.id.clone(), q.explain.clone())),
            );
        for (id, explain) in explanations {
            for sentence in key_sentences(&explain) {
                if before.contains(&sentence) {
                    problems.push(format!(
                        "{}: before Predict, the chapter says what `{id}`'s explanation says: \"{sentence}\"",
                        lab.meta.chapter
                    ));
                }
            }
        }
    }
    report(problems);
}

#[test]
fn answers_are_balanced_and_no_letter_is_the_answer_too_often() {
    let mut problems = Vec::new();
    let mut letters: BTreeMap<String, usize> = BTreeMap::new();
    let mut questions = 0;
    println!("lab  yes-share  questions");
    for lab in labs() {
        let yes = lab
            .meta
            .checks
            .iter()
            .zip(&lab.key.checks)
            .filter(|(check, key)| check.answer_for(key.holds))
            .count();
        let share = yes as f64 / lab.key.checks.len().max(1) as f64;
        println!(
            "{:>3}  {:>8.0} %  {}",
            lab.meta.number,
            share * 100.0,
            lab.key.questions.len()
        );
        if !(0.4..=0.6).contains(&share) {
            problems.push(format!(
                "lab {}: {yes} of {} questions about the run are answered yes ({:.0} %); keep it between 40 and 60 %",
                lab.meta.number,
                lab.key.checks.len(),
                share * 100.0
            ));
        }
        for q in &lab.key.questions {
            *letters.entry(q.answer.clone()).or_default() += 1;
            questions += 1;
        }
    }
    println!("answer letters over the book's {questions} multiple-choice questions: {letters:?}");
    for (letter, count) in &letters {
        let share = *count as f64 / questions.max(1) as f64;
        if share > 0.36 {
            problems.push(format!(
                "({letter}) is the answer to {count} of the book's {questions} multiple-choice questions ({:.0} %); no letter should answer more than about a third",
                share * 100.0
            ));
        }
    }
    report(problems);
}

/// Every line of every code block in `text` wider than the column, as `(line, width)`.
fn wide_code_lines(text: &str) -> Vec<(String, usize)> {
    let mut wide = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        let width = line.chars().count();
        if in_code && width > MAX_COLUMNS {
            wide.push((line.to_string(), width));
        }
    }
    wide
}

#[test]
fn every_line_the_book_shows_fits_the_page_column() {
    let mut problems = Vec::new();
    let mut pages: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(repo().join("book/src"))
        .unwrap()
        .flatten()
    {
        if entry.path().extension().is_some_and(|e| e == "md") {
            pages.push(entry.path());
        }
    }
    pages.sort();
    for page in pages {
        for (line, width) in wide_code_lines(&expanded(&page)) {
            problems.push(format!(
                "{}: a code line of {width} columns (at most {MAX_COLUMNS}): {line}",
                page.strip_prefix(repo()).unwrap().display()
            ));
        }
    }
    report(problems);
}

#[test]
fn every_chapter_reference_is_a_link() {
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(repo().join("book/src"))
        .unwrap()
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut in_code = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            let lower = line.to_lowercase();
            for (at, _) in lower.match_indices("chapter ") {
                let number: String = lower[at + 8..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                if number.is_empty() {
                    continue;
                }
                // Inside a link's text: an unclosed `[` before it and `](` after it.
                let before = &line[..at];
                let opened = before
                    .rfind('[')
                    .is_some_and(|o| !before[o..].contains(']'));
                let closed = line[at..]
                    .find("](")
                    .is_some_and(|c| !line[at..at + c].contains('['));
                if !(opened && closed) {
                    problems.push(format!(
                        "{}:{}: \"chapter {number}\" is not a link: {}",
                        path.file_name().unwrap().to_string_lossy(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    report(problems);
}

#[test]
fn every_figure_is_numbered_and_referred_to() {
    let mut problems = Vec::new();
    for lab in labs() {
        let text = std::fs::read_to_string(chapter_path(&lab)).unwrap();
        let mut number = 0;
        for line in text.lines() {
            let Some(start) = line.find("![") else {
                continue;
            };
            number += 1;
            let alt = line[start + 2..].split(']').next().unwrap_or_default();
            let label = format!(
                "Figure {}.{number}",
                lab.meta.number.trim_start_matches('0')
            );
            if !alt.starts_with(&label) {
                problems.push(format!(
                    "{}: the figure `{alt}` should be captioned `{label}: …`",
                    lab.meta.chapter
                ));
            }
            let mentions = text.matches(&label).count();
            if mentions < 2 {
                problems.push(format!(
                    "{}: the text never refers to {label}",
                    lab.meta.chapter
                ));
            }
        }
    }
    report(problems);
}

#[test]
fn every_coined_term_has_a_glossary_entry() {
    let glossary = repo().join("book/src/glossary.md");
    let text = std::fs::read_to_string(&glossary)
        .unwrap_or_default()
        .to_lowercase();
    let summary = std::fs::read_to_string(repo().join("book/src/SUMMARY.md")).unwrap();
    let mut problems = Vec::new();
    if !summary.contains("(glossary.md)") {
        problems.push("book/src/SUMMARY.md does not list glossary.md".to_string());
    }
    for term in COINED {
        if !text.contains(&format!("**{term}**")) {
            problems.push(format!("the glossary has no entry **{term}**"));
        }
    }
    report(problems);
}

#[test]
fn the_gate_finds_what_it_looks_for() {
    assert_eq!(
        wide_code_lines(&format!(
            "```\n{}\nshort\n```\n{}\n",
            "x".repeat(90),
            "y".repeat(99)
        )),
        vec![("x".repeat(90), 90)]
    );
    assert_eq!(
        key_sentences(
            "The row rolled back; the receipt did not. Then more. It says \"the quoted promise holds here\"."
        ),
        vec![
            "the row rolled back the receipt did not".to_string(),
            "the quoted promise holds here".to_string()
        ]
    );
    let (before, after) = split_at_predict("# T\nintro\n## Predict\nlist\n");
    assert_eq!(
        (before.as_str(), after.as_str()),
        ("# T\nintro", "\n## Predict\nlist\n")
    );
}
