//! `cargo labs check N`: one lab's graded tests, the way a grader runs them — the
//! expected tests from the suite's source, each in its own process, a test that did not
//! report a failure — with each failure's timeline, and the misconception its failure
//! matches in the catalogue.

use super::{Command, Section};
use crate::error::{Error, Result};
use crate::grade::SuiteRun;
use crate::grade::run::learner_run;
use crate::grade::scan_learner_files;
use crate::lab_binary::check_mark;
use crate::meta::Lab;
use crate::progress::now_utc;
use crate::workbook::Workbook;
use colored::Colorize;
use std::path::Path;

pub const COMMAND: Command = Command {
    name: "check",
    section: Section::Learner,
    usage: "cargo labs check N",
    about: "the lab's graded tests (your build phase)",
    run: |wb, args| check(wb, wb.lab(&args.one()?)?),
};

/// A learner file that a grader would refuse: said at once, before anything is built, in
/// words that say what to change.
fn refusal(wb: &Workbook, lab: &Lab) -> Option<Error> {
    let scan = scan_learner_files(&wb.root, lab);
    if !scan.refused {
        return None;
    }
    let why: Vec<String> = (scan.notes.iter())
        .filter(|n| n.severity <= crate::grade::Severity::Review)
        .map(|n| format!("  {}", n.one_line()))
        .collect();
    Some(Error::lab(format!(
        "lab {}: a grader takes only your learner files, and one of them brings in another file, so it would grade the starter in its place:\n{}\nPut the whole of your work in the learner files.",
        lab.meta.number,
        why.join("\n")
    )))
}

/// The graded tests, step by step where the build phase has steps, and the step to work
/// on now: the first with a test that does not pass (its index, returned).
fn print_tests(lab: &Lab, run: &crate::grade::SuiteRun) -> Option<usize> {
    let line = |t: &crate::grade::TestRun| {
        println!("  {} {}", check_mark(t.passed()), t.name.replace('_', " "))
    };
    let steps = &lab.meta.steps;
    if steps.is_empty() {
        run.tests.iter().for_each(line);
        return None;
    }
    let mut current = None;
    for (i, step) in steps.iter().enumerate() {
        let mine: Vec<&crate::grade::TestRun> = run
            .tests
            .iter()
            .filter(|t| step.tests.contains(&t.name))
            .collect();
        let passed = mine.iter().filter(|t| t.passed()).count();
        println!(
            "{} {}: {passed}/{}",
            format!("step {} of {}", i + 1, steps.len()).bold(),
            step.name,
            mine.len()
        );
        mine.into_iter().for_each(line);
        if passed < step.tests.len() && current.is_none() {
            current = Some((i, &step.name));
        }
    }
    let rest: Vec<&crate::grade::TestRun> = run
        .tests
        .iter()
        .filter(|t| lab.meta.step_of(&t.name).is_none())
        .collect();
    if !rest.is_empty() {
        println!("{}", "guarding against regressions:".bold());
        rest.into_iter().for_each(line);
    }
    if let Some((i, name)) = current {
        println!("\n{} step {}: {name}", "now:".bold(), i + 1);
    }
    current.map(|(i, _)| i)
}

/// The failures worth reading now: those of the current step and of tests outside the
/// steps, each timeline once (a test that fails the same way as one above says so); the
/// failures of later steps are named, their timelines kept for when their step comes.
fn print_failures(lab: &Lab, run: &SuiteRun, current: Option<usize>) {
    let later = |name: &str| {
        current.is_some_and(|now| lab.meta.step_of(name).is_some_and(|step| step > now))
    };
    let mut shown: Vec<(Vec<&str>, &str)> = Vec::new();
    let mut waiting = Vec::new();
    for t in run.tests.iter().filter(|t| !t.passed()) {
        if later(&t.name) {
            waiting.push(t.name.replace('_', " "));
            continue;
        }
        println!("\n{} {}", "failed:".red().bold(), t.name.bold());
        if let Some(how) = &t.detail {
            println!("  the test did not count: {how}");
        }
        let lines = crate::text::clean_failure(&t.output);
        if let Some((_, first)) = shown.iter().find(|(seen, _)| *seen == lines) {
            println!("  the same failure as `{first}` above");
            continue;
        }
        for line in &lines {
            println!("{}", crate::text::for_terminal(line));
        }
        shown.push((lines, &t.name));
    }
    if let (Some(now), false) = (current, waiting.is_empty()) {
        println!(
            "\n{} {} (their failures show here once step {} passes)",
            "later steps fail too:".bold(),
            waiting.join(", "),
            now + 1
        );
    }
}

