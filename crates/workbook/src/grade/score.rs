//! Scoring: from what a lab's run showed and what its learner predicted, to its grade.
//! Pure functions of their evidence; every problem becomes part of the result.

use super::model::*;
use super::run::{LabRun, SuiteRun, TestRun};
use crate::meta::Lab;
use crate::predictions::{Answer, Predictions, Seal};
use crate::settings::PredictionMode;
use std::collections::BTreeMap;

/// Rounds to cents; never -0 (an empty sum of f64 is -0.0).
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0 + 0.0
}

/// The most integrity notes one lab's grade keeps (the last one counts the rest).
pub const MAX_INTEGRITY_NOTES: usize = 20;

/// What grading one lab starts from.
pub struct LabEvidence<'a> {
    pub lab: &'a Lab,
    /// The learner's predictions: `Ok(None)` when there is no file, `Err` when it does
    /// not parse (the message names the line).
    pub predictions: Result<Option<Predictions>, String>,
    /// The first seal recorded in the learner's progress store (their own grade only).
    pub first_seal: Option<Seal>,
    /// Where the predictions came from.
    pub source: PredictionSource,
    pub mode: PredictionMode,
    /// How the lab's graded run went.
    pub run: LabRun,
    /// The tests the graded suite names: each one is owed a result, run or not.
    pub expected: Vec<String>,
    pub integrity: Integrity,
    pub notes: Vec<String>,
}

fn answers_text(answers: &BTreeMap<String, Answer>) -> BTreeMap<String, String> {
    answers
        .iter()
        .map(|(id, a)| (id.clone(), a.show()))
        .collect()
}

/// The first seal recorded wins over the file's; a difference is noted.
fn settle_seal(
    file: &Predictions,
    first_seal: Option<&Seal>,
    integrity: &mut Vec<Note>,
) -> Predictions {
    let mut file = file.clone();
    if let Some(first) = first_seal
        && file.seal.as_ref() != Some(first)
    {
        let how = if file.seal.is_some() {
            "differs from"
        } else {
            "is missing; it was"
        };
        integrity.push(Note::new(
            Severity::Review,
            format!(
                "the seal in predictions.txt {how} the first seal recorded at {}; the first one counts",
                first.at
            ),
        ));
        file.seal = Some(first.clone());
    }
    file
}

/// Scores predictions: what was sealed, against the key, under `mode`.
pub fn score_predictions(
    lab: &Lab,
    predictions: Option<&Predictions>,
    first_seal: Option<&Seal>,
    mode: PredictionMode,
    notes: &mut Vec<String>,
    integrity: &mut Vec<Note>,
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
    grade.current_answers = answers_text(&file.answers);
    let file = settle_seal(file, first_seal, integrity);
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
        integrity.push(Note::new(
            Severity::Review,
            "the seal line of predictions.txt was edited by hand (its checksum does not match): the predictions earn nothing",
        ));
        return grade;
    }
    let sealed = file.sealed_answers(lab);
    grade.sealed_answers = answers_text(&sealed);
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

/// What a lab that did not run shows for each expected test.
fn not_run(expected: &[String], why: &str) -> SuiteRun {
    SuiteRun {
        tests: expected
            .iter()
            .map(|name| TestRun::not_run(name, why))
            .collect(),
        ..SuiteRun::default()
    }
}

