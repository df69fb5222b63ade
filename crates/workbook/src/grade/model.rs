//! The typed grade: what every format (text, JSON, CSV, GitHub Classroom, the class
//! report) is written from. The JSON format is these structs, serialized; the teacher's
//! chapter of the book documents each field.

use crate::settings::PredictionMode;
use serde::{Deserialize, Serialize};

/// The version of the JSON grade format. 3: lab statuses name who is at fault, tests
/// say how each ended, notes are typed and ranked.
pub const FORMAT_VERSION: u32 = 3;

/// A whole grade: every lab of one learner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grade {
    pub version: u32,
    pub workbook: String,
    /// The learner, in a class grade.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learner: Option<Learner>,
    /// Where the graded workbook was found, when not where the submission starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_in: Option<String>,
    pub labs: Vec<LabGrade>,
    pub points: f64,
    pub max_points: f64,
}

/// Who a class grade is of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Learner {
    /// Unique in the class: the submission folder's name, with its parent's name when two
    /// folders share a name.
    pub name: String,
    /// The submission's path, as given to `grade-class`.
    pub submission: String,
}

/// How far a lab got, and whose doing it was when it did not get far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LabStatus {
    /// Its graded tests ran; some may have failed or hit their time limit.
    Graded,
    /// A learner file does not compile.
    DidNotCompile,
    /// Building the learner's files hit a cap of the grader's settings (time, memory,
    /// disk), while the starters build within it.
    BuildCapped,
    /// A learner file brings in another file: the starter was graded in its place and
    /// its tests earn nothing.
    Refused,
    /// The submission is not a copy of the workbook: nothing of it was graded.
    NotAWorkbook,
    /// The grader's machine failed (a missing dependency, a full disk, a broken
    /// toolchain): not the learner's doing, and not graded.
    GraderFault,
    /// The teacher's lab.toml cannot be read.
    BrokenMetadata,
}

impl LabStatus {
    /// In a few words, for a table.
    pub fn words(self) -> &'static str {
        match self {
            LabStatus::Graded => "graded",
            LabStatus::DidNotCompile => "did not compile (learner's code)",
            LabStatus::BuildCapped => "build stopped by a cap (learner's code)",
            LabStatus::Refused => "refused (brings in another file)",
            LabStatus::NotAWorkbook => "not a workbook",
            LabStatus::GraderFault => "not graded (grader's environment)",
            LabStatus::BrokenMetadata => "not graded (teacher's lab.toml)",
        }
    }

    /// True when the grader, not the learner, is why the lab has no grade.
    pub fn is_grader_fault(self) -> bool {
        matches!(self, LabStatus::GraderFault | LabStatus::BrokenMetadata)
    }
}

/// A cap of the grader's settings that stopped a build or a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cap {
    Time,
    Memory,
    Disk,
    Output,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabGrade {
    /// The lab's number, e.g. "01".
    pub lab: String,
    pub id: String,
    pub title: String,
    pub status: LabStatus,
    /// Why, in words, whenever `status` is not `graded`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The cap a build hit (`build-capped`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<Cap>,
    pub tests: Tests,
    pub predictions: PredictionGrade,
    pub points: LabPoints,
    pub integrity: Integrity,
    /// Why points were lost, in words.
    pub notes: Vec<String>,
    /// How the graded run failed, when it ran and something failed: what the class
    /// report counts as a misconception.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
}

/// How a graded run failed, and the misconceptions of the catalogue it matches.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The failing tests, in the suite's order.
    pub fails: Vec<String>,
    /// The invariant the first failing test reports (none: a plain assertion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invariant: Option<String>,
    /// The catalogue's misconceptions this failure matches (none: a failure no entry
    /// explains, perhaps the catalogue's next entry).
    pub diagnoses: Vec<Diagnosed>,
}

/// A misconception named for a failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnosed {
    pub misconception: String,
    /// Where the chapter teaches it: `01-outbox.md#…`.
    pub section: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tests {
    pub passed: usize,
    /// The tests the teacher's suite names: every one of them is expected to report.
    pub expected: usize,
    pub results: Vec<TestGrade>,
    /// Where the build phase has steps: each step's tests and points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepGrade>,
}

/// One step of a build phase, graded: partial credit per step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepGrade {
    pub name: String,
    pub passed: usize,
    pub tests: usize,
    pub points: f64,
    pub max_points: f64,
}

/// How one graded test ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestOutcome {
    Passed,
    /// It reported its own failure (an invariant, an assertion).
    Failed,
    /// It did not finish within its time limit.
    TimedOut,
    /// It used more memory than the cap.
    OverMemory,
    /// Its process ended without a result (an exit, an abort, a signal).
    Crashed,
    /// Its result line does not count (imitations beside it, output past the cap, an
    /// unclean end after it).
    Void,
    /// It was not run (the lab did not build, or the lab's time ran out).
    NotRun,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestGrade {
    pub name: String,
    pub passed: bool,
    pub outcome: TestOutcome,
    pub points: f64,
    pub max_points: f64,
    /// For a test that did not pass or fail on its own: how its process ended, or why its
    /// result does not count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
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
    /// The sealed answers, by item id (`yes`, `no`, a letter): what the class report
    /// counts. Empty when nothing was sealed.
    #[serde(default)]
    pub sealed_answers: std::collections::BTreeMap<String, String>,
    /// The answers in the file now, by item id.
    #[serde(default)]
    pub current_answers: std::collections::BTreeMap<String, String>,
    /// Where the predictions came from: the learner's file, or the class poll.
    #[serde(default)]
    pub source: PredictionSource,
}

/// Where a grade's predictions came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredictionSource {
    #[default]
    File,
    Poll,
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
    /// Most serious first.
    pub notes: Vec<Note>,
    pub sandboxed: bool,
    /// A learner file brings in another file: what it brings in is not the learner's
    /// submitted work, so the graded tests earn nothing.
    #[serde(default)]
    pub refused: bool,
}

/// How much a note asks of a reviewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Read this submission: what was seen is how grades are taken without the work
    /// (a refused file, an exploit's shape, a copy).
    Serious,
    /// Worth a look: code no solution needs (a process, the environment, printing).
    Review,
    /// For the record: nothing to act on alone.
    Info,
}

/// One thing a reviewer may want to read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub severity: Severity,
    /// What was seen, calmly.
    pub text: String,
    /// The learner file it was seen in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<usize>,
    /// The first line where it was seen, as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.one_line())
    }
}

impl Note {
    pub fn new(severity: Severity, text: impl Into<String>) -> Note {
        Note {
            severity,
            text: text.into(),
            file: None,
            lines: Vec::new(),
            excerpt: None,
        }
    }

    /// The note on one line: "relay.rs line 4: uses `std::process` (…)".
    pub fn one_line(&self) -> String {
        let lines: Vec<String> = self.lines.iter().take(5).map(|l| l.to_string()).collect();
        let more = if self.lines.len() > 5 { ", …" } else { "" };
        match (&self.file, lines.is_empty()) {
            (Some(file), false) => {
                let word = if self.lines.len() == 1 {
                    "line"
                } else {
                    "lines"
                };
                format!("{file} {word} {}{more}: {}", lines.join(", "), self.text)
            }
            (Some(file), true) => format!("{file}: {}", self.text),
            (None, _) => self.text.clone(),
        }
    }
}
