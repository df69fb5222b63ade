//! The learner's commands. Each one reads the lab's metadata, runs what it needs as a
//! cargo subprocess with the lab's time limit, and prints for a person.

use crate::meta::{self, Lab};
use crate::predictions::{self, Answer, Predictions};
use crate::progress::{Progress, now_utc};
use crate::runner::{self, Finished, TestResult, cargo, parse_libtest, run_limited, tail};
use crate::{Failure, backup, state_dir, write_atomically};
use colored::Colorize;
use labkit::Report;
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub type Outcome = Result<(), Failure>;

/// The workbook as the CLI sees it: its root, its labs, and the learner's progress.
pub struct Workbook {
    pub root: PathBuf,
    pub labs: Vec<Lab>,
    state: PathBuf,
}

impl Workbook {
    pub fn load(root: PathBuf) -> Result<Workbook, Failure> {
        let labs = meta::load_labs(&root)?;
        let state = state_dir(&root);
        Ok(Workbook { root, labs, state })
    }

    pub fn lab(&self, wanted: &str) -> Result<&Lab, Failure> {
        Ok(meta::find(&self.labs, wanted)?)
    }

    pub fn progress(&self) -> Result<Progress, Failure> {
        let (progress, note) = Progress::open(&self.state)?;
        if let Some(note) = note {
            let restored = self.rebuild(&progress);
            // A fresh clone has no store and nothing to restore: nothing worth saying.
            if restored > 0 || !note.starts_with("there was no progress store") {
                eprintln!(
                    "{} {note} ({restored} prediction seal(s) restored)",
                    "note:".yellow().bold()
                );
            }
        }
        Ok(progress)
    }

    /// Restores what the learner's files prove: the seals written into predictions.txt.
    /// Returns how many seals it restored.
    fn rebuild(&self, progress: &Progress) -> usize {
        let mut restored = 0;
        for lab in &self.labs {
            if let Ok(Some(p)) = read_predictions(lab)
                && let Some(seal) = &p.seal
                && progress
                    .record_seal(&lab.meta.id, &seal.at, &seal.hash)
                    .is_ok()
            {
                restored += 1;
            }
        }
        restored
    }
}