/// The lab's status, the reason, the cap, and the suite to score, from how it ran.
fn status_of(
    lab: &Lab,
    run: LabRun,
    expected: &[String],
    refused: bool,
) -> (LabStatus, Option<String>, Option<Cap>, SuiteRun) {
    let n = &lab.meta.number;
    match run {
        LabRun::Ran(suite) if refused => {
            let why = "a learner file brings in another file, which a grader does not take: the starter was graded in its place, and its tests earn nothing";
            (LabStatus::Refused, Some(why.into()), None, suite)
        }
        LabRun::Ran(suite) => (LabStatus::Graded, None, None, suite),
        LabRun::DidNotCompile(errors) => {
            let why = format!(
                "lab {n} does not compile, so no graded test ran. The compiler said:\n{}",
                crate::process::tail(&crate::text::strip_ansi(&errors), 30)
            );
            let suite = not_run(expected, "not run: the lab does not compile");
            (LabStatus::DidNotCompile, Some(why), None, suite)
        }
        LabRun::BuildCapped { cap, detail } => {
            let what = match cap {
                Cap::Time => "the time a build may take (`build_time_limit_secs`)",
                Cap::Memory => "the memory one compiler process may use (`max_build_memory_mib`)",
                Cap::Disk => {
                    "the disk a build may fill (a file past `max_file_mib`, or the build folder grown past `max_build_growth_mib`)"
                }
                Cap::Output => "the output a build may print",
            };
            let why = format!(
                "lab {n}'s build was stopped by the grader's cap on {what}, which the starters build within: no graded test ran. Cargo's last words:\n{}",
                crate::process::tail(&crate::text::strip_ansi(&detail), 12)
            );
            let suite = not_run(expected, "not run: the lab's build was stopped by a cap");
            (LabStatus::BuildCapped, Some(why), Some(cap), suite)
        }
        LabRun::GraderFault(why) => {
            let suite = not_run(expected, "not run: the grader's environment failed");
            (LabStatus::GraderFault, Some(why), None, suite)
        }
        LabRun::NotAWorkbook(why) => {
            let suite = not_run(expected, "not run: the submission is not a workbook");
            (LabStatus::NotAWorkbook, Some(why), None, suite)
        }
    }
}

