//! `cargo labs grade-class DIR…`: grades a folder of submissions from this copy of the
//! workbook, trusting nothing in a submission.
//!
//! From each submission it takes only each lab's learner files and `predictions.txt`
//! (regular files, within the size caps, not reached through a symbolic link), lays them
//! over a scratch tree exported from this copy (so no solution is there to be included),
//! and grades them with this copy's settings, suites, harnesses, keys and time limits.
//! It never writes into a submission. The compiled dependencies are shared from one
//! submission to the next, but every lab crate is rebuilt from the submission's own
//! files. Where bubblewrap works, builds and tests run in its sandbox.

use crate::commands::Workbook;
use crate::commands::{LabEvidencePart, grade_tree, print_grade};
use crate::error::{Error, Result};
use crate::grade::{Grade, Integrity, RunEnv};
use crate::meta::Lab;
use crate::predictions;
use crate::sandbox::{Policy, Sandbox};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The options of `grade-class`.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    /// Only these labs (numbers or ids); all when empty.
    pub labs: Vec<String>,
    /// Where the scratch tree and the shared build live (default `target/grade-class`).
    pub work: Option<PathBuf>,
    /// Print one submission's GitHub Classroom result on stdout.
    pub classroom: bool,
    pub base64: bool,
    /// Grade without the sandbox even where bubblewrap works.
    pub no_sandbox: bool,
}

/// One row of the class table: a learner and a lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub learner: String,
    pub lab: String,
    pub graded_points: f64,
    pub graded_max: f64,
    pub prediction_points: f64,
    pub prediction_max: f64,
    pub tests_passed: usize,
    pub tests_expected: usize,
    pub integrity: Vec<String>,
    pub sandboxed: bool,
}

/// The whole class: one row per learner and lab, and each learner's full grade.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassGrade {
    pub version: u32,
    pub sandboxed: bool,
    pub rows: Vec<Row>,
    pub learners: Vec<Grade>,
    /// How long each submission took to grade, in seconds, in the order graded (the
    /// first one pays for building the workbook's dependencies).
    pub seconds: Vec<f64>,
}

/// What was taken from one submission for one lab.
struct Intake {
    /// (learner file, its text), for the files that could be taken.
    files: Vec<(String, String)>,
    predictions: std::result::Result<Option<predictions::Predictions>, String>,
    problems: Vec<String>,
    /// What the integrity scan found in the files, for a reviewer.
    review: Vec<String>,
}

/// Reads `rel` under `submission` as a learner file: every step of the path a real
/// folder, the file a regular file of at most `cap` bytes, its text UTF-8. `Ok(None)` when
/// it does not exist; `Err` says why it was not taken.
fn take(submission: &Path, rel: &str, cap: u64) -> std::result::Result<Option<String>, String> {
    let mut path = submission.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{rel} cannot be read: {e}")),
        };
        if meta.file_type().is_symlink() {
            return Err(format!(
                "{rel} is reached through a symbolic link; it was not taken"
            ));
        }
        let last = i + 1 == parts.len();
        if last && !meta.is_file() {
            return Err(format!("{rel} is not a regular file; it was not taken"));
        }
        if !last && !meta.is_dir() {
            return Ok(None);
        }
        if last && meta.len() > cap {
            return Err(format!(
                "{rel} has {} bytes, more than the {cap} a learner file may have; it was not taken",
                meta.len()
            ));
        }
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("{rel} cannot be read: {e}"))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{rel} is not UTF-8 text; it was not taken"))
}

fn intake(wb: &Workbook, lab: &Lab, submission: &Path) -> Intake {
    let limits = &wb.settings.limits;
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for file in &lab.meta.learner_files {
        let rel = lab.learner_path(file);
        match take(submission, &rel, limits.max_learner_file_bytes) {
            Ok(Some(text)) => files.push((file.clone(), text)),
            Ok(None) => problems.push(format!("{rel} is missing: the starter was graded")),
            Err(problem) => problems.push(format!("{problem}: the starter was graded")),
        }
    }
    let mut review = Vec::new();
    let mut refused = false;
    for (file, text) in &files {
        let scan = crate::integrity::scan(file, text);
        refused |= scan.refused;
        review.extend(scan.notes);
    }
    if refused {
        // What a file brings in was not taken from the submission: grade the starter.
        files.clear();
        problems.push("a learner file brings in another file: the starter was graded".into());
    }
    // The rest of the lab is the teacher's and is never read; that the learner changed it
    // is still worth a reviewer's question.
    let changed =
        crate::commands::changed_published_files(submission, lab, limits.max_learner_file_bytes);
    if !changed.is_empty() {
        review.push(format!(
            "the submission changed files the grader does not take (it graded with its own): {}",
            changed.join(", ")
        ));
    }
    let rel = format!("labs/{}/predictions.txt", lab.slug());
    let predictions = match take(submission, &rel, limits.max_predictions_bytes) {
        Ok(Some(text)) => predictions::parse(lab, &text)
            .map(Some)
            .map_err(|e| e.to_string()),
        Ok(None) => Ok(None),
        Err(problem) => Err(problem),
    };
    Intake {
        files,
        predictions,
        problems,
        review,
    }
}