/// Reads and parses a lab's predictions; `None` when the file does not exist.
pub fn read_predictions(lab: &Lab) -> Result<Option<Predictions>, Failure> {
    let path = lab.predictions_path();
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(predictions::parse(lab, &text)?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Failure::input(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

fn check_mark(ok: bool) -> colored::ColoredString {
    if ok {
        "✓".green().bold()
    } else {
        "✗".red().bold()
    }
}

// ---------------------------------------------------------------------------- status

/// `cargo labs`: progress per lab and the next step.
pub fn status(wb: &Workbook) -> Outcome {
    let progress = wb.progress()?;
    println!("{}", "Boundary Labs — where you are".bold());
    println!();
    let mut next: Option<String> = None;
    for lab in &wb.labs {
        let predictions = read_predictions(lab).unwrap_or(None);
        let answered = predictions.as_ref().map_or(0, |p| p.answered());
        let total = lab.prediction_count();
        let sealed = predictions.as_ref().and_then(|p| p.seal.clone()).is_some();
        let run = progress.last(&lab.meta.id, "run");
        let graded = progress.last(&lab.meta.id, "check");
        let run_text = match &run {
            Some(r) => format!("run {}/{} right", r.passed, r.total),
            None => "not run".to_string(),
        };
        let graded_text = match &graded {
            Some(g) => format!("graded {}/{}", g.passed, g.total),
            None => "not graded".to_string(),
        };
        let done = graded
            .as_ref()
            .is_some_and(|g| g.passed == g.total && g.total > 0);
        println!(
            "  {} {:<48} predictions {answered:>2}/{total:<2}  {:<16} {}",
            if done { "✓".green() } else { "·".normal() },
            lab.label(),
            run_text,
            graded_text
        );
        if next.is_none() && !done {
            let n = &lab.meta.number;
            next = Some(if answered == 0 {
                format!(
                    "predict what lab {n} will show: `cargo labs predict {n}` (read {} first)",
                    lab.meta.chapter
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
    println!();
    match next {
        Some(step) => println!("{} {step}", "Next:".bold()),
        None => println!("{}", "Every lab is graded green. Well done.".green().bold()),
    }
    Ok(())
}

/// `cargo labs list`.
pub fn list(wb: &Workbook) -> Outcome {
    for lab in &wb.labs {
        println!(
            "{}  {:<14} {:<45} {}",
            lab.meta.number.bold(),
            lab.meta.id,
            lab.meta.title,
            lab.meta.chapter
        );
    }
    Ok(())
}

// --------------------------------------------------------------------------- predict

/// `cargo labs predict N [--set id=answer]…`: records predictions, interactively or from
/// arguments. Never loses what the file held: a changed file is backed up first.
pub fn predict(_wb: &Workbook, lab: &Lab, sets: &[String]) -> Outcome {
    let path = lab.predictions_path();
    let existing = read_predictions(lab)?;
    let mut answers: BTreeMap<String, Answer> = existing
        .as_ref()
        .map(|p| p.answers.clone())
        .unwrap_or_default();
    let seal = existing.as_ref().and_then(|p| p.seal.clone());
    if seal.is_some() {
        eprintln!(
            "{} these predictions were sealed at the first run; a grade will note any change as a revision.",
            "note:".yellow().bold()
        );
    }
    // Writes the file; the first write keeps a backup of what the learner had written.
    let mut first_write = true;
    let mut save = |answers: &BTreeMap<String, Answer>| -> Outcome {
        let text = predictions::render(lab, answers, seal.as_ref());
        if std::mem::take(&mut first_write) && path.exists() {
            let old = std::fs::read_to_string(&path).unwrap_or_default();
            // An untouched template (written by `run`) holds nothing of the learner's.
            let untouched = old == predictions::render(lab, &BTreeMap::new(), None);
            if old != text && !untouched {
                let saved = backup(&path).map_err(|e| {
                    Failure::input(format!("cannot back up {}: {e}", path.display()))
                })?;
                println!("your previous file is kept as {}", saved.display());
            }
        }
        write_atomically(&path, &text)
            .map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))
    };
    if sets.is_empty() {
        // Every answer is saved as soon as it is given: quitting half-way loses nothing.
        ask(lab, &mut answers, &mut save)?;
    } else {
        for set in sets {
            let (id, value) = set
                .split_once('=')
                .ok_or_else(|| Failure::input(format!("`--set {set}`: write `--set id=answer`")))?;
            let line = format!("{} = {}", id.trim(), value.trim());
            let parsed = predictions::parse_from(lab, &line, &format!("`--set {set}`"))?;
            if parsed.answers.is_empty() {
                answers.remove(id.trim());
            }
            answers.extend(parsed.answers);
        }
    }
    save(&answers)?;
    println!(
        "{} {}/{} predictions in {}",
        "saved".green().bold(),
        answers.len(),
        lab.prediction_count(),
        path.display()
    );
    println!("Next: `cargo labs run {}`", lab.meta.number);
    Ok(())
}

fn ask(
    lab: &Lab,
    answers: &mut BTreeMap<String, Answer>,
    save: &mut dyn FnMut(&BTreeMap<String, Answer>) -> Outcome,
) -> Outcome {
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut lines = stdin.lock().lines();
    let mut read = |prompt: &str| -> Option<String> {
        if interactive {
            print!("{prompt}");
            let _ = std::io::stdout().flush();
        }
        lines.next().and_then(|l| l.ok())
    };
    println!(
        "{} Enter keeps the current answer; `?` clears it.\n",
        format!("Lab {}: predict before you run.", lab.label()).bold()
    );
    let total = lab.meta.checks.len();
    for (i, check) in lab.meta.checks.iter().enumerate() {
        let id = check.id();
        let current = answers.get(&id).map(Answer::show).unwrap_or("?".into());
        loop {
            let prompt = format!(
                "[{}/{total}] {}\n  holds or fails? [{current}] ",
                i + 1,
                check.claim
            );
            let Some(input) = read(&prompt) else {
                return Ok(());
            };
            let input = input.trim().to_ascii_lowercase();
            match input.as_str() {
                "" => break,
                "?" => {
                    answers.remove(&id);
                    break;
                }
                "h" | "holds" | "y" | "yes" => {
                    answers.insert(id.clone(), Answer::Holds(true));
                    break;
                }
                "f" | "fails" | "n" | "no" => {
                    answers.insert(id.clone(), Answer::Holds(false));
                    break;
                }
                _ => println!("  answer `holds` (h) or `fails` (f)"),
            }
        }
        save(answers)?;
    }
    for q in &lab.meta.questions {
        let current = answers.get(&q.id).map(Answer::show).unwrap_or("?".into());
        let mut prompt = format!("\n{}\n", q.prompt.bold());
        for (letter, text) in &q.options {
            prompt.push_str(&format!("  {letter}) {text}\n"));
        }
        prompt.push_str(&format!("  your answer [{current}] "));
        loop {
            let Some(input) = read(&prompt) else {
                return Ok(());
            };
            let input = input.trim().to_ascii_lowercase();
            if input.is_empty() {
                break;
            }
            if input == "?" {
                answers.remove(&q.id);
                break;
            }
            if q.options.contains_key(&input) {
                answers.insert(q.id.clone(), Answer::Option(input));
                break;
            }
            let letters: Vec<&str> = q.options.keys().map(String::as_str).collect();
            println!("  answer one of {}", letters.join(", "));
        }
        save(answers)?;
    }
    Ok(())
}

// ------------------------------------------------------------------------------- run

/// Runs a lab's observe phase and returns its report.
pub fn observe(wb: &Workbook, lab: &Lab) -> Result<Report, Failure> {
    let mut command = cargo();
    command.args([
        "run",
        "-q",
        "-p",
        &lab.meta.package,
        "--",
        "observe",
        "--json",
    ]);
    let finished = run_lab(wb, lab, command)?;
    if !finished.success() {
        return Err(explain_failed_run(lab, &finished, "run"));
    }
    serde_json::from_str(finished.stdout.trim()).map_err(|e| {
        Failure::lab(format!(
            "lab {} printed something that is not its report ({e}):\n{}",
            lab.meta.number,
            tail(&finished.stdout, 10)
        ))
    })
}

fn run_lab(wb: &Workbook, lab: &Lab, command: std::process::Command) -> Result<Finished, Failure> {
    run_limited(
        command,
        &wb.root,
        Duration::from_secs(lab.meta.time_limit_secs),
    )
    .map_err(|e| Failure::input(format!("cannot start cargo: {e}")))
}

/// Turns a failed subprocess into a message that names the lab and the reason.
pub fn explain_failed_run(lab: &Lab, finished: &Finished, what: &str) -> Failure {
    let n = &lab.meta.number;
    if finished.timed_out {
        Failure::lab(format!(
            "lab {n} did not finish its {what} within {} s and was stopped: a hang (an endless loop or retry?). The other labs are not affected.",
            lab.meta.time_limit_secs
        ))
    } else if finished.compile_error() {
        Failure::lab(format!(
            "lab {n} does not compile, so it cannot {what}. The compiler said:\n{}",
            tail(&finished.stderr, 40)
        ))
    } else {
        Failure::lab(format!(
            "lab {n} stopped with an error during its {what} (exit code {:?}):\n{}",
            finished.code,
            tail(&finished.stderr, 25)
        ))
    }
}

/// One row of the predicted-versus-observed table.
pub struct Compared {
    pub label: String,
    pub predicted: Option<String>,
    pub observed: String,
    pub correct: bool,
    pub explain: String,
}

/// Compares predictions with what the run observed, in the lab's order.
pub fn compare(lab: &Lab, predictions: &Predictions, report: &Report) -> Vec<Compared> {
    let mut rows = Vec::new();
    for check in &lab.meta.checks {
        let id = check.id();
        let observed = report.checks.iter().find(|c| c.id == id).map(|c| c.holds);
        let predicted = predictions.answers.get(&id).map(Answer::show);
        let observed_text = match observed {
            Some(true) => "holds".to_string(),
            Some(false) => "fails".to_string(),
            None => "not reported".to_string(),
        };
        rows.push(Compared {
            label: check.claim.clone(),
            correct: predicted.as_deref() == Some(observed_text.as_str()),
            predicted,
            observed: observed_text,
            explain: check.explain.clone(),
        });
    }
    for q in &lab.meta.questions {
        let observed = report.questions.iter().find(|a| a.id == q.id);
        let predicted = predictions.answers.get(&q.id).map(Answer::show);
        let observed_text = observed.map_or("not reported".to_string(), |a| a.answer.clone());
        rows.push(Compared {
            label: format!("{} — {}", q.id, q.prompt),
            correct: predicted.as_deref() == Some(observed_text.as_str()),
            predicted,
            observed: observed_text,
            explain: match observed {
                Some(a) => format!("{} (observed: {})", q.explain, a.evidence),
                None => q.explain.clone(),
            },
        });
    }
    rows
}

/// Seals the predictions file at the first run: appends the seal line and records it.
fn seal_if_needed(lab: &Lab, progress: &Progress) -> Result<Predictions, Failure> {
    let path = lab.predictions_path();
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Failure::input(format!("cannot read {}: {e}", path.display())))?;
    let parsed = predictions::parse(lab, &text)?;
    if let Some(seal) = &parsed.seal {
        let _ = progress.record_seal(&lab.meta.id, &seal.at, &seal.hash);
        return Ok(parsed);
    }
    let at = now_utc();
    let sealed_text = predictions::sealed(&text, &at);
    write_atomically(&path, &sealed_text)
        .map_err(|e| Failure::input(format!("cannot seal {}: {e}", path.display())))?;
    let parsed = predictions::parse(lab, &sealed_text)?;
    if let Some(seal) = &parsed.seal {
        progress
            .record_seal(&lab.meta.id, &seal.at, &seal.hash)
            .map_err(|e| Failure::input(format!("cannot record the seal: {e}")))?;
    }
    println!("{} your predictions at {at}", "sealed".cyan().bold());
    Ok(parsed)
}

/// `cargo labs run N`: predicted against observed, in colour, with a score.
pub fn run(wb: &Workbook, lab: &Lab, anyway: bool) -> Outcome {
    let n = &lab.meta.number;
    let path = lab.predictions_path();
    let existing = read_predictions(lab)?;
    let answered = existing.as_ref().map_or(0, |p| p.answered());
    if existing.is_none() {
        write_atomically(&path, &predictions::render(lab, &BTreeMap::new(), None))
            .map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))?;
    }
    if answered == 0 && !anyway {
        return Err(Failure::input(format!(
            "you have not predicted anything for lab {n} yet. Predict first: `cargo labs predict {n}` (or edit {}), then run. `cargo labs run {n} --anyway` runs without predictions.",
            path.display()
        )));
    }
    let progress = wb.progress()?;
    let predictions = if answered > 0 {
        seal_if_needed(lab, &progress)?
    } else {
        Predictions::default()
    };
    println!("running lab {} …", lab.label());
    let report = observe(wb, lab)?;
    let rows = compare(lab, &predictions, &report);
    print_table(&rows);
    let correct = rows.iter().filter(|r| r.correct).count();
    let pct = 100.0 * correct as f64 / rows.len().max(1) as f64;
    println!(
        "\n{} {correct} of {} predictions right ({pct:.0} %){}",
        "score:".bold(),
        rows.len(),
        if predictions.revised_after_seal() {
            " — revised after the seal".yellow().to_string()
        } else {
            String::new()
        }
    );
    if let Some(sqlite) = &report.sqlite {
        println!("SQLite {sqlite}");
    }
    // A lab may print a crash matrix or a measured table: lines of text in its summary.
    for (key, title) in [("crash_matrix", "Crash matrix"), ("table", "Measured")] {
        if let Some(lines) = report.summary.get(key).and_then(|v| v.as_array()) {
            println!("\n{}", format!("{title}:").bold());
            for line in lines.iter().filter_map(|l| l.as_str()) {
                println!("  {line}");
            }
        }
    }
    let missed: Vec<&Compared> = rows
        .iter()
        .filter(|r| !r.correct && r.predicted.is_some())
        .collect();
    if !missed.is_empty() {
        println!("\n{}", "Where the run surprised you:".bold());
        for row in missed {
            println!("  {} {}\n    {}", "•".red(), row.label, row.explain);
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

fn print_table(rows: &[Compared]) {
    let width = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(10)
        .min(64);
    println!(
        "\n{}",
        format!(
            "  {:>3}  {:<width$}  {:<9} {:<9}",
            "#", "claim or question", "predicted", "observed"
        )
        .bold()
    );
    for (i, row) in rows.iter().enumerate() {
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
            "  {:>3}  {label:<width$}  {predicted:<9} {:<9} {}",
            i + 1,
            row.observed,
            check_mark(row.correct)
        );
    }
}

// ----------------------------------------------------------------------------- check

/// Runs a lab's graded suite (the learner's crate) and parses the results.
pub fn graded(
    wb: &Workbook,
    lab: &Lab,
    package: &str,
) -> Result<(Finished, Vec<TestResult>), Failure> {
    let mut command = cargo();
    command.args([
        "test", "-p", package, "--test", "graded", "--", "--color", "never",
    ]);
    // The timeline and the explanation say what went wrong; a stack trace says nothing
    // more to a learner, even where RUST_BACKTRACE is set.
    command.env("RUST_BACKTRACE", "0");
    let finished = run_lab(wb, lab, command)?;
    let mut results = parse_libtest(&finished.stdout);
    // libtest prints in completion order; sort so every report lists tests the same way.
    results.sort_by(|a, b| a.name.cmp(&b.name));
    if finished.timed_out || (results.is_empty() && !finished.success()) {
        return Err(explain_failed_run(lab, &finished, "graded tests"));
    }
    Ok((finished, results))
}

/// `cargo labs check N`: the graded tests, failures with their timelines and diffs.
pub fn check(wb: &Workbook, lab: &Lab) -> Outcome {
    println!("grading lab {} …", lab.label());
    let progress = wb.progress()?;
    let result = graded(wb, lab, &lab.meta.package);
    let (_, results) = match result {
        Ok(r) => r,
        Err(failure) => {
            let _ =
                progress.record_attempt(&lab.meta.id, "check", &now_utc(), 0, 0, &failure.message);
            return Err(failure);
        }
    };
    for r in &results {
        println!("  {} {}", check_mark(r.passed), r.name.replace('_', " "));
    }
    let passed = results.iter().filter(|r| r.passed).count();
    for r in results.iter().filter(|r| !r.passed) {
        println!("\n{} {}", "failed:".red().bold(), r.name.bold());
        let colour = colored::control::SHOULD_COLORIZE.should_colorize();
        for line in runner::clean_failure(&r.output) {
            if colour {
                println!("{line}");
            } else {
                println!("{}", runner::strip_ansi(line));
            }
        }
    }
    let _ = progress.record_attempt(&lab.meta.id, "check", &now_utc(), passed, results.len(), "");
    println!(
        "\n{} {passed}/{} graded tests pass",
        "result:".bold(),
        results.len()
    );
    if passed == results.len() {
        println!(
            "{}",
            "Lab complete. Read the chapter's acceptance criteria and move on.".green()
        );
        Ok(())
    } else {
        let n = &lab.meta.number;
        Err(Failure::lab(format!(
            "{} graded test(s) fail. Replay a schedule with the `replay:` line above, or ask for a hint: `cargo labs hint {n}`.",
            results.len() - passed
        )))
    }
}

// ------------------------------------------------------------------------------ hint

/// `cargo labs hint N`: the next hint, one at a time.
pub fn hint(wb: &Workbook, lab: &Lab) -> Outcome {
    let progress = wb.progress()?;
    let shown = progress.hints_shown(&lab.meta.id);
    let total = lab.meta.hints.len();
    let index = shown.min(total.saturating_sub(1));
    for (i, text) in lab.meta.hints.iter().enumerate().take(index) {
        println!(
            "{} {}",
            format!("hint {}/{total}:", i + 1).dimmed(),
            text.dimmed()
        );
    }
    match lab.meta.hints.get(index) {
        Some(text) => println!("{} {text}", format!("hint {}/{total}:", index + 1).bold()),
        None => println!("lab {} has no hints", lab.meta.number),
    }
    if shown < total {
        progress
            .set_hints_shown(&lab.meta.id, shown + 1)
            .map_err(|e| Failure::input(format!("cannot record the hint: {e}")))?;
    }
    if index + 1 == total {
        println!("(that was the last hint; the chapter and the failing timeline say the rest)");
    }
    Ok(())
}

// ----------------------------------------------------------------------------- reset

/// Reads a published file's pristine text from git by its blob id.
fn published_text(root: &Path, blob: &str) -> Result<String, String> {
    let out = std::process::Command::new("git")
        .args(["cat-file", "blob", blob])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git does not have the published version (blob {blob}): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// `cargo labs reset N`: restores the starter's learner files, keeping a backup of yours.
pub fn reset(wb: &Workbook, lab: &Lab) -> Outcome {
    let mut restored = Vec::new();
    // Read every pristine file first, so a missing one changes nothing at all.
    let mut plan = Vec::new();
    for file in &lab.meta.learner_files {
        let path = lab.dir.join(file);
        let key = path
            .strip_prefix(&wb.root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let blob =
            lab.meta.published.get(&key).ok_or_else(|| {
                Failure::input(format!("lab.toml has no published version of {key}"))
            })?;
        let text = published_text(&wb.root, blob).map_err(|e| {
            Failure::input(format!("cannot reset {key}: {e}. Nothing was changed."))
        })?;
        plan.push((path, text));
    }
    for (path, text) in plan {
        if path.exists() {
            let current = std::fs::read_to_string(&path).unwrap_or_default();
            if current == text {
                continue;
            }
            let saved = backup(&path)
                .map_err(|e| Failure::input(format!("cannot back up {}: {e}", path.display())))?;
            println!("your version is kept as {}", saved.display());
        }
        write_atomically(&path, &text)
            .map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))?;
        restored.push(path.display().to_string());
    }
    if restored.is_empty() {
        println!("lab {} already holds the starter files", lab.meta.number);
    } else {
        println!("{} {}", "restored".green().bold(), restored.join(", "));
    }
    Ok(())
}

// ---------------------------------------------------------------------- replay, book

/// `cargo labs replay N SCENARIO TOKEN`: a schedule's timeline, from the learner's code.
pub fn replay(wb: &Workbook, lab: &Lab, scenario: &str, token: &str) -> Outcome {
    let mut command = cargo();
    command.args([
        "run",
        "-q",
        "-p",
        &lab.meta.package,
        "--",
        "replay",
        scenario,
        token,
    ]);
    let finished = run_lab(wb, lab, command)?;
    print!("{}", finished.stdout);
    if finished.compile_error() || finished.timed_out {
        return Err(explain_failed_run(lab, &finished, "replay"));
    }
    if finished.code == Some(2) {
        // The lab binary's usage errors: an unknown scenario or a malformed token.
        return Err(Failure::input(finished.stderr.trim().to_string()));
    }
    eprint!("{}", finished.stderr);
    if finished.success() {
        Ok(())
    } else {
        Err(Failure::lab(
            "the replayed schedule violates an invariant (see above)".to_string(),
        ))
    }
}

/// `cargo labs figures [--check]`: writes (or checks) every lab's figures for the book.
pub fn figures(wb: &Workbook, check: bool) -> Outcome {
    let dir = wb.root.join("book/src/figures");
    let mut stale = Vec::new();
    for lab in &wb.labs {
        let mut command = cargo();
        command.args(["run", "-q", "-p", &lab.meta.package, "--", "figures"]);
        command.arg(&dir);
        if check {
            command.arg("--check");
        }
        let finished = run_lab(wb, lab, command)?;
        if finished.compile_error() || finished.timed_out {
            return Err(explain_failed_run(lab, &finished, "figures"));
        }
        if !finished.success() {
            stale.push(finished.stderr.trim().to_string());
        }
    }
    let generated = crate::meta::predictions_pages(&wb.root, &wb.labs);
    for (path, text) in &generated {
        let current = std::fs::read_to_string(path).unwrap_or_default();
        if current != *text {
            if check {
                stale.push(format!("{} is out of date", path.display()));
            } else {
                std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
                    .and_then(|_| std::fs::write(path, text))
                    .map_err(|e| Failure::input(format!("cannot write {}: {e}", path.display())))?;
            }
        }
    }
    if stale.is_empty() {
        println!("figures and generated pages are current");
        Ok(())
    } else {
        Err(Failure::lab(format!(
            "{}\nregenerate with `cargo labs figures`",
            stale.join("\n")
        )))
    }
}

/// `cargo labs book [--open | --serve]`: builds the book with the mdBook CLI into
/// book/build (offline, search included); `--open` opens it in the browser. `--serve`
/// only builds here: the CLI is installed without mdBook's server, so the binary then
/// serves book/build itself (src/serve.rs).
pub fn book(wb: &Workbook, mode: Option<&str>) -> Outcome {
    let args: Vec<&str> = match mode {
        None | Some("--serve") => vec!["build"],
        Some("--open") => vec!["build", "--open"],
        Some(other) => {
            return Err(Failure::input(format!(
                "`cargo labs book {other}`: use --open or --serve"
            )));
        }
    };
    let status = std::process::Command::new("mdbook")
        .args(&args)
        .current_dir(&wb.root)
        .status();
    match status {
        Ok(s) if s.success() => {
            println!("the book is in {}", wb.root.join("book/build/index.html").display());
            Ok(())
        }
        Ok(s) => Err(Failure::lab(format!("mdbook {} failed ({s})", args.join(" ")))),
        Err(_) => Err(Failure::input(
            "the mdBook CLI is not installed. Install it once (about a minute and a half, offline afterwards):\n  cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
                .to_string(),
        )),
    }
}