/// Grades one lab from its evidence. Never fails: every problem becomes part of the
/// result.
pub fn grade_lab(evidence: LabEvidence<'_>) -> LabGrade {
    let LabEvidence {
        lab,
        predictions,
        first_seal,
        source,
        mode,
        run,
        expected,
        mut integrity,
        mut notes,
    } = evidence;
    let (status, reason, cap, suite) = status_of(lab, run, &expected, integrity.refused);
    integrity.notes.extend(suite.notes.iter().cloned());
    for test in suite.tests.iter().filter(|t| !t.passed()) {
        if let (Some(how), false) = (&test.detail, test.outcome == TestOutcome::NotRun) {
            notes.push(format!("`{}` did not count: {how}", test.name));
        }
    }
    let (results, graded_points) = test_points(lab, &suite, status);
    let failure = failure_of(lab, &suite, status);
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
    let mut prediction_grade = score_predictions(
        lab,
        predictions.as_ref(),
        first_seal.as_ref(),
        mode,
        &mut notes,
        &mut integrity.notes,
    );
    prediction_grade.source = source;
    let max_predictions = lab.meta.points.predictions as f64;
    let max_graded = lab.meta.points.graded as f64;
    let prediction_points = round2(
        max_predictions * prediction_grade.earned as f64 / prediction_grade.total.max(1) as f64,
    );
    integrity.notes.sort_by_key(|n| n.severity);
    integrity.notes = crate::integrity::capped(integrity.notes, MAX_INTEGRITY_NOTES);
    LabGrade {
        lab: lab.meta.number.clone(),
        id: lab.meta.id.clone(),
        title: lab.meta.title.clone(),
        status,
        reason,
        cap,
        tests: Tests {
            passed: results.iter().filter(|t| t.passed).count(),
            expected: results.len(),
            steps: steps_of(lab, &results),
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
        integrity,
        notes,
        failure,
    }
}

/// Each step's share of the graded tests and points.
fn steps_of(lab: &Lab, results: &[TestGrade]) -> Vec<StepGrade> {
    (lab.meta.steps.iter())
        .map(|step| {
            let mine: Vec<&TestGrade> = results
                .iter()
                .filter(|t| step.tests.contains(&t.name))
                .collect();
            StepGrade {
                name: step.name.clone(),
                passed: mine.iter().filter(|t| t.passed).count(),
                tests: mine.len(),
                points: round2(mine.iter().map(|t| t.points).sum()),
                max_points: round2(mine.iter().map(|t| t.max_points).sum()),
            }
        })
        .collect()
}

/// How a graded run failed, and which misconceptions of the catalogue it matches.
fn failure_of(lab: &Lab, suite: &SuiteRun, status: LabStatus) -> Option<Failure> {
    let signature = crate::mutants::signature(suite);
    if status != LabStatus::Graded || signature.fails.is_empty() {
        return None;
    }
    let diagnoses = (crate::mutants::diagnose(lab, suite).into_iter())
        .map(|d| Diagnosed {
            misconception: d.misconception.clone(),
            section: d.section.clone(),
        })
        .collect();
    Some(Failure {
        fails: signature.fails,
        invariant: signature.invariant,
        diagnoses,
    })
}

/// Each test's points, and the lab's graded points. The graded points are earned by the
/// tests the starter fails: a test the starter already passes guards against regressions
/// and is reported, but worth nothing on its own (otherwise an untouched starter would
/// collect points). A refused lab earns nothing.
fn test_points(lab: &Lab, suite: &SuiteRun, status: LabStatus) -> (Vec<TestGrade>, f64) {
    let earns = |name: &str| lab.meta.starter_fails.iter().any(|f| f == name);
    let max_graded = lab.meta.points.graded as f64;
    let share = max_graded / lab.meta.starter_fails.len().max(1) as f64;
    let counts = status == LabStatus::Graded;
    let results: Vec<TestGrade> = suite
        .tests
        .iter()
        .map(|t| {
            let max = if earns(&t.name) { share } else { 0.0 };
            TestGrade {
                name: t.name.clone(),
                passed: t.passed(),
                outcome: t.outcome,
                points: if t.passed() && counts {
                    round2(max)
                } else {
                    0.0
                },
                max_points: round2(max),
                detail: t.detail.clone(),
            }
        })
        .collect();
    // Counted, then rounded once: seven tests of 2.857… make 20, not 19.98.
    let earned = (suite.tests.iter())
        .filter(|t| t.passed() && earns(&t.name))
        .count() as f64;
    let points = if counts {
        round2(earned * share).min(max_graded)
    } else {
        0.0
    };
    (results, points)
}

/// The grade of a lab whose lab.toml could not be read: nothing earned, the problem named.
pub fn broken_lab(number: &str, slug: &str, problem: &str) -> LabGrade {
    LabGrade {
        lab: number.to_string(),
        id: slug.to_string(),
        title: slug.to_string(),
        status: LabStatus::BrokenMetadata,
        reason: Some(format!(
            "lab.toml cannot be read, so the lab was not graded: {problem}"
        )),
        cap: None,
        tests: Tests::default(),
        predictions: PredictionGrade::default(),
        points: LabPoints::default(),
        integrity: Integrity::default(),
        notes: Vec::new(),
        failure: None,
    }
}

/// The grade of a lab that was not run at all (`status` says why; `why` in words).
pub fn unrun(lab: &Lab, status: LabStatus, why: &str) -> LabGrade {
    LabGrade {
        status,
        reason: Some(why.to_string()),
        ..broken_lab(&lab.meta.number, &lab.meta.id, why)
    }
    .titled(lab)
}

impl LabGrade {
    fn titled(mut self, lab: &Lab) -> LabGrade {
        self.title = lab.meta.title.clone();
        self.points.max_graded = lab.meta.points.graded as f64;
        self.points.max_predictions = lab.meta.points.predictions as f64;
        self.points.max = self.points.max_graded + self.points.max_predictions;
        self
    }
}

/// Adds up the labs.
pub fn total(labs: Vec<LabGrade>, learner: Option<Learner>) -> Grade {
    Grade {
        version: FORMAT_VERSION,
        workbook: "boundary-labs".into(),
        learner,
        found_in: None,
        points: round2(labs.iter().map(|l| l.points.total).sum()),
        max_points: labs.iter().map(|l| l.points.max).sum(),
        labs,
    }
}
