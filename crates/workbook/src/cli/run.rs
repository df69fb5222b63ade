//! `cargo labs run N [--anyway] [--explain]`: seals the predictions, then runs the lab's
//! observe phase and shows each answer, predicted against observed.
//!
//! Nothing is built or shown before the seal exists: `--anyway` seals the predictions as
//! they are (even empty), so an answer given after the run counts as revised.

use super::{Args, Command, Section};
use crate::error::{Error, Result};
use crate::lab_binary::{check_mark, lab_binary};
use crate::meta::{Check, CheckKey, Lab, Question};
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
    /// What the run showed, named after the seal: a check's claim stated as a finding
    /// when it holds and labelled a myth when it does not; a multiple-choice question's
    /// observed option.
    pub title: String,
    pub predicted: Option<String>,
    pub observed: String,
    pub correct: bool,
    pub revised: bool,
    /// The answer the seal holds, when the learner changed it afterwards.
    pub sealed: Option<String>,
    pub explain: String,
}

/// The title of a check's explanation: what the run showed. A claim that holds is stated
/// as the finding; one that does not is named as the belief the run refuted, so that a
/// learner who believed it never reads it as the lesson, and one who did not never reads
/// it as a verdict on their answer. `observed_yes` is the run's answer to the question
/// (the key decides when the run did not report it).
pub fn check_title(check: &Check, key: &CheckKey, observed_yes: Option<bool>) -> String {
    let holds = observed_yes.map_or(key.holds, |yes| check.holds_for(yes));
    let claim = key.claim.trim().trim_end_matches('.');
    if holds {
        format!("Shown by the run: {}.", capitalised(claim))
    } else {
        format!("Refuted by the run: the belief that {claim}.")
    }
}

/// The title of a multiple-choice question's explanation: the option the run observed.
pub fn question_title(question: &Question, observed: Option<&str>) -> String {
    match observed.and_then(|letter| question.options.get(letter).map(|text| (letter, text))) {
        Some((letter, text)) => format!("Observed: ({letter}) {text}"),
        None => "Not observed: the run reported no answer to this question.".to_string(),
    }
}

/// Compares predictions with what the run observed, in the lab's order. A run's answer
/// belongs to the item that asks the same question, word for word.
pub fn compare(lab: &Lab, predictions: &Predictions, report: &Report) -> Vec<Compared> {
    let revised = predictions.revised(lab);
    let sealed = predictions.sealed_answers(lab);
    let sealed_as = |id: &String| match revised.contains(id) {
        true => Some(sealed.get(id).map_or("?".to_string(), Answer::show)),
        false => None,
    };
    let ids = lab.item_ids();
    let mut rows = Vec::new();
    for ((check, key), id) in lab.meta.checks.iter().zip(&lab.key.checks).zip(&ids) {
        let observed = (report.checks.iter())
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
            title: check_title(check, key, observed),
            correct: predicted.as_deref() == Some(observed_text.as_str()),
            predicted,
            observed: observed_text,
            revised: revised.contains(id),
            sealed: sealed_as(id),
            explain: key.explain.clone(),
        });
    }
    let asked = lab.meta.checks.len();
    let questions = lab.meta.questions.iter().zip(&lab.key.questions);
    for ((q, key), id) in questions.zip(&ids[asked..]) {
        let observed = report.questions.iter().find(|a| a.prompt == q.prompt);
        let predicted = predictions.answers.get(id).map(Answer::show);
        let observed_text = observed.map_or("not reported".to_string(), |a| a.answer.clone());
        let explain = key.explain.clone();
        rows.push(Compared {
            id: id.clone(),
            label: q.prompt.clone(),
            title: question_title(q, observed.map(|a| a.answer.as_str())),
            correct: predicted.as_deref() == Some(observed_text.as_str()),
            predicted,
            observed: observed_text,
            revised: revised.contains(id),
            sealed: sealed_as(id),
            explain: match observed {
                Some(a) => format!("{explain} (observed: {})", a.evidence),
                None => explain,
            },
        });
    }
    rows
}

/// Refuses to run a lab nothing was predicted for, and asks before sealing a partial
/// set of predictions (at a terminal; elsewhere it refuses and says how to go on).
fn ready_to_seal(wb: &Workbook, lab: &Lab, anyway: bool) -> Result<()> {
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
    let first_seal = wb.progress()?.first_seal(&lab.meta.id);
    if sealed_already || first_seal.is_some() || anyway {
        return Ok(());
    }
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
    Ok(())
}

