//! Grades: the typed model every format is written from, and the grading of one workbook
//! tree (the learner's own, or a scratch tree in `grade-class`).
//!
//! The JSON format is this module's structs, serialized (`version` 2); the teacher's
//! chapter of the book documents each field. The GitHub Classroom format
//! (`{version: 1, status, max_score, tests: [...]}`) is written from the same structs.

use crate::compile::{self, Artifact, BuildEnv, BuildProblem, Built};
use crate::meta::{Lab, graded_test_names};
use crate::predictions::{Predictions, Seal};
use crate::settings::{PredictionMode, Settings};
use crate::suite::{self, SuiteEnv, SuiteRun};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;

/// The version of the JSON grade format.
pub const FORMAT_VERSION: u32 = 2;

/// A whole grade: every lab of one learner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grade {
    pub version: u32,
    pub workbook: String,
    /// The learner (the submission folder's name), in a class grade.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learner: Option<String>,
    pub labs: Vec<LabGrade>,
    pub points: f64,
    pub max_points: f64,
}

/// How far a lab got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LabStatus {
    /// Its graded tests ran (some may have failed).
    Ran,
    /// It does not compile.
    CompileError,
    /// Its graded run did not finish within its time limit.
    Timeout,
    /// Its lab.toml could not be read.
    BrokenMetadata,
    /// Anything else that stopped it (a build that could not start, …).
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabGrade {
    /// The lab's number, e.g. "01".
    pub lab: String,
    pub id: String,
    pub title: String,
    pub status: LabStatus,
    pub tests: Tests,
    pub predictions: PredictionGrade,
    pub points: LabPoints,
    pub integrity: Integrity,
    /// Why points were lost, in words.
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tests {
    pub passed: usize,
    /// The tests the teacher's suite names: every one of them is expected to report.
    pub expected: usize,
    pub results: Vec<TestGrade>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestGrade {
    pub name: String,
    pub passed: bool,
    pub points: f64,
    pub max_points: f64,
    /// When the test has no result the grader counts: how its process ended, or why its
    /// result line is void.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreported: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PredictionGrade {
    pub mode: PredictionMode,
    /// Items answered in the file now.
    pub answered: usize,
    /// Items answered when the predictions were sealed.
    pub answered_at_seal: usize,
    pub total: usize,
    /// Items whose sealed answer is right.
    pub correct: usize,
    /// Items that earned their share (see `mode`).
    pub earned: usize,
    pub sealed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_at: Option<String>,
    /// Items changed after the seal.
    pub revised: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LabPoints {
    pub predictions: f64,
    pub graded: f64,
    pub total: f64,
    pub max: f64,
    pub max_predictions: f64,
    pub max_graded: f64,
}

/// What only a reviewer can judge, and whether the run was sandboxed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Integrity {
    pub notes: Vec<String>,
    pub sandboxed: bool,
    /// A learner file brings in another file: what it brings in is not the learner's
    /// submitted work, so the graded tests earn nothing.
    #[serde(default)]
    pub refused: bool,
}

/// Rounds to cents; never -0 (an empty sum of f64 is -0.0).
fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0 + 0.0
}

/// What grading one lab starts from.
pub struct LabEvidence<'a> {
    pub lab: &'a Lab,
    /// The learner's predictions: `Ok(None)` when there is no file, `Err` when it does
    /// not parse (the message names the line).
    pub predictions: Result<Option<Predictions>, String>,
    /// The first seal recorded in the learner's progress store (their own grade only).
    pub first_seal: Option<Seal>,
    /// How the lab's graded run went.
    pub run: LabRun,
    /// The tests the graded suite names: each one is owed a result, run or not.
    pub expected: Vec<String>,
    pub integrity: Integrity,
    pub notes: Vec<String>,
}

/// How a lab's graded run went.
#[derive(Clone, Debug)]
pub enum LabRun {
    Ran(SuiteRun),
    DoesNotCompile(String),
    TimedOut,
    Failed(String),
}

