//! The typed report: everything the page shows, computed from a saved class grade and the
//! labs (`build`), then rendered (`html`). `class report --json` writes it as it is, so a
//! script of the teacher's (or a test) reads the numbers without reading the page.

use crate::grade::{LabStatus, Severity};
use crate::settings::PredictionMode;
use serde::{Deserialize, Serialize};

/// The version of the report's JSON.
pub const REPORT_VERSION: u32 = 1;

/// The peer-instruction rule of thumb: an item whose share of right answers before the
/// run is between these (inclusive) splits the class, and is the one to discuss.
pub const DISCUSS_FROM: (usize, usize) = (3, 10);
pub const DISCUSS_TO: (usize, usize) = (7, 10);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub version: u32,
    /// Learners are shown by stable pseudonyms.
    pub anonymous: bool,
    /// The learners, as shown, in the class grade's order.
    pub learners: Vec<String>,
    pub labs: Vec<LabInfo>,
    pub glance: Glance,
    pub lab_reports: Vec<LabReport>,
    pub integrity: IntegrityReport,
    /// What the teacher should know before reading the rest (a key changed since grading).
    pub warnings: Vec<String>,
}

/// A lab of the class grade.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabInfo {
    pub number: String,
    pub id: String,
    pub title: String,
    pub max_graded: f64,
    pub max_predictions: f64,
}

/// The class at a glance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Glance {
    /// One row per learner, in the class grade's order.
    pub rows: Vec<GlanceRow>,
    /// Labs that did not build, the learner's doing or the grader's.
    pub did_not_build: Vec<Unbuilt>,
    /// Labs refused (a learner file brings in another file), or not a workbook.
    pub refused: Vec<Unbuilt>,
    /// Learners with integrity notes, the most serious first.
    pub with_notes: Vec<NotesOf>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GlanceRow {
    pub learner: String,
    /// One per lab of `Report::labs`, in that order; `None` where the learner's grade has
    /// no such lab.
    pub cells: Vec<Option<GlanceCell>>,
    pub points: f64,
    pub max_points: f64,
    pub notes: SeverityCounts,
}

/// One learner's lab, as recorded: never re-scored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GlanceCell {
    pub status: LabStatus,
    pub graded: f64,
    pub max_graded: f64,
    pub predictions: f64,
    pub max_predictions: f64,
    /// The mode the predictions were scored with, when they were graded.
    pub mode: PredictionMode,
    pub notes: SeverityCounts,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeverityCounts {
    pub serious: usize,
    pub review: usize,
    pub info: usize,
}

impl SeverityCounts {
    pub fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Serious => self.serious += 1,
            Severity::Review => self.review += 1,
            Severity::Info => self.info += 1,
        }
    }

    pub fn total(&self) -> usize {
        self.serious + self.review + self.info
    }

    /// The most serious severity counted, if any.
    pub fn worst(&self) -> Option<Severity> {
        if self.serious > 0 {
            Some(Severity::Serious)
        } else if self.review > 0 {
            Some(Severity::Review)
        } else if self.info > 0 {
            Some(Severity::Info)
        } else {
            None
        }
    }
}

/// Whose doing a lab without a graded run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    Learner,
    Grader,
}

/// A lab that has no graded run, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unbuilt {
    pub learner: String,
    pub lab: String,
    pub status: LabStatus,
    pub fault: Fault,
    /// The first line of the recorded reason.
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotesOf {
    pub learner: String,
    pub counts: SeverityCounts,
}