pub fn run(wb: &Workbook, lab: &Lab, anyway: bool, explain_all: bool) -> Result<()> {
    ready_to_seal(wb, lab, anyway)?;
    let progress = wb.progress()?;
    let predictions = seal(lab, &progress)?;
    println!("running lab {} …", lab.label());
    let report = observe(wb, lab)?;
    let rows = compare(lab, &predictions, &report);
    let width = crate::text::terminal_width();
    print!("\n{}", table(&rows, width));
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
    print!(
        "{}",
        explanations(&rows, explain_all, &lab.meta.number, width)
    );
    let _ = progress.record_attempt(&lab.meta.id, "run", &now_utc(), correct, rows.len(), "");
    let graded_green = progress
        .last(&lab.meta.id, "check")
        .is_some_and(|g| g.total > 0 && g.passed == g.total);
    println!("\n{}", next_step(wb, lab, graded_green));
    Ok(())
}

/// What to do after a run: the build phase, or, on a lab already graded green, the next
/// lab.
pub fn next_step(wb: &Workbook, lab: &Lab, graded_green: bool) -> String {
    let n = &lab.meta.number;
    if !graded_green {
        return format!(
            "Next: read the rest of the chapter (`cargo labs read {n}`), then build the safe protocol in labs/{}/{} and grade it with `cargo labs check {n}`.",
            lab.slug(),
            lab.meta.learner_files.join(", ")
        );
    }
    let labs = &wb.labs.labs;
    let after = labs
        .iter()
        .position(|l| l.meta.id == lab.meta.id)
        .map(|i| i + 1);
    match after.and_then(|i| labs.get(i)) {
        Some(next) => format!(
            "Next: lab {n} is complete (its graded tests pass). On to lab {m}: `cargo labs read {m}`.",
            m = next.meta.number
        ),
        None => format!(
            "Next: lab {n} is complete (its graded tests pass), and it is the last lab: `cargo labs grade`."
        ),
    }
}

/// `text` with its first letter in upper case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
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

/// The predicted-versus-observed table, every question whole: wrapped in its column to
/// `width`, its answers beside its first line.
pub fn table(rows: &[Compared], width: usize) -> String {
    // "  q01  " + question + "  " + predicted (9) + " " + observed (12) + " ✓ r"
    let column = width.saturating_sub(7 + 2 + 9 + 1 + 12 + 4).max(24);
    let mut out = format!(
        "{}\n",
        format!(
            "  {:<3}  {:<column$}  {:<9} {:<12}",
            "id", "question", "predicted", "observed"
        )
        .bold()
    );
    for row in rows {
        let lines = crate::text::wrap(&row.label, column);
        let predicted = row.predicted.clone().unwrap_or("?".into());
        let predicted = if row.predicted.is_none() {
            predicted.yellow()
        } else {
            predicted.normal()
        };
        out.push_str(&format!(
            "  {:<3}  {:<column$}  {predicted:<9} {:<12} {}{}\n",
            row.id,
            lines[0],
            row.observed,
            check_mark(row.correct),
            if row.revised { " r" } else { "" }
        ));
        for line in &lines[1..] {
            out.push_str(&format!("       {line}\n"));
        }
    }
    out
}