/// Scores predictions: what was sealed, against the key, under `mode`.
pub fn score_predictions(
    lab: &Lab,
    predictions: Option<&Predictions>,
    first_seal: Option<&Seal>,
    mode: PredictionMode,
    notes: &mut Vec<String>,
    integrity: &mut Vec<String>,
) -> PredictionGrade {
    let total = lab.prediction_count();
    let mut grade = PredictionGrade {
        mode,
        total,
        ..PredictionGrade::default()
    };
    // The caller has said why there are none (no file, or one that does not parse).
    let Some(file) = predictions else {
        return grade;
    };
    grade.answered = file.answered();
    // The first seal this machine recorded wins over the file's.
    let mut file = file.clone();
    if let Some(first) = first_seal
        && file.seal.as_ref() != Some(first)
    {
        integrity.push(format!(
            "the seal in predictions.txt {} the first seal recorded at {}; the first one counts",
            if file.seal.is_some() {
                "differs from"
            } else {
                "is missing; it was"
            },
            first.at
        ));
        file.seal = Some(first.clone());
    }
    let Some(seal) = file.seal.clone() else {
        if file.legacy_seal.is_some() {
            notes.push(
                "the predictions were sealed by an older version of the workbook, which did not keep the sealed answers: they earn nothing; ask your teacher".into(),
            );
        } else if grade.answered > 0 {
            notes.push(format!(
                "the predictions were never sealed by a run: they earn nothing until `cargo labs run {}` seals them",
                lab.meta.number
            ));
        }
        return grade;
    };
    grade.sealed = true;
    grade.sealed_at = Some(seal.at.clone());
    if !seal.intact(lab) {
        integrity.push(
            "the seal line of predictions.txt was edited by hand (its checksum does not match): the predictions earn nothing".into(),
        );
        return grade;
    }
    let sealed = file.sealed_answers(lab);
    grade.answered_at_seal = sealed.len();
    grade.revised = file.revised(lab);
    let right = lab.right_answers();
    let is_right = |id: &String| sealed.get(id).is_some_and(|a| right.get(id) == Some(a));
    let ids = lab.item_ids();
    grade.correct = ids.iter().filter(|id| is_right(id)).count();
    grade.earned = match mode {
        PredictionMode::Participation => grade.answered_at_seal,
        PredictionMode::Correctness => ids
            .iter()
            .filter(|id| !grade.revised.contains(id) && is_right(id))
            .count(),
    };
    if !grade.revised.is_empty() && mode == PredictionMode::Correctness {
        notes.push(format!(
            "{} answer(s) changed after the seal earn nothing: {}",
            grade.revised.len(),
            grade.revised.join(", ")
        ));
    }
    if grade.answered_at_seal < total {
        notes.push(format!(
            "{} of {total} predictions were unanswered when they were sealed",
            total - grade.answered_at_seal
        ));
    }
    grade
}