/// Everything about one lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabReport {
    pub lab: String,
    pub id: String,
    pub title: String,
    /// Learners with a grade of this lab.
    pub learners: usize,
    /// Of them, those whose predictions were sealed (their sealed answers are counted).
    pub sealed: usize,
    /// Of them, those who changed an answer after the seal.
    pub revised: usize,
    /// The modes the lab's predictions were scored with, as the grades recorded them.
    pub modes: Vec<PredictionMode>,
    /// Of the learners, those whose predictions are the live poll's round-1 votes
    /// (`grade-class --predictions-from`), not their files.
    #[serde(default)]
    pub from_poll: usize,
    /// Every item, the most missed first.
    pub items: Vec<ItemReport>,
    /// Learners whose recorded count of right answers differs from today's key: the key
    /// changed since the grading (the points shown stay the recorded ones).
    pub key_changed_for: Vec<String>,
    /// Learners whose graded run ran (status `graded`).
    pub graded_runs: usize,
    /// Of them, those whose run failed a test.
    pub failed_runs: usize,
    /// The catalogue's misconceptions the graded runs matched, the most common first.
    pub misconceptions: Vec<Misconception>,
    /// Failures no catalogue entry explains, grouped by how they failed (those that fail
    /// as the untouched starter does are apart, in `as_starter`).
    pub unmatched: Vec<Unmatched>,
    /// Learners whose graded run failed every test the starter fails, and only those: no
    /// work of the build phase shows.
    #[serde(default)]
    pub as_starter: Vec<String>,
    /// Each graded test's pass rate over the graded runs, in the suite's order.
    pub tests: Vec<TestRate>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemKind {
    /// A yes/no question about the run.
    Check,
    /// A multiple-choice question.
    Question,
}

/// One item of the observe phase and how the class answered it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemReport {
    /// `q01`, …
    pub id: String,
    /// Its number in the chapter's list (1, 2, …).
    pub number: usize,
    pub kind: ItemKind,
    /// What the learner read.
    pub question: String,
    /// What a check shows (the teacher's name of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// One per option (`yes`, `no`; or the letters), in order.
    pub options: Vec<OptionCount>,
    /// The right answer.
    pub right: String,
    /// Sealed learners who had answered it.
    pub answered: usize,
    /// Sealed learners who had not.
    pub unanswered: usize,
    /// Of `answered`, those right.
    pub right_count: usize,
    /// `right_count / answered`; `None` when nobody answered.
    pub share_right: Option<f64>,
    /// The share right is between 30 and 70 %: the item splits the class.
    pub discuss: bool,
    pub explanation: String,
    /// How the answers moved after the seal, when anyone changed this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift: Option<Shift>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptionCount {
    /// `yes`, `no`, or a letter.
    pub answer: String,
    /// A letter's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub right: bool,
    /// Learners who sealed this answer.
    pub sealed: usize,
    /// The same learners' answers now (after any revision).
    pub current: usize,
}

/// How an item's answers moved after the seal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shift {
    /// The learners who changed it.
    pub learners: Vec<String>,
    pub wrong_to_right: usize,
    pub right_to_wrong: usize,
    /// From one wrong answer (or none) to another wrong one (or none).
    pub wrong_to_wrong: usize,
    /// The share right now, of those who answer it now.
    pub share_right_now: Option<f64>,
}

/// A misconception of the catalogue, and the learners whose graded run matched it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Misconception {
    /// In the catalogue's words.
    pub misconception: String,
    pub section: BookSection,
    pub learners: Vec<String>,
}

/// A place in the book.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BookSection {
    /// As the catalogue names it: `01-outbox.md#the-receiver`.
    pub target: String,
    /// `Chapter 1 · Transaction boundaries and the outbox`.
    pub chapter: String,
    /// The heading the anchor names, when it was found in the chapter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// The link: the built book's page and anchor.
    pub href: String,
}

/// Graded runs that failed in a way no catalogue entry explains.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unmatched {
    pub fails: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invariant: Option<String>,
    pub learners: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestRate {
    pub name: String,
    /// It earns points (a test the starter fails); otherwise it guards against
    /// regressions.
    pub earns: bool,
    pub passed: usize,
    pub runs: usize,
}

impl TestRate {
    pub fn rate(&self) -> f64 {
        self.passed as f64 / self.runs.max(1) as f64
    }
}

/// What only review can judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntegrityReport {
    /// Every note, the most serious first.
    pub notes: Vec<IntegrityNote>,
    pub code_pairs: Vec<CodePairView>,
    pub prediction_pairs: Vec<PredictionPairView>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IntegrityNote {
    pub severity: Severity,
    pub learner: String,
    pub lab: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodePairView {
    pub lab: String,
    pub left: String,
    /// A learner, `the reference solution`, or `the catalogue's wrong solution NAME`.
    pub right: String,
    pub file: String,
    /// From 0 to 1.
    pub share: f64,
    pub matched_tokens: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictionPairView {
    pub lab: String,
    pub learners: [String; 2],
    /// The items where both sealed the same wrong answer, with that answer.
    pub shared_wrong: Vec<(String, String)>,
    pub score: f64,
}
