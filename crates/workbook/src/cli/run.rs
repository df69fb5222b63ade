//! `cargo labs run N [--anyway] [--explain]`: seals the predictions, then runs the lab's
//! observe phase and shows each answer, predicted against observed.
//!
//! Nothing is built or shown before the seal exists: `--anyway` seals the predictions as
//! they are (even empty), so an answer given after the run counts as revised.

use super::{Args, Command, Section};
use crate::error::{Error, Result};
use crate::lab_binary::{check_mark, lab_binary};
use crate::meta::Lab;
use crate::predictions::{self, Answer, Predictions, Seal};
use crate::process::{self, Job};
use crate::progress::{Progress, now_utc};
use crate::workbook::{Workbook, read_predictions};
use crate::write_atomically;
use colored::Colorize;
use labkit::Report;
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::process::Command as Process;

pub const COMMAND: Command = Command {
    name: "run",
    section: Section::Learner,
    usage: "cargo labs run N [--anyway] [--explain]",
    about: "seal your predictions, then run the lab and compare: predicted against observed.\n--anyway seals them as they are, even unanswered; --explain explains every answer",
    run: |wb, mut args: Args| {
        let anyway = args.flag("--anyway");
        let explain = args.flag("--explain");
        let lab = wb.lab(&args.one()?)?;
        run(wb, lab, anyway, explain)
    },
};

/// Runs a lab's observe phase and returns its report.
pub fn observe(wb: &Workbook, lab: &Lab) -> Result<Report> {
    let exe = lab_binary(wb, lab)?;
    let mut command = Process::new(&exe);
    command.args(["observe", "--json"]);
    let job = Job::new(command, wb.settings.time_limit(lab.meta.time_limit_secs));
    let finished = process::run(job, &wb.root).map_err(|e| Error::io("cannot start the lab", e))?;
    if !finished.success() {
        return Err(Error::lab(format!(
            "lab {}'s run {}:\n{}",
            lab.meta.number,
            finished.ending.describe(),
            process::tail(&finished.stderr, 25)
        )));
    }
    serde_json::from_str(finished.stdout.trim()).map_err(|e| {
        Error::lab(format!(
            "lab {} printed something that is not its report ({e}):\n{}",
            lab.meta.number,
            process::tail(&finished.stdout, 10)
        ))
    })
}