/// Grades one lab from its evidence. Never fails: every problem becomes part of the
/// result.
pub fn grade_lab(evidence: LabEvidence<'_>, settings: &Settings) -> LabGrade {
    let LabEvidence {
        lab,
        predictions,
        first_seal,
        run,
        expected,
        mut integrity,
        mut notes,
    } = evidence;
    let (status, suite) = match run {
        LabRun::Ran(suite) if suite.timed_out => (LabStatus::Timeout, Some(suite)),
        LabRun::Ran(suite) => (LabStatus::Ran, Some(suite)),
        LabRun::DoesNotCompile(errors) => {
            notes.push(format!(
                "lab {} does not compile, so no graded test ran. The compiler said:\n{}",
                lab.meta.number,
                crate::process::tail(&crate::text::strip_ansi(&errors), 30)
            ));
            (LabStatus::CompileError, None)
        }
        LabRun::TimedOut => {
            notes.push(format!(
                "lab {} did not build within the time limit",
                lab.meta.number
            ));
            (LabStatus::Timeout, None)
        }
        LabRun::Failed(problem) => {
            notes.push(problem);
            (LabStatus::Error, None)
        }
    };
    // A lab that did not run owes every test of its suite: each one failed, and says why.
    let ran = suite.is_some();
    let suite = suite.unwrap_or_else(|| {
        let why = match status {
            LabStatus::CompileError => "not run: the lab does not compile",
            LabStatus::Timeout => "not run: the lab did not build in time",
            _ => "not run: the lab could not be built",
        };
        SuiteRun {
            tests: expected
                .iter()
                .map(|name| crate::suite::TestRun {
                    name: name.clone(),
                    passed: false,
                    output: String::new(),
                    unreported: Some(why.into()),
                })
                .collect(),
            ..SuiteRun::default()
        }
    });
    if ran {
        integrity.notes.extend(suite.notes.iter().cloned());
        for test in suite.tests.iter().filter(|t| !t.passed) {
            if let Some(how) = &test.unreported {
                notes.push(format!("`{}` did not report a result: {how}", test.name));
            }
        }
    }
    // The graded points are earned by the tests the starter fails: a test the starter
    // already passes guards against regressions and is reported, but worth nothing on
    // its own (otherwise an untouched starter would collect points).
    let earns = |name: &str| lab.meta.starter_fails.iter().any(|f| f == name);
    let max_graded = lab.meta.points.graded as f64;
    let earning = lab.meta.starter_fails.len().max(1) as f64;
    let share = max_graded / earning;
    let results: Vec<TestGrade> = suite
        .tests
        .iter()
        .map(|t| {
            let max = if earns(&t.name) { share } else { 0.0 };
            TestGrade {
                name: t.name.clone(),
                passed: t.passed,
                points: if t.passed { round2(max) } else { 0.0 },
                max_points: round2(max),
                unreported: t.unreported.clone(),
            }
        })
        .collect();
    // Counted, then rounded once: seven tests of 2.857… make 20, not 19.98.
    let earned = suite
        .tests
        .iter()
        .filter(|t| t.passed && earns(&t.name))
        .count() as f64;
    let mut graded_points = round2(earned * share).min(max_graded);
    if integrity.refused && graded_points > 0.0 {
        notes.push(
            "a learner file brings in another file, which a grader does not take: the graded tests earn nothing".into(),
        );
        graded_points = 0.0;
    }
    let predictions = match predictions {
        Ok(Some(p)) => Some(p),
        Ok(None) => {
            notes.push("no predictions.txt: the predictions earn nothing".into());
            None
        }
        Err(problem) => {
            notes.push(format!("{problem}: the predictions earn nothing"));
            None
        }
    };
    let prediction_grade = score_predictions(
        lab,
        predictions.as_ref(),
        first_seal.as_ref(),
        settings.predictions.mode,
        &mut notes,
        &mut integrity.notes,
    );
    let max_predictions = lab.meta.points.predictions as f64;
    let prediction_points = round2(
        max_predictions * prediction_grade.earned as f64 / prediction_grade.total.max(1) as f64,
    );
    LabGrade {
        lab: lab.meta.number.clone(),
        id: lab.meta.id.clone(),
        title: lab.meta.title.clone(),
        status,
        tests: Tests {
            passed: results.iter().filter(|t| t.passed).count(),
            expected: results.len(),
            results,
        },
        predictions: prediction_grade,
        points: LabPoints {
            predictions: prediction_points,
            graded: graded_points,
            total: round2(prediction_points + graded_points),
            max: max_predictions + max_graded,
            max_predictions,
            max_graded,
        },
        integrity: Integrity {
            notes: crate::integrity::capped(integrity.notes, MAX_INTEGRITY_NOTES),
            ..integrity
        },
        notes,
    }
}

/// The most integrity notes one lab's grade keeps (the last one counts the rest).
pub const MAX_INTEGRITY_NOTES: usize = 20;

