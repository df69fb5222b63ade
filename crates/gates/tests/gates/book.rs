//! The book as a reader gets it, checked on its sources (the browser check in
//! book_web.rs checks the built pages): every chapter in the one order (the situation and
//! its code, Predict, the run, what the run shows, what the service promises, the build
//! phase, simplifications, acceptance criteria, a summary, references) over two pages,
//! the chapter's ending with Predict and the page after the run holding the rest;
//! every diagnosis pointing at a heading of its chapter; nothing before Predict states
//! what an explanation says; balanced answers and spread letters; every
//! line shown fits the page column; every "chapter N" is a link; every figure numbered and
//! referred to; every coined term in the glossary. The rules are in common/book_rules.rs,
//! which the scaffold's test applies to a new lab's chapter too.

use crate::common;
use crate::support;

use common::{labs, repo};
use std::collections::BTreeMap;
use std::path::PathBuf;
use support::book_rules::{
    MAX_COLUMNS, balance_problem, before_predict_problems, cut_listings, expanded, figure_problems,
    key_sentences, order_problems, split_at_predict, split_problems, unlinked_chapter_references,
    wide_code_lines, yes_answers,
};

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

fn report(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The book's pages (book/src/*.md), sorted.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo().join("book/src"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages
}

#[test]
fn every_chapter_follows_the_one_order() {
    report(
        labs()
            .iter()
            .flat_map(|lab| order_problems(&repo(), lab))
            .collect(),
    );
}

#[test]
fn every_chapter_ends_at_predict_and_goes_on_after_the_run() {
    report(
        labs()
            .iter()
            .flat_map(|lab| split_problems(&repo(), lab))
            .collect(),
    );
}

/// A diagnosis names the section that teaches its misconception (`01-outbox.md#the-relay`,
/// written before the chapters were split): it must be a heading of that chapter's page
/// or of its page after the run, where `check` sends the learner.
#[test]
fn every_diagnosis_points_at_a_heading_of_its_chapter() {
    let src = repo().join("book/src");
    let mut problems = Vec::new();
    for lab in labs() {
        for diagnosis in &lab.key.diagnoses {
            let shown = workbook::pages::section_page(&src, &diagnosis.section);
            let (page, anchor) = shown.split_once('#').unwrap_or((&shown, ""));
            let text = std::fs::read_to_string(src.join(page)).unwrap_or_default();
            if !workbook::pages::heading_ids(&text)
                .iter()
                .any(|id| id == anchor)
            {
                problems.push(format!(
                    "lab {}: the diagnosis \"{}\" points at {}, no heading of a chapter's page or of its page after the run",
                    lab.meta.number, diagnosis.misconception, diagnosis.section
                ));
            }
        }
    }
    report(problems);
}

#[test]
fn nothing_before_predict_states_what_an_explanation_says() {
    report(
        labs()
            .iter()
            .flat_map(|lab| before_predict_problems(&repo(), lab))
            .collect(),
    );
}

#[test]
fn every_item_rests_on_the_text_before_predict_and_gives_no_other_away() {
    report(
        labs()
            .iter()
            .flat_map(|lab| support::book_rules::grounds_problems(&repo(), lab))
            .collect(),
    );
}

#[test]
fn the_steps_of_a_build_phase_share_out_what_the_starter_fails() {
    let mut problems = Vec::new();
    for lab in labs() {
        let suite =
            std::fs::read_to_string(repo().join(&lab.meta.graded_suite)).unwrap_or_default();
        let graded = workbook::meta::graded_test_names(&suite);
        problems.extend(support::book_rules::steps_problems(&lab, &graded));
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
        let (yes, of) = yes_answers(&lab);
        println!(
            "{:>3}  {:>8.0} %  {}",
            lab.meta.number,
            yes as f64 / of.max(1) as f64 * 100.0,
            lab.key.questions.len()
        );
        problems.extend(balance_problem(&lab));
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

#[test]
fn every_line_the_book_shows_fits_the_page_column() {
    let mut problems = Vec::new();
    for page in pages() {
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
fn no_listing_stops_inside_a_block_without_saying_so() {
    let mut problems = Vec::new();
    for page in pages() {
        for first in cut_listings(&expanded(&page)) {
            problems.push(format!(
                "{}: the listing that starts `{first}` stops inside a block; end it with a `// …` line",
                page.strip_prefix(repo()).unwrap().display()
            ));
        }
    }
    report(problems);
}

#[test]
fn every_chapter_reference_is_a_link() {
    report(
        pages()
            .iter()
            .flat_map(|page| unlinked_chapter_references(page))
            .collect(),
    );
}

#[test]
fn every_figure_is_numbered_and_referred_to() {
    report(
        labs()
            .iter()
            .flat_map(|lab| figure_problems(&repo(), lab))
            .collect(),
    );
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