/// What `check` says of the misconception behind a failing run: the catalogue entries
/// nearest to it, each with what the run shares with its mutant, or plainly that none is
/// near. Nothing for a green run or a lab without a catalogue.
pub fn diagnosis_text(root: &Path, lab: &Lab, run: &SuiteRun) -> String {
    if run.tests.iter().all(|t| t.passed()) || lab.key.diagnoses.is_empty() {
        return String::new();
    }
    let label = "diagnosis:".cyan().bold();
    let found = crate::mutants::nearest(lab, run);
    if found.is_empty() {
        return format!(
            "\n{label} none. This failure is not near any mistake the workbook knows for lab {}: reason from the timeline above (which invariant broke first, and what your code believed at that step).\n",
            lab.meta.number
        );
    }
    let failing = run.tests.iter().filter(|t| !t.passed()).count();
    let mut out = String::new();
    for (i, near) in found.iter().enumerate() {
        let belief = near.diagnosis.misconception.trim_end_matches('.');
        let section = crate::mutants::section_path(root, &near.diagnosis.section);
        let why = if near.exact {
            "fails exactly like this".to_string()
        } else {
            format!(
                "also breaks \"{}\"{} and fails {} of your {failing} failing tests",
                near.invariant.unwrap_or_default(),
                if near.first { " first" } else { "" },
                near.shared_tests
            )
        };
        let lead = match (i, near.exact) {
            (0, true) => "a solution built on the belief",
            (0, false) => "nearest known mistake: a solution built on the belief",
            _ => "or one built on the belief",
        };
        out.push_str(&format!(
            "\n{label} {lead} \"{belief}\" {why}; the chapter says why it does not hold: {section} (`cargo labs read {}`)\n",
            lab.meta.number
        ));
    }
    out
}

/// `cargo labs check N`: the graded tests, failures with their timelines.
pub fn check(wb: &Workbook, lab: &Lab) -> Result<()> {
    if let Some(refused) = refusal(wb, lab) {
        return Err(refused);
    }
    println!("grading lab {} …", lab.label());
    let progress = wb.progress()?;
    let run = learner_run(wb, lab, None).inspect_err(|e| {
        let _ = progress.record_attempt(&lab.meta.id, "check", &now_utc(), 0, 0, &e.to_string());
    })?;
    let current = print_tests(lab, &run);
    let passed = run.passed();
    print_failures(lab, &run, current);
    let scan = scan_learner_files(&wb.root, lab);
    for note in run.notes.iter().chain(&scan.notes) {
        println!("{} {}", "note:".yellow().bold(), note.one_line());
    }
    // A diagnosis names a belief and points into the page after the run: before the
    // predictions are sealed it would answer items, and the page is not open yet.
    if super::read::sealed(wb, lab).unwrap_or(false) {
        print!("{}", diagnosis_text(&wb.root, lab, &run));
    } else if passed < run.tests.len() && !lab.key.diagnoses.is_empty() {
        println!(
            "\n{} the mistake these failures point to, and the chapter's section on it, are named once your predictions are sealed: `cargo labs run {n}` (or `cargo labs predict {n} --seal`).",
            "diagnosis:".cyan().bold(),
            n = lab.meta.number
        );
    }
    let _ = progress.record_attempt(
        &lab.meta.id,
        "check",
        &now_utc(),
        passed,
        run.tests.len(),
        "",
    );
    println!(
        "\n{} {passed}/{} graded tests pass",
        "result:".bold(),
        run.tests.len()
    );
    if passed == run.tests.len() && !run.tests.is_empty() {
        println!(
            "{}",
            "Lab complete. Read the chapter's acceptance criteria and move on.".green()
        );
        return Ok(());
    }
    Err(Error::lab(format!(
        "{} graded test(s) fail. Replay a schedule with the `replay:` line above, or ask for a hint: `cargo labs hint {}`.",
        run.tests.len() - passed,
        lab.meta.number
    )))
}

#[cfg(test)]
mod tests {
    use super::diagnosis_text;
    use crate::grade::{SuiteRun, TestOutcome, TestRun};
    use std::path::Path;

    fn failing(name: &str, invariant: &str) -> TestRun {
        TestRun {
            name: name.into(),
            outcome: TestOutcome::Failed,
            output: format!("invariant violated: {invariant} (lab 01, scenario relay, 1 fault)\n"),
            detail: None,
        }
    }

    #[test]
    fn a_diagnosis_says_how_near_it_is_or_that_none_is() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let lab = crate::meta::teachers_lab("outbox");
        let refused = (lab.key.diagnoses.iter())
            .find(|d| d.signature.fails == ["a_refused_intent_stays_unsent"])
            .expect("the catalogue's refusal entry");
        let inv = refused.signature.invariant.clone().unwrap();
        let run = |tests: Vec<TestRun>| SuiteRun {
            tests,
            ..SuiteRun::default()
        };
        let exact = diagnosis_text(
            &root,
            &lab,
            &run(vec![failing("a_refused_intent_stays_unsent", &inv)]),
        );
        let belief = refused.misconception.trim_end_matches('.');
        assert!(
            exact.contains(&format!("a solution built on the belief \"{belief}\" fails exactly like this; the chapter says why it does not hold: book/src/01-outbox-after-the-run.md#")),
            "{exact}"
        );
        // One test fewer than the catalogue's "lost response means delivered": near.
        let near = diagnosis_text(
            &root,
            &lab,
            &run(vec![
                failing(
                    "no_effect_is_lost_when_the_network_fails",
                    "no effect is lost",
                ),
                failing("a_refused_intent_stays_unsent", &inv),
            ]),
        );
        assert!(
            near.contains("nearest known mistake: a solution built on the belief"),
            "{near}"
        );
        assert!(
            near.contains(
                "also breaks \"no effect is lost\" first and fails 2 of your 2 failing tests"
            ),
            "{near}"
        );
        let none = diagnosis_text(
            &root,
            &lab,
            &run(vec![failing(
                "a_refused_intent_stays_unsent",
                "nothing known",
            )]),
        );
        assert!(
            none.contains("diagnosis: none. This failure is not near any mistake"),
            "{none}"
        );
        assert!(diagnosis_text(&root, &lab, &run(Vec::new())).is_empty());
    }
}