/// The grade of a lab whose lab.toml could not be read: nothing earned, the problem named.
pub fn broken_lab(number: &str, slug: &str, problem: &str) -> LabGrade {
    LabGrade {
        lab: number.to_string(),
        id: slug.to_string(),
        title: slug.to_string(),
        status: LabStatus::BrokenMetadata,
        tests: Tests::default(),
        predictions: PredictionGrade::default(),
        points: LabPoints::default(),
        integrity: Integrity::default(),
        notes: vec![format!(
            "lab.toml cannot be read, so the lab was not graded: {problem}"
        )],
    }
}

/// Adds up the labs.
pub fn total(labs: Vec<LabGrade>, learner: Option<String>) -> Grade {
    Grade {
        version: FORMAT_VERSION,
        workbook: "boundary-labs".into(),
        learner,
        points: round2(labs.iter().map(|l| l.points.total).sum()),
        max_points: labs.iter().map(|l| l.points.max).sum(),
        labs,
    }
}

/// Where and how a tree's labs are built and run.
pub struct RunEnv<'a> {
    pub target_dir: Option<std::path::PathBuf>,
    /// Extra environment for cargo's build.
    pub build_env: Vec<(String, String)>,
    pub build_wrap: Option<&'a dyn Fn(Command) -> Command>,
    pub run_wrap: Option<&'a dyn Fn(Command) -> Command>,
    pub test_env: Vec<(String, String)>,
    pub cancel: Option<&'a AtomicBool>,
    /// Compare each suite's executable with its first bytes before every test: without a
    /// sandbox, a test could rewrite the binary the next test runs.
    pub verify_binaries: bool,
}

/// Builds the graded suites of `labs` in the workspace at `tree` (one cargo run, going on
/// past a lab that does not compile) and runs each, every test in its own process. The
/// expected tests are read from each suite's source in `tree`.
pub fn run_labs(tree: &Path, labs: &[&Lab], settings: &Settings, env: &RunEnv<'_>) -> Vec<LabRun> {
    let packages: Vec<&str> = labs.iter().map(|l| l.meta.package.as_str()).collect();
    let build_env = BuildEnv {
        target_dir: env.target_dir.clone(),
        env: env.build_env.clone(),
        wrap: env.build_wrap,
        cancel: env.cancel,
    };
    let build_limit = std::time::Duration::from_secs(settings.limits.build_time_limit_secs);
    let built = match compile::build(
        tree,
        &packages,
        Artifact::GradedSuite,
        &build_env,
        build_limit,
    ) {
        Ok(built) => built,
        Err(e) => Built {
            failure: Some(e.to_string()),
            ..Built::default()
        },
    };
    labs.iter()
        .map(|lab| match built.executable(&lab.meta.package) {
            Err(BuildProblem::DoesNotCompile(errors)) => LabRun::DoesNotCompile(errors),
            Err(BuildProblem::TimedOut) => LabRun::TimedOut,
            Err(BuildProblem::Cancelled) => LabRun::Failed("the build was cancelled".into()),
            Err(BuildProblem::Failed(why)) => {
                LabRun::Failed(format!("lab {} could not be built: {why}", lab.meta.number))
            }
            Ok(exe) => {
                let source =
                    std::fs::read_to_string(tree.join(&lab.meta.graded_suite)).unwrap_or_default();
                let expected = graded_test_names(&source);
                if expected.is_empty() {
                    return LabRun::Failed(format!(
                        "{} names no graded test (no `labkit::graded_suite![…]`)",
                        lab.meta.graded_suite
                    ));
                }
                let suite_env = SuiteEnv {
                    time_limit: settings.time_limit(lab.meta.time_limit_secs),
                    output_cap: settings.limits.max_test_output_bytes as usize,
                    env: env.test_env.clone(),
                    wrap: env.run_wrap,
                    cancel: env.cancel,
                    verify_binary: env.verify_binaries,
                };
                LabRun::Ran(suite::run(exe, tree, &expected, &suite_env))
            }
        })
        .collect()
}

// ------------------------------------------------------------------------ formats

/// One entry of the GitHub Classroom autograding result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassroomTest {
    pub name: String,
    pub status: String,
    pub score: f64,
    pub max_score: f64,
    pub message: String,
    pub test_code: String,
    pub filename: String,
    pub line_no: u32,
    pub duration: u32,
}