/// Asks a yes/no question on the terminal; `false` when stdin is not one.
fn confirm(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    print!("{question} [y/N] ");
    let _ = std::io::stdout().flush();
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// Makes sure the predictions are sealed, and returns them as the file now has them.
/// A seal already kept in the progress store wins: a deleted seal line is put back.
pub fn seal(lab: &Lab, progress: &Progress) -> Result<Predictions> {
    let path = lab.predictions_path();
    let text = std::fs::read_to_string(&path).map_err(|e| Error::reading(&path, e))?;
    let parsed = predictions::parse(lab, &text)?;
    if let Some(first) = progress.first_seal(&lab.meta.id) {
        if parsed.seal.as_ref() != Some(&first) {
            let restored = predictions::with_seal(&predictions::without_seal(&text), &first);
            write_atomically(&path, &restored).map_err(|e| Error::writing(&path, e))?;
            eprintln!(
                "{} predictions.txt did not carry the seal of your first run ({}); it was put back. Answers changed since then count as revised.",
                "note:".yellow().bold(),
                first.at
            );
            return predictions::parse(lab, &restored);
        }
        return Ok(parsed);
    }
    if let Some(seal) = &parsed.seal {
        if seal.intact(lab) {
            progress.record_seal(&lab.meta.id, seal)?;
        }
        return Ok(parsed);
    }
    let seal = Seal::new(lab, &parsed.answers, &now_utc());
    let sealed_text = predictions::with_seal(&text, &seal);
    write_atomically(&path, &sealed_text).map_err(|e| Error::writing(&path, e))?;
    progress.record_seal(&lab.meta.id, &seal)?;
    println!(
        "{} your predictions ({} of {} answered) at {}",
        "sealed".cyan().bold(),
        parsed.answered(),
        lab.prediction_count(),
        seal.at
    );
    predictions::parse(lab, &sealed_text)
}

/// One row of the predicted-versus-observed table.
pub struct Compared {
    /// The item's id, `q01`, …
    pub id: String,
    /// The question, as the learner read it.
    pub label: String,
    /// What the item shows, named after the seal: the check's claim (none for a
    /// multiple-choice question, whose options say it).
    pub claim: Option<String>,
    pub predicted: Option<String>,
    pub observed: String,
    pub correct: bool,
    pub revised: bool,
    pub explain: String,
}

/// Compares predictions with what the run observed, in the lab's order. A run's answer
/// belongs to the item that asks the same question, word for word.
pub fn compare(lab: &Lab, predictions: &Predictions, report: &Report) -> Vec<Compared> {
    let revised = predictions.revised(lab);
    let ids = lab.item_ids();
    let mut rows = Vec::new();
    for ((check, key), id) in lab.meta.checks.iter().zip(&lab.key.checks).zip(&ids) {
        let observed = report
            .checks
            .iter()
            .find(|c| c.ask == check.ask)
            .map(|c| c.yes);
        let predicted = predictions.answers.get(id).map(Answer::show);
        let observed_text = match observed {
            Some(true) => "yes".to_string(),
            Some(false) => "no".to_string(),
            None => "not reported".to_string(),
        };
        rows.push(Compared {
            id: id.clone(),
            label: check.ask.clone(),
            claim: Some(check.claim.clone()).filter(|c| !c.is_empty()),
            correct: predicted.as_deref() == Some(observed_text.as_str()),
            predicted,
            observed: observed_text,
            revised: revised.contains(id),
            explain: key.explain.clone(),
        });
    }
    let asked = lab.meta.checks.len();
    for ((q, key), id) in lab
        .meta
        .questions
        .iter()
        .zip(&lab.key.questions)
        .zip(&ids[asked..])
    {
        let observed = report.questions.iter().find(|a| a.prompt == q.prompt);
        let predicted = predictions.answers.get(id).map(Answer::show);
        let observed_text = observed.map_or("not reported".to_string(), |a| a.answer.clone());
        let explain = key.explain.clone();
        rows.push(Compared {
            id: id.clone(),
            label: q.prompt.clone(),
            claim: None,
            correct: predicted.as_deref() == Some(observed_text.as_str()),
            predicted,
            observed: observed_text,
            revised: revised.contains(id),
            explain: match observed {
                Some(a) => format!("{explain} (observed: {})", a.evidence),
                None => explain,
            },
        });
    }
    rows
}

pub fn run(wb: &Workbook, lab: &Lab, anyway: bool, explain_all: bool) -> Result<()> {
    let n = &lab.meta.number;
    let path = lab.predictions_path();
    let existing = read_predictions(lab)?;
    if existing.is_none() {
        write_atomically(&path, &predictions::render(lab, &BTreeMap::new(), None))
            .map_err(|e| Error::writing(&path, e))?;
    }
    let sealed_already = existing.as_ref().is_some_and(|p| p.seal.is_some());
    let answered = existing.as_ref().map_or(0, |p| p.answered());
    let open = lab.prediction_count() - answered;
    let progress = wb.progress()?;
    let first_seal = progress.first_seal(&lab.meta.id);
    if !sealed_already && first_seal.is_none() && !anyway {
        if answered == 0 {
            return Err(Error::input(format!(
                "you have not predicted anything for lab {n} yet. Predict first: `cargo labs predict {n}` (or edit {}), then run. `cargo labs run {n} --anyway` seals empty predictions and runs.",
                wb.shown(&path)
            )));
        }
        if open > 0
            && !confirm(&format!(
                "{open} of {} predictions are unanswered. The run seals them as they are, and an answer given later earns nothing. Seal and run?",
                lab.prediction_count()
            ))
        {
            let none = BTreeMap::new();
            let answers = existing.as_ref().map_or(&none, |p| &p.answers);
            let unanswered = predictions::unanswered(lab, answers);
            return Err(Error::input(format!(
                "{open} prediction(s) of lab {n} are unanswered ({}). Answer them (`cargo labs predict {n}`), or seal them as they are with `cargo labs run {n} --anyway`.",
                super::predict::shown_ids(&unanswered)
            )));
        }
    }
    let predictions = seal(lab, &progress)?;
    println!("running lab {} …", lab.label());
    let report = observe(wb, lab)?;
    let rows = compare(lab, &predictions, &report);
    print_table(&rows);
    let correct = rows.iter().filter(|r| r.correct).count();
    let pct = 100.0 * correct as f64 / rows.len().max(1) as f64;
    let revised = rows.iter().filter(|r| r.revised).count();
    println!(
        "\n{} {correct} of {} predictions right ({pct:.0} %){}",
        "score:".bold(),
        rows.len(),
        if revised > 0 {
            format!(" — {revised} revised after the seal (marked r), which earn nothing")
                .yellow()
                .to_string()
        } else {
            String::new()
        }
    );
    print_summary(&report);
    let shown: Vec<&Compared> = rows
        .iter()
        .filter(|r| explain_all || !r.correct || r.revised)
        .collect();
    if !shown.is_empty() {
        let title = if explain_all {
            "Every answer, explained:"
        } else {
            "Where the run surprised you (and what you left open):"
        };
        println!("\n{}", title.bold());
        // Only now, after the seal, is each check named by what it shows.
        for row in shown {
            println!(
                "  {} {} {} — {}",
                if row.correct {
                    "•".green()
                } else {
                    "•".red()
                },
                row.id,
                row.label,
                row.observed,
            );
            match &row.claim {
                Some(claim) => println!("    {}: {}", capitalised(claim).bold(), row.explain),
                None => println!("    {}", row.explain),
            }
        }
        if !explain_all {
            println!("  (`cargo labs run {n} --explain` explains every answer)");
        }
    }
    let _ = progress.record_attempt(&lab.meta.id, "run", &now_utc(), correct, rows.len(), "");
    println!(
        "\nNext: build the safe protocol in labs/{}/{} and grade it with `cargo labs check {n}`.",
        lab.slug(),
        lab.meta.learner_files.join(", ")
    );
    Ok(())
}

/// `claim` with its first letter in upper case, as the title of its explanation.
fn capitalised(claim: &str) -> String {
    let mut chars = claim.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// What the lab put in its summary for a person: the SQLite version, a crash matrix or a
/// measured table.
fn print_summary(report: &Report) {
    if let Some(sqlite) = &report.sqlite {
        println!("SQLite {sqlite}");
    }
    for (key, title) in [("crash_matrix", "Crash matrix"), ("table", "Measured")] {
        if let Some(lines) = report.summary.get(key).and_then(|v| v.as_array()) {
            println!("\n{}", format!("{title}:").bold());
            for line in lines.iter().filter_map(|l| l.as_str()) {
                println!("  {line}");
            }
        }
    }
}

fn print_table(rows: &[Compared]) {
    let width = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(10)
        .min(60);
    println!(
        "\n{}",
        format!(
            "  {:<3}  {:<width$}  {:<9} {:<9}",
            "id", "question", "predicted", "observed"
        )
        .bold()
    );
    for row in rows {
        let mut label: String = row.label.chars().take(width).collect();
        if row.label.chars().count() > width {
            label.pop();
            label.push('…');
        }
        let predicted = row.predicted.clone().unwrap_or("?".into());
        let predicted = if row.predicted.is_none() {
            predicted.yellow()
        } else {
            predicted.normal()
        };
        println!(
            "  {:<3}  {label:<width$}  {predicted:<9} {:<9} {}{}",
            row.id,
            row.observed,
            check_mark(row.correct),
            if row.revised { " r" } else { "" }
        );
    }
}