/// The explanations after the table: of every item with `explain_all`, else of those
/// predicted wrong, left open or revised; each titled by what the run showed. Always
/// ends by pointing to `--explain` unless it was given.
pub fn explanations(rows: &[Compared], explain_all: bool, n: &str, width: usize) -> String {
    let shown: Vec<&Compared> = (rows.iter())
        .filter(|r| explain_all || !r.correct || r.revised)
        .collect();
    let mut out = String::new();
    if !shown.is_empty() {
        let title = if explain_all {
            "Every answer, explained:"
        } else {
            "Where the run surprised you (and what you left open):"
        };
        out.push_str(&format!("\n{}\n", title.bold()));
    }
    for row in shown {
        let mark = if row.correct {
            "•".green()
        } else {
            "•".red()
        };
        let predicted = row.predicted.as_deref().unwrap_or("?");
        out.push_str(&format!("\n  {mark} {} ", row.id));
        out.push_str(crate::text::indented(&row.label, 6, width).trim_start());
        let revised = match &row.sealed {
            Some(sealed) => format!(" (changed after the seal, which holds {sealed})"),
            None => String::new(),
        };
        out.push_str(&format!(
            "      predicted {predicted}{revised}, observed {}\n",
            row.observed
        ));
        out.push_str(&format!(
            "{}",
            crate::text::indented(&row.title, 4, width).bold()
        ));
        out.push_str(&crate::text::indented(&row.explain, 4, width));
    }
    if !explain_all {
        out.push_str(&format!(
            "\n(`cargo labs run {n} --explain` explains every answer, the right ones too)\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::load_labs;
    use std::path::Path;

    fn root() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn row(id: &str, label: &str, correct: bool) -> Compared {
        Compared {
            id: id.into(),
            label: label.into(),
            title: "Shown by the run: it holds.".into(),
            predicted: Some("yes".into()),
            observed: if correct { "yes" } else { "no" }.into(),
            correct,
            revised: false,
            sealed: None,
            explain: "Because the run showed it.".into(),
        }
    }

    #[test]
    fn an_answer_changed_after_the_seal_shows_what_the_seal_holds() {
        let mut changed = row("q03", "Does a row appear twice?", true);
        (changed.revised, changed.sealed) = (true, Some("no".into()));
        let text = explanations(&[changed], false, "08", 90);
        assert!(
            text.contains("predicted yes (changed after the seal, which holds no), observed yes"),
            "{text}"
        );
    }

    /// Every lab's every item: a claim that does not hold is never a title stated as
    /// fact, and a multiple-choice title is the option the run observed.
    #[test]
    fn no_explanation_of_a_myth_is_titled_as_a_fact() {
        let labs = load_labs(&root()).unwrap().labs;
        assert_eq!(labs.len(), 10);
        let mut myths = 0;
        for lab in &labs {
            for (check, key) in lab.meta.checks.iter().zip(&lab.key.checks) {
                let observed = Some(check.answer_for(key.holds));
                let title = check_title(check, key, observed);
                assert_eq!(title, check_title(check, key, None), "{title}");
                let claim = capitalised(key.claim.trim().trim_end_matches('.'));
                if key.holds {
                    assert_eq!(title, format!("Shown by the run: {claim}."));
                } else {
                    myths += 1;
                    assert!(
                        title.starts_with("Refuted by the run: the belief that "),
                        "{title}"
                    );
                    assert!(
                        !title.starts_with(&claim),
                        "lab {}: {title}",
                        lab.meta.number
                    );
                }
            }
            for (q, key) in lab.meta.questions.iter().zip(&lab.key.questions) {
                let title = question_title(q, Some(&key.answer));
                assert_eq!(
                    title,
                    format!("Observed: ({}) {}", key.answer, q.options[&key.answer])
                );
            }
        }
        assert!(myths > 20, "the labs' myths: {myths}");
    }

    #[test]
    fn the_table_shows_every_question_whole_wrapped_to_the_width() {
        let same_start = "When the in-flight commit lands before the database's next commit, and the next process reads the row";
        let rows = [
            row("q01", &format!("{same_start}, how many charges?"), true),
            row("q02", &format!("{same_start}, how many rows?"), false),
        ];
        let shown = table(&rows, 80);
        for row in &rows {
            let words: Vec<&str> = row.label.split_whitespace().collect();
            let flat = shown.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(flat.contains(&words.join(" ")) || words.iter().all(|w| flat.contains(w)));
        }
        assert!(shown.contains("how many charges?") && shown.contains("how many rows?"));
        for line in shown.lines() {
            assert!(
                crate::text::strip_ansi(line).chars().count() <= 80,
                "{line}"
            );
        }
        assert!(shown.lines().count() > 3, "the questions wrap: {shown}");
    }

    #[test]
    fn explanations_are_titled_and_always_point_to_explain() {
        let right = [row("q01", "Does it hold?", true)];
        let quiet = explanations(&right, false, "02", 80);
        assert_eq!(
            quiet,
            "\n(`cargo labs run 02 --explain` explains every answer, the right ones too)\n"
        );
        let all = explanations(&right, true, "02", 80);
        assert!(all.contains("Every answer, explained:"), "{all}");
        assert!(
            all.contains("q01 Does it hold?\n      predicted yes, observed yes\n"),
            "{all}"
        );
        assert!(
            all.contains("    Shown by the run: it holds.\n    Because the run showed it.\n"),
            "{all}"
        );
        assert!(!all.contains("--explain"), "{all}");
        let wrong = explanations(&[row("q02", "Does it?", false)], false, "02", 80);
        assert!(wrong.contains("Where the run surprised you"), "{wrong}");
        assert!(wrong.contains("--explain"), "{wrong}");
    }

    #[test]
    fn a_finished_lab_is_not_sent_back_to_its_build_phase() {
        let wb = Workbook::load(root()).unwrap();
        let first = &wb.labs.labs[0];
        let building = next_step(&wb, first, false);
        assert!(building.contains("build the safe protocol") && building.contains("check 01"));
        let done = next_step(&wb, first, true);
        assert!(!done.contains("build the safe protocol"), "{done}");
        assert!(done.contains("lab 01 is complete") && done.contains("`cargo labs read 02`"));
        let last = next_step(&wb, wb.labs.labs.last().unwrap(), true);
        assert!(
            last.contains("it is the last lab: `cargo labs grade`"),
            "{last}"
        );
    }
}
