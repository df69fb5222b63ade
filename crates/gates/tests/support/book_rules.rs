//! The book gate's rules (tests/gates/book.rs), for any lab's chapter in any workbook: the one
//! order of sections over the chapter's two pages (up to Predict, and after the run),
//! nothing before Predict that an explanation says, balanced answers, code that fits the
//! page column, chapter references as links, numbered figures.

use std::path::Path;
use workbook::meta::Lab;

/// The widest line a code block may show: the kit renders generated text at this width,
/// and the browser check (book_web.rs) confirms that a code block this wide does not
/// scroll in mdBook's 750 px column.
pub const MAX_COLUMNS: usize = labkit::fault::BOOK_WIDTH;

/// The second-level headings every lab chapter has, in this order (each matched by its
/// start, case-insensitive, except "promises", matched anywhere): the chapter's page
/// ends with the first, the page after the run holds the rest.
pub const ORDER: &[&str] = &[
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

/// A chapter as the reader sees it (includes expanded, code blocks dedented).
pub fn expanded(path: &Path) -> String {
    workbook::pages::expanded(path)
}

/// The chapter's text before its `## Predict` heading, and the text from there on.
pub fn split_at_predict(text: &str) -> (String, String) {
    let at = text.find("\n## Predict").unwrap_or(text.len());
    (text[..at].to_string(), text[at..].to_string())
}

pub fn normalise(text: &str) -> String {
    let words: Vec<String> = text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    words.join(" ")
}

/// The second-level headings of a page, in lower case.
fn headings(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|h| h.trim().to_lowercase())
        .collect()
}