/// Makes `tree` hold exactly the files of `pristine` (and its build products): a file
/// whose content differs is copied, an extra one removed, an unchanged one left alone so
/// that cargo does not rebuild what did not change.
fn sync(pristine: &Path, tree: &Path) -> Result<()> {
    fn files(dir: &Path, base: &Path, out: &mut BTreeMap<PathBuf, ()>) -> Result<()> {
        for entry in std::fs::read_dir(dir).map_err(|e| Error::reading(dir, e))? {
            let path = entry.map_err(|e| Error::reading(dir, e))?.path();
            let rel = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
            if rel == Path::new("target") || rel == Path::new("Cargo.lock") {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).map_err(|e| Error::reading(&path, e))?;
            if meta.is_dir() {
                files(&path, base, out)?;
            } else {
                out.insert(rel, ());
            }
        }
        Ok(())
    }
    let mut wanted = BTreeMap::new();
    files(pristine, pristine, &mut wanted)?;
    let mut present = BTreeMap::new();
    if tree.is_dir() {
        files(tree, tree, &mut present)?;
    }
    for rel in present.keys().filter(|rel| !wanted.contains_key(*rel)) {
        let path = tree.join(rel);
        std::fs::remove_file(&path).map_err(|e| Error::writing(&path, e))?;
    }
    for rel in wanted.keys() {
        let (from, to) = (pristine.join(rel), tree.join(rel));
        let new = std::fs::read(&from).map_err(|e| Error::reading(&from, e))?;
        if std::fs::read(&to).ok().as_deref() != Some(new.as_slice()) {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::writing(parent, e))?;
            }
            std::fs::write(&to, &new).map_err(|e| Error::writing(&to, e))?;
        }
    }
    let lock = pristine.join("Cargo.lock");
    if !tree.join("Cargo.lock").exists() && lock.exists() {
        std::fs::copy(&lock, tree.join("Cargo.lock")).map_err(|e| Error::writing(tree, e))?;
    }
    Ok(())
}

/// Forgets the build of every lab package in `target`, so each submission's labs are
/// compiled from its own files whatever the timestamps say.
fn forget_lab_builds(target: &Path, labs: &[&Lab]) {
    let fingerprints = target.join("debug/.fingerprint");
    let Ok(entries) = std::fs::read_dir(&fingerprints) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if labs
            .iter()
            .any(|lab| name.starts_with(&format!("{}-", lab.meta.package)))
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn learner_name(dir: &Path) -> String {
    dir.canonicalize()
        .unwrap_or_else(|_| dir.to_path_buf())
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// `cargo labs grade-class`: grades, writes the files asked for, prints the summary.
pub fn grade_class(wb: &Workbook, dirs: &[PathBuf], options: &Options) -> Result<()> {
    let class = grade_submissions(wb, dirs, options)?;
    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&class)
            .map_err(|e| Error::io("cannot write the JSON", e.into()))?;
        std::fs::write(path, text + "\n").map_err(|e| Error::writing(path, e))?;
    }
    if let Some(path) = &options.csv {
        std::fs::write(path, csv(&class.rows)).map_err(|e| Error::writing(path, e))?;
    }
    if options.classroom {
        let format = if options.base64 {
            "classroom-base64"
        } else {
            "classroom"
        };
        return print_grade(&class.learners[0], format);
    }
    for grade in &class.learners {
        println!(
            "{:<24} {:>7} / {}",
            grade.learner.as_deref().unwrap_or("?"),
            grade.points,
            grade.max_points
        );
    }
    Ok(())
}

