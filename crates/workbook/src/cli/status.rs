//! `cargo labs` (where you are).

use super::{Command, Section};
use crate::error::Result;
use crate::workbook::{Workbook, read_predictions};
use colored::Colorize;

pub const COMMAND: Command = Command {
    name: "status",
    section: Section::Learner,
    usage: "cargo labs",
    about: "where you are: progress per lab and the next step",
    run: |wb, args| {
        args.none()?;
        status(wb)
    },
};

/// `cargo labs`: progress per lab and the next step.
pub fn status(wb: &Workbook) -> Result<()> {
    let progress = wb.progress()?;
    println!("{}", "Boundary Labs — where you are".bold());
    println!();
    let mut next: Option<String> = None;
    let mut problems = Vec::new();
    for lab in &wb.labs.labs {
        let mut unreadable = false;
        let predictions = match read_predictions(lab) {
            Ok(p) => p,
            Err(e) => {
                problems.push(e.to_string());
                unreadable = true;
                None
            }
        };
        let answered = predictions.as_ref().map_or(0, |p| p.answered());
        let total = lab.prediction_count();
        let sealed = predictions.as_ref().is_some_and(|p| p.seal.is_some());
        let run = progress.last(&lab.meta.id, "run");
        let graded = progress.last(&lab.meta.id, "check");
        let run_text = match &run {
            Some(r) => format!("run {}/{} right", r.passed, r.total),
            None => "not run".to_string(),
        };
        let graded_text = match &graded {
            // No test ran: the lab did not build, or its run could not start.
            Some(g) if g.total == 0 => "graded: no build".to_string(),
            Some(g) => format!("graded {}/{}", g.passed, g.total),
            None => "not graded".to_string(),
        };
        let answered_text = if unreadable {
            format!("{:>5}", "✗")
        } else {
            format!("{answered:>2}/{total:<2}")
        };
        let done = graded
            .as_ref()
            .is_some_and(|g| g.passed == g.total && g.total > 0);
        println!(
            "  {} {:<48} predictions {answered_text}{} {:<16} {}",
            if done { "✓".green() } else { "·".normal() },
            lab.label(),
            if sealed { "s" } else { " " },
            run_text,
            graded_text
        );
        if next.is_none() && !done {
            let n = &lab.meta.number;
            next = Some(if unreadable {
                format!(
                    "fix {} (the problem below names the line), then go on",
                    lab.predictions_path().display()
                )
            } else if answered == 0 && !sealed {
                format!(
                    "read chapter {} up to its Predict section (`cargo labs read {n}`, or in the book: `cargo labs book --open`), then predict what lab {n} will show: `cargo labs predict {n}`",
                    lab.meta.number.trim_start_matches('0'),
                )
            } else if !sealed || run.is_none() {
                format!("run lab {n} and compare: `cargo labs run {n}`")
            } else {
                format!(
                    "build the safe protocol in labs/{}/{} and grade it: `cargo labs check {n}` (stuck? `cargo labs hint {n}`)",
                    lab.slug(),
                    lab.meta.learner_files.join(", ")
                )
            });
        }
    }
    for broken in &wb.labs.broken {
        println!("  {} {:<48} cannot be used", "✗".red(), broken.slug());
        problems.push(broken.problem.clone());
    }
    if !problems.is_empty() {
        println!();
        for problem in &problems {
            println!("{} {problem}", "problem:".red().bold());
        }
    }
    println!(
        "\n  (s: predictions sealed, by a run or `predict N --seal`; ✗: predictions.txt cannot be read)"
    );
    println!();
    match next {
        Some(step) => println!("{} {step}", "Next:".bold()),
        None => println!("{}", "Every lab is graded green. Well done.".green().bold()),
    }
    Ok(())
}
