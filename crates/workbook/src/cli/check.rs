//! `cargo labs check N`: one lab's graded tests, the way a grader runs them — the
//! expected tests from the suite's source, each in its own process, a test that did not
//! report a failure — with each failure's timeline, and the misconception its failure
//! matches in the catalogue.

use super::{Command, Section};
use crate::error::{Error, Result};
use crate::grade::run::learner_run;
use crate::grade::scan_learner_files;
use crate::lab_binary::check_mark;
use crate::meta::Lab;
use crate::progress::now_utc;
use crate::workbook::Workbook;
use colored::Colorize;

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
    for t in &run.tests {
        println!("  {} {}", check_mark(t.passed()), t.name.replace('_', " "));
    }
    let passed = run.passed();
    for t in run.tests.iter().filter(|t| !t.passed()) {
        println!("\n{} {}", "failed:".red().bold(), t.name.bold());
        if let Some(how) = &t.detail {
            println!("  the test did not count: {how}");
        }
        for line in crate::text::clean_failure(&t.output) {
            println!("{}", crate::text::for_terminal(line));
        }
    }
    let scan = scan_learner_files(&wb.root, lab);
    for note in run.notes.iter().chain(&scan.notes) {
        println!("{} {}", "note:".yellow().bold(), note.one_line());
    }
    // Only a failure whose signature a catalogued wrong solution proves gets a name.
    for diagnosis in crate::mutants::diagnose(lab, &run) {
        println!(
            "\n{} a solution built on the belief \"{}\" fails exactly like this; the chapter says why it does not hold: {}",
            "diagnosis:".cyan().bold(),
            diagnosis.misconception.trim_end_matches('.'),
            crate::mutants::section_path(&wb.root, &diagnosis.section)
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