/// Grades every submission in `dirs` and returns the class's grades.
pub fn grade_submissions(wb: &Workbook, dirs: &[PathBuf], options: &Options) -> Result<ClassGrade> {
    for dir in dirs {
        if !dir.is_dir() {
            return Err(Error::input(format!("{} is not a folder", dir.display())));
        }
    }
    let labs: Vec<&Lab> = if options.labs.is_empty() {
        wb.labs.labs.iter().collect()
    } else {
        options
            .labs
            .iter()
            .map(|w| wb.lab(w))
            .collect::<Result<_>>()?
    };
    if options.classroom && dirs.len() != 1 {
        return Err(Error::input(
            "--classroom prints one submission's result: give one folder",
        ));
    }
    let work = match &options.work {
        Some(work) => work.clone(),
        None => wb.root.join("target/grade-class"),
    };
    std::fs::create_dir_all(&work).map_err(|e| Error::writing(&work, e))?;
    let work = work.canonicalize().map_err(|e| Error::reading(&work, e))?;
    let (pristine, tree, target) = (
        work.join("pristine"),
        work.join("tree"),
        work.join("target"),
    );
    if pristine.exists() {
        std::fs::remove_dir_all(&pristine).map_err(|e| Error::writing(&pristine, e))?;
    }
    crate::export::export(wb, &pristine, None)?;
    for dir in [&tree, &target] {
        std::fs::create_dir_all(dir).map_err(|e| Error::writing(dir, e))?;
    }
    let sandbox = if options.no_sandbox {
        None
    } else {
        Sandbox::detect()
    };
    if sandbox.is_none() {
        eprintln!(
            "warning: no sandbox (bubblewrap is not installed, does not work here, or --no-sandbox): submissions build and run with your privileges"
        );
    }
    let root = wb.root.canonicalize().unwrap_or_else(|_| wb.root.clone());
    let submissions: Vec<PathBuf> = dirs
        .iter()
        .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()))
        .collect();
    let mut hidden = vec![root.clone()];
    hidden.extend(submissions.iter().cloned());
    let build_policy = Policy {
        hidden: hidden.clone(),
        readable: Vec::new(),
        writable: vec![tree.clone(), target.clone()],
        proc_fs: true,
        dir: tree.clone(),
    };
    let run_policy = Policy {
        hidden,
        readable: vec![tree.clone(), target.clone()],
        writable: Vec::new(),
        proc_fs: false,
        dir: tree.clone(),
    };
    let build_wrap = |c: Command| match &sandbox {
        Some(s) => s.wrap(&c, &build_policy),
        None => c,
    };
    let run_wrap = |c: Command| match &sandbox {
        Some(s) => s.wrap(&c, &run_policy),
        None => c,
    };
    let mut class = ClassGrade {
        version: crate::grade::FORMAT_VERSION,
        sandboxed: sandbox.is_some(),
        rows: Vec::new(),
        learners: Vec::new(),
        seconds: Vec::new(),
    };
    // Every seal line, by lab number, with the learners whose predictions carry it.
    let mut seals: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (i, submission) in submissions.iter().enumerate() {
        let learner = learner_name(submission);
        eprintln!("grading {learner} ({}/{}) …", i + 1, submissions.len());
        let started = std::time::Instant::now();
        sync(&pristine, &tree)?;
        let mut intakes = BTreeMap::new();
        for lab in &labs {
            let taken = intake(wb, lab, submission);
            // A seal of a few answers is common ground, not a sign of copying: a class
            // that seals on cue seals its empty files in the same second.
            if let Ok(Some(predictions::Predictions {
                seal: Some(seal), ..
            })) = &taken.predictions
                && seal.answered() >= MIN_ANSWERS_TO_COMPARE
            {
                let key = (lab.meta.number.clone(), seal.line());
                seals.entry(key).or_default().push(learner.clone());
            }
            for (file, text) in &taken.files {
                let path = tree.join(lab.learner_path(file));
                std::fs::write(&path, text).map_err(|e| Error::writing(&path, e))?;
            }
            intakes.insert(lab.meta.id.clone(), taken);
        }
        forget_lab_builds(&target, &labs);
        let env = RunEnv {
            target_dir: Some(target.clone()),
            // The sandbox has no network, and a grade must not depend on one: every crate
            // comes from the local registry cache the teacher's own build filled.
            build_env: vec![
                ("CARGO_NET_OFFLINE".into(), "true".into()),
                ("CARGO_TERM_COLOR".into(), "never".into()),
            ],
            build_wrap: Some(&build_wrap),
            run_wrap: Some(&run_wrap),
            test_env: vec![
                ("TMPDIR".into(), "/tmp".into()),
                ("CARGO_TERM_COLOR".into(), "never".into()),
            ],
            cancel: None,
            // In the sandbox the build folder is read-only while tests run.
            verify_binaries: sandbox.is_none(),
        };
        let sandboxed = sandbox.is_some();
        let grades = grade_tree(&tree, &labs, &wb.settings, &env, |lab| {
            let taken = intakes.remove(&lab.meta.id).unwrap_or(Intake {
                files: Vec::new(),
                predictions: Ok(None),
                problems: Vec::new(),
                review: Vec::new(),
            });
            let mut review = taken.problems.clone();
            review.extend(taken.review);
            (
                LabEvidencePart {
                    predictions: taken.predictions,
                    first_seal: None,
                    notes: taken.problems,
                },
                Integrity {
                    notes: review,
                    sandboxed,
                    // A refused file was never laid over the tree: the starter ran.
                    refused: false,
                },
            )
        });
        let grade = crate::grade::total(grades, Some(learner.clone()));
        let seconds = started.elapsed().as_secs_f64();
        eprintln!(
            "  {learner}: {} / {} points in {seconds:.1} s",
            grade.points, grade.max_points
        );
        class.learners.push(grade);
        class.seconds.push(seconds);
    }
    note_shared_seals(&mut class, &seals);
    class.rows = rows(&class.learners, class.sandboxed);
    Ok(class)
}