/// The GitHub Classroom autograding result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Classroom {
    pub version: u32,
    pub status: String,
    pub max_score: f64,
    pub tests: Vec<ClassroomTest>,
}

fn classroom_test(
    name: String,
    passed: bool,
    score: f64,
    max: f64,
    message: String,
    code: String,
) -> ClassroomTest {
    ClassroomTest {
        name,
        status: if passed { "pass" } else { "fail" }.into(),
        score,
        max_score: max,
        message,
        test_code: code,
        filename: String::new(),
        line_no: 0,
        duration: 0,
    }
}

/// One entry per graded test, one per lab's predictions and, where a reviewer has
/// something to look at, a failing 0-point "integrity" entry carrying the notes.
pub fn classroom(grade: &Grade) -> Classroom {
    let mut tests = Vec::new();
    for lab in &grade.labs {
        let label = format!("lab {} ({})", lab.lab, lab.id);
        let check = format!("cargo labs check {}", lab.lab);
        if lab.tests.results.is_empty() {
            let mut entry = classroom_test(
                format!("{label}: graded tests"),
                false,
                0.0,
                lab.points.max_graded,
                lab.notes
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "no graded test ran".into()),
                check.clone(),
            );
            entry.status = "error".into();
            tests.push(entry);
        }
        for t in &lab.tests.results {
            let message = match (&t.unreported, t.passed) {
                (_, true) => String::new(),
                (Some(how), false) => format!("did not report a result: {how}"),
                (None, false) => {
                    "run `cargo labs check` for the timeline and the replay command".into()
                }
            };
            tests.push(classroom_test(
                format!("{label}: {}", t.name),
                t.passed,
                t.points,
                t.max_points,
                message,
                check.clone(),
            ));
        }
        let p = &lab.predictions;
        tests.push(classroom_test(
            format!("{label}: predictions"),
            p.earned == p.total,
            lab.points.predictions,
            lab.points.max_predictions,
            format!(
                "{} of {} earned ({:?}){}",
                p.earned,
                p.total,
                p.mode,
                if p.revised.is_empty() {
                    String::new()
                } else {
                    format!("; {} revised after the seal", p.revised.len())
                }
            ),
            format!("cargo labs run {}", lab.lab),
        ));
        let mut review = lab.integrity.notes.clone();
        if !lab.integrity.sandboxed {
            review.push("not sandboxed".into());
        }
        if !lab.integrity.notes.is_empty() {
            tests.push(classroom_test(
                format!("{label}: integrity"),
                false,
                0.0,
                0.0,
                review.join("; "),
                "review the submission".into(),
            ));
        }
    }
    Classroom {
        version: 1,
        status: if tests.iter().all(|t| t.status == "pass") {
            "pass"
        } else {
            "fail"
        }
        .into(),
        max_score: grade.max_points,
        tests,
    }
}

/// The grade as text, for a person.
pub fn text(grade: &Grade) -> String {
    use colored::Colorize;
    let mut out = String::new();
    for lab in &grade.labs {
        let p = &lab.predictions;
        out.push_str(&format!(
            "{} {:<45} tests {}/{}  predictions {}/{}{}  points {}/{}\n",
            lab.lab.bold(),
            lab.title,
            lab.tests.passed,
            lab.tests.expected,
            p.earned,
            p.total,
            if p.sealed { " (sealed)" } else { "" },
            lab.points.total,
            lab.points.max
        ));
        for note in &lab.notes {
            out.push_str(&format!(
                "    {} {}\n",
                "note:".yellow(),
                note.lines().next().unwrap_or("")
            ));
        }
        for note in &lab.integrity.notes {
            out.push_str(&format!("    {} {note}\n", "integrity:".magenta()));
        }
    }
    out.push_str(&format!(
        "\n{} {} / {}\n",
        "total:".bold(),
        grade.points,
        grade.max_points
    ));
    out
}