/// The text of both pages of the chapter of `lab`, as written (includes not expanded).
pub fn chapter_text(root: &Path, lab: &Lab) -> String {
    workbook::pages::chapter_pages(root, lab)
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the chapter of `lab` is not split as a learner needs it: its page must end with
/// `## Predict` (no heading after it, so the sidebar lists none), the page after the run
/// must exist and hold every heading from `## Run it` on, and SUMMARY.md must list that
/// page under the chapter with the neutral title "After the run".
pub fn split_problems(root: &Path, lab: &Lab) -> Vec<String> {
    let mut problems = Vec::new();
    let [page, after] = workbook::pages::chapter_pages(root, lab);
    let chapter = &lab.meta.chapter;
    let before = headings(&page);
    if before.last().map(String::as_str) != Some("predict") {
        problems.push(format!(
            "{chapter}: its last `##` heading must be `## Predict` (found {before:?}); what follows goes on the page after the run"
        ));
    }
    let after_name = after.file_name().unwrap().to_string_lossy().into_owned();
    if !after.is_file() {
        problems.push(format!("{chapter}: no page after the run ({after_name})"));
    }
    let summary = std::fs::read_to_string(root.join("book/src/SUMMARY.md")).unwrap_or_default();
    let page_name = page.file_name().unwrap().to_string_lossy().into_owned();
    let listed = summary
        .lines()
        .skip_while(|l| !l.ends_with(&format!("]({page_name})")))
        .nth(1)
        .map(str::trim);
    if listed != Some(format!("- [After the run]({after_name})").as_str()) {
        problems.push(format!(
            "SUMMARY.md: `  - [After the run]({after_name})` must follow the entry of {page_name}"
        ));
    }
    problems
}

/// Where the chapter of `lab` breaks the one order, over its two pages.
pub fn order_problems(root: &Path, lab: &Lab) -> Vec<String> {
    let mut problems = Vec::new();
    let headings: Vec<String> = workbook::pages::chapter_pages(root, lab)
        .iter()
        .flat_map(|page| headings(page))
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
    problems
}

/// The sentences an explanation turns on: its first sentence, and every passage it
/// quotes.
pub fn key_sentences(explain: &str) -> Vec<String> {
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

/// Every key sentence of an explanation that the chapter of `lab` says before Predict.
pub fn before_predict_problems(root: &Path, lab: &Lab) -> Vec<String> {
    let mut problems = Vec::new();
    let (before, _) = split_at_predict(&expanded(&root.join(&lab.meta.chapter)));
    let before = normalise(&before);
    let explanations = (lab.key.checks.iter())
        .map(|c| (c.claim.clone(), c.explain.clone()))
        .chain((lab.key.questions.iter()).map(|q| (q.id.clone(), q.explain.clone())));
    for (id, explain) in lab
        .item_ids()
        .into_iter()
        .zip(explanations)
        .map(|(n, (name, e))| (format!("{n} ({name})"), e))
    {
        for sentence in key_sentences(&explain) {
            if before.contains(&sentence) {
                problems.push(format!(
                    "{}: before Predict, the chapter says what `{id}`'s explanation says: \"{sentence}\"",
                    lab.meta.chapter
                ));
            }
        }
    }
    problems
}

/// Where an item of `lab` does not rest on the text before Predict (a `basis` quote the
/// chapter does not hold there), or gives another item away (another item's text states
/// a fact its answer reveals), and where an item has no basis or names nothing it reveals.
pub fn grounds_problems(root: &Path, lab: &Lab) -> Vec<String> {
    let mut problems = Vec::new();
    let (before, _) = split_at_predict(&expanded(&root.join(&lab.meta.chapter)));
    let before = normalise(&before);
    let grounds = lab.grounds();
    let n = &lab.meta.number;
    for item in &grounds {
        if item.basis.is_empty() {
            problems.push(format!("lab {n} {}: no `basis`: quote what the chapter says before Predict that the answer follows from", item.id));
        }
        if item.reveals.is_empty() {
            problems.push(format!("lab {n} {}: no `reveals`: name the facts its answer gives away, so that no other item states them", item.id));
        }
        for quote in item.basis {
            if !before.contains(&normalise(quote)) {
                problems.push(format!(
                    "lab {n} {}: its basis \"{quote}\" is not in the chapter's text before Predict",
                    item.id
                ));
            }
        }
        for fact in item.reveals {
            let fact_words = normalise(fact);
            for other in grounds.iter().filter(|o| o.id != item.id) {
                if normalise(&other.text).contains(&fact_words) {
                    problems.push(format!(
                        "lab {n} {}: its answer reveals \"{fact}\", which {} states: a learner reads both at once",
                        item.id, other.id
                    ));
                }
            }
        }
    }
    problems
}

/// Where the steps of `lab`'s build phase are not a partition of what the starter fails.
pub fn steps_problems(lab: &Lab, graded: &[String]) -> Vec<String> {
    let m = &lab.meta;
    let mut problems = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for step in &m.steps {
        if step.tests.is_empty() {
            problems.push(format!(
                "lab {}: step \"{}\" names no test",
                m.number, step.name
            ));
        }
        for test in &step.tests {
            if !graded.contains(test) {
                problems.push(format!(
                    "lab {}: step \"{}\" names `{test}`, not a graded test",
                    m.number, step.name
                ));
            } else if !m.starter_fails.contains(test) {
                problems.push(format!(
                    "lab {}: step \"{}\" names `{test}`, which the starter already passes",
                    m.number, step.name
                ));
            }
            if !seen.insert(test.clone()) {
                problems.push(format!("lab {}: `{test}` is in two steps", m.number));
            }
        }
    }
    if !m.steps.is_empty() {
        for test in m.starter_fails.iter().filter(|t| !seen.contains(*t)) {
            problems.push(format!("lab {}: `{test}` is in no step", m.number));
        }
    }
    problems
}

/// How many of the questions about the run of `lab` are answered yes, of how many.
pub fn yes_answers(lab: &Lab) -> (usize, usize) {
    let yes = lab
        .meta
        .checks
        .iter()
        .zip(&lab.key.checks)
        .filter(|(check, key)| check.answer_for(key.holds))
        .count();
    (yes, lab.key.checks.len())
}

/// The complaint when fewer than 40 % or more than 60 % of the answers are yes.
pub fn balance_problem(lab: &Lab) -> Option<String> {
    let (yes, of) = yes_answers(lab);
    let share = yes as f64 / of.max(1) as f64;
    (!(0.4..=0.6).contains(&share)).then(|| {
        format!(
            "lab {}: {yes} of {of} questions about the run are answered yes ({:.0} %); keep it between 40 and 60 %",
            lab.meta.number,
            share * 100.0
        )
    })
}

/// Every line of every code block in `text` wider than the column, as `(line, width)`.
pub fn wide_code_lines(text: &str) -> Vec<(String, usize)> {
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

/// Every Rust listing of `text` (a page as a reader gets it) that stops inside a block
/// without saying so: its braces do not balance and its last line has no `…`. A listing
/// cut mid-function must say that the function goes on.
pub fn cut_listings(text: &str) -> Vec<String> {
    let mut cut = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(lines) = &mut block {
            if !trimmed.starts_with("```") {
                lines.push(line);
                continue;
            }
            let code: String = lines.iter().map(|l| code_part(l)).collect();
            let open = code.matches('{').count() as i64 - code.matches('}').count() as i64;
            let last = lines.iter().rev().find(|l| !l.trim().is_empty());
            let says_so = last.is_some_and(|l| l.contains('…') || l.contains("..."));
            if open != 0 && !says_so {
                let first = lines.iter().find(|l| !l.trim().is_empty()).copied();
                cut.push(first.unwrap_or_default().trim().to_string());
            }
            block = None;
        } else if trimmed.starts_with("```rust") {
            block = Some(Vec::new());
        }
    }
    cut
}

/// A line of Rust without its comment and its string and character literals.
fn code_part(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => break,
            '"' => {
                while let Some(s) = chars.next() {
                    match s {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' if chars.clone().nth(1) == Some('\'') => {
                chars.nth(1);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every "chapter N" of the page at `path` that is not a link's text.
pub fn unlinked_chapter_references(path: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let text = std::fs::read_to_string(path).unwrap();
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
    problems
}

/// Every figure of the chapter of `lab` that is not captioned `Figure N.M: …` in order,
/// or that the text never refers to.
pub fn figure_problems(root: &Path, lab: &Lab) -> Vec<String> {
    let mut problems = Vec::new();
    let text = chapter_text(root, lab);
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
        if text.matches(&label).count() < 2 {
            problems.push(format!(
                "{}: the text never refers to {label}",
                lab.meta.chapter
            ));
        }
    }
    problems
}