/// One row per learner and lab, from their grades.
fn rows(learners: &[Grade], sandboxed: bool) -> Vec<Row> {
    let mut rows = Vec::new();
    for grade in learners {
        for lab in &grade.labs {
            rows.push(Row {
                learner: grade.learner.clone().unwrap_or_default(),
                lab: lab.lab.clone(),
                graded_points: lab.points.graded,
                graded_max: lab.points.max_graded,
                prediction_points: lab.points.predictions,
                prediction_max: lab.points.max_predictions,
                tests_passed: lab.tests.passed,
                tests_expected: lab.tests.expected,
                integrity: lab.integrity.notes.clone(),
                sandboxed,
            });
        }
    }
    rows
}

/// How many answered items a seal needs before two equal seals are worth a note.
const MIN_ANSWERS_TO_COMPARE: usize = 5;

/// A seal line names the second it was written and hashes the answers: two learners who
/// carry the same one did not seal apart, and each of their grades says with whom.
fn note_shared_seals(class: &mut ClassGrade, seals: &BTreeMap<(String, String), Vec<String>>) {
    for ((lab, _), learners) in seals.iter().filter(|(_, who)| who.len() > 1) {
        for learner in learners {
            let others: Vec<&str> = (learners.iter())
                .filter(|other| *other != learner)
                .map(String::as_str)
                .collect();
            let note = format!(
                "predictions.txt carries the same seal line as {}'s: the same answers \
                 sealed in the same second. A copied file does that (the grade cannot say \
                 which is the original); so, rarely, do two learners who seal on cue with \
                 the same answers. Worth a look",
                others.join("'s and ")
            );
            for grade in class.learners.iter_mut() {
                if grade.learner.as_deref() != Some(learner.as_str()) {
                    continue;
                }
                for graded in grade.labs.iter_mut().filter(|g| g.lab == *lab) {
                    graded.integrity.notes.push(note.clone());
                }
            }
        }
    }
}

/// The rows as CSV (RFC 4180: fields with a comma, a quote or a line break are quoted).
pub fn csv(rows: &[Row]) -> String {
    fn field(text: &str) -> String {
        if text.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_string()
        }
    }
    let mut out = String::from(
        "learner,lab,graded_points,graded_max,prediction_points,prediction_max,tests_passed,tests_expected,integrity_notes,sandboxed\n",
    );
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            field(&r.learner),
            field(&r.lab),
            r.graded_points,
            r.graded_max,
            r.prediction_points,
            r.prediction_max,
            r.tests_passed,
            r.tests_expected,
            field(&r.integrity.join("; ")),
            r.sandboxed
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let row = Row {
            learner: "ann, b".into(),
            lab: "01".into(),
            graded_points: 20.0,
            graded_max: 20.0,
            prediction_points: 5.5,
            prediction_max: 10.0,
            tests_passed: 7,
            tests_expected: 7,
            integrity: vec!["relay.rs reads \"/proc\"".into()],
            sandboxed: true,
        };
        let text = csv(&[row]);
        assert!(
            text.ends_with(
                "\"ann, b\",01,20,20,5.5,10,7,7,\"relay.rs reads \"\"/proc\"\"\",true\n"
            )
        );
    }

    #[test]
    fn a_symlinked_or_oversized_file_is_not_taken() {
        let dir = std::env::temp_dir().join(format!("boundary-take-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("labs/01-x/src")).unwrap();
        std::fs::write(dir.join("labs/01-x/src/a.rs"), "fn a() {}").unwrap();
        assert_eq!(
            take(&dir, "labs/01-x/src/a.rs", 100).unwrap().as_deref(),
            Some("fn a() {}")
        );
        assert!(
            take(&dir, "labs/01-x/src/a.rs", 3)
                .unwrap_err()
                .contains("more than")
        );
        assert_eq!(take(&dir, "labs/01-x/src/missing.rs", 100), Ok(None));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                dir.join("labs/01-x/src/a.rs"),
                dir.join("labs/01-x/src/b.rs"),
            )
            .unwrap();
            std::os::unix::fs::symlink(dir.join("labs/01-x"), dir.join("labs/02-y")).unwrap();
            assert!(
                take(&dir, "labs/01-x/src/b.rs", 100)
                    .unwrap_err()
                    .contains("symbolic link")
            );
            assert!(
                take(&dir, "labs/02-y/src/a.rs", 100)
                    .unwrap_err()
                    .contains("symbolic link")
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
