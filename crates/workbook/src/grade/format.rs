//! The formats a grade is written in, all from the typed grade: text for a person, JSON
//! (the structs, serialized), and GitHub Classroom's autograding result.

use super::model::*;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How a grade is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    /// GitHub Classroom's autograding result, as JSON.
    Classroom,
    /// The same, base64-encoded for a workflow's step output.
    ClassroomBase64,
}

impl Format {
    /// The grade in this format.
    pub fn render(self, grade: &Grade) -> Result<String> {
        let json = |r: serde_json::Result<String>| {
            r.map_err(|e| Error::io("cannot write the grade", e.into()))
        };
        Ok(match self {
            Format::Text => text(grade),
            Format::Json => json(serde_json::to_string_pretty(grade))?,
            Format::Classroom => json(serde_json::to_string_pretty(&classroom(grade)))?,
            Format::ClassroomBase64 => {
                let compact = json(serde_json::to_string(&classroom(grade)))?;
                crate::keys::base64_encode(compact.as_bytes())
            }
        })
    }

    /// Prints the grade on stdout.
    pub fn print(self, grade: &Grade) -> Result<()> {
        println!("{}", self.render(grade)?.trim_end());
        Ok(())
    }
}

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

fn entry(
    name: String,
    status: &str,
    score: f64,
    max: f64,
    message: String,
    code: String,
) -> ClassroomTest {
    ClassroomTest {
        name,
        status: status.into(),
        score,
        max_score: max,
        message,
        test_code: code,
        filename: String::new(),
        line_no: 0,
        duration: 0,
    }
}

/// The message of one graded test's entry.
fn test_message(t: &TestGrade) -> String {
    match (&t.detail, t.passed) {
        (_, true) => String::new(),
        (Some(how), false) => format!("did not count: {how}"),
        (None, false) => "run `cargo labs check` for the timeline and the replay command".into(),
    }
}

/// The entries of one lab: one per graded test (points only where the lab was graded),
/// one for its predictions and, where a reviewer has something to look at, a failing
/// 0-point "integrity" entry carrying the notes.
fn lab_entries(lab: &LabGrade, say_unsandboxed: bool, tests: &mut Vec<ClassroomTest>) {
    let label = format!("lab {} ({})", lab.lab, lab.id);
    let check = format!("cargo labs check {}", lab.lab);
    if lab.status != LabStatus::Graded {
        let why = lab.reason.clone().unwrap_or_default();
        let first = why.lines().next().unwrap_or_default();
        let message = format!("{}: {first}", lab.status.words());
        tests.push(entry(
            format!("{label}: graded tests"),
            "error",
            0.0,
            lab.points.max_graded,
            message,
            check.clone(),
        ));
    } else {
        for t in &lab.tests.results {
            let status = if t.passed { "pass" } else { "fail" };
            tests.push(entry(
                format!("{label}: {}", t.name),
                status,
                t.points,
                t.max_points,
                test_message(t),
                check.clone(),
            ));
        }
    }
    let p = &lab.predictions;
    let revised = if p.revised.is_empty() {
        String::new()
    } else {
        format!("; {} revised after the seal", p.revised.len())
    };
    tests.push(entry(
        format!("{label}: predictions"),
        if p.earned == p.total { "pass" } else { "fail" },
        lab.points.predictions,
        lab.points.max_predictions,
        format!("{} of {} earned ({:?}){revised}", p.earned, p.total, p.mode),
        format!("cargo labs run {}", lab.lab),
    ));
    let mut review: Vec<String> = lab.integrity.notes.iter().map(Note::one_line).collect();
    if say_unsandboxed {
        review.push("graded unsandboxed".into());
    }
    if !review.is_empty() {
        tests.push(entry(
            format!("{label}: integrity"),
            "fail",
            0.0,
            0.0,
            review.join("; "),
            "review the submission".into(),
        ));
    }
}

/// The GitHub Classroom result. Its scores add up to the grade of record's points: each
/// lab's graded points are spread over its passing tests so that the sum is exact.
pub fn classroom(grade: &Grade) -> Classroom {
    let mut tests = Vec::new();
    for lab in &grade.labs {
        let first = tests.len();
        // A class grade says when it ran unsandboxed; a learner's own never is.
        let say_unsandboxed = grade.learner.is_some() && !lab.integrity.sandboxed;
        lab_entries(lab, say_unsandboxed, &mut tests);
        settle_rounding(&mut tests[first..], lab.points.graded);
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

/// Makes the graded tests' scores of one lab add up to its graded points: rounding each
/// share to cents can leave a cent over or under, which goes to the last passing test.
fn settle_rounding(entries: &mut [ClassroomTest], graded: f64) {
    let scored: Vec<usize> = (0..entries.len())
        .filter(|&i| {
            let e = &entries[i];
            !e.name.ends_with(": predictions") && !e.name.ends_with(": integrity") && e.score > 0.0
        })
        .collect();
    let sum: f64 = scored.iter().map(|&i| entries[i].score).sum();
    if let Some(&last) = scored.last() {
        let fixed = super::score::round2(entries[last].score + graded - sum);
        entries[last].score = fixed;
    }
}

/// The grade as text, for a person: per lab its status, tests, predictions and points,
/// then every note.
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
        if let Some(reason) = &lab.reason {
            let first = reason.lines().next().unwrap_or_default();
            out.push_str(&format!(
                "    {} {first}\n",
                format!("{}:", lab.status.words()).red()
            ));
        }
        for note in &lab.notes {
            let first = note.lines().next().unwrap_or("");
            out.push_str(&format!("    {} {first}\n", "note:".yellow()));
        }
        for note in &lab.integrity.notes {
            let word = format!("{:?}:", note.severity).to_lowercase();
            out.push_str(&format!("    {} {}\n", word.magenta(), note.one_line()));
        }
    }
    out.push_str(&format!(
        "\n{} {} / {}\n",
        "total:".bold(),
        grade.points,
        grade.max_points
    ));
    out.push_str(
        "(a lab's test points go to the tests that fail until your build phase is done; the \
         other tests only guard what already worked. Its prediction points go to the answers \
         you sealed before the first run: right answers, or every answer where the course \
         counts participation)\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lab(passed: usize, of: usize, sandboxed: bool) -> LabGrade {
        let share = 20.0 / of as f64;
        let results = (0..of)
            .map(|i| TestGrade {
                name: format!("t{i}"),
                passed: i < passed,
                outcome: if i < passed {
                    TestOutcome::Passed
                } else {
                    TestOutcome::Failed
                },
                points: if i < passed {
                    super::super::score::round2(share)
                } else {
                    0.0
                },
                max_points: super::super::score::round2(share),
                detail: None,
            })
            .collect();
        LabGrade {
            lab: "01".into(),
            id: "outbox".into(),
            title: "t".into(),
            status: LabStatus::Graded,
            reason: None,
            cap: None,
            tests: Tests {
                passed,
                expected: of,
                results,
                steps: Vec::new(),
            },
            predictions: PredictionGrade::default(),
            points: LabPoints {
                graded: super::super::score::round2(passed as f64 * share),
                total: super::super::score::round2(passed as f64 * share),
                max: 30.0,
                max_graded: 20.0,
                max_predictions: 10.0,
                predictions: 0.0,
            },
            integrity: Integrity {
                notes: Vec::new(),
                sandboxed,
                refused: false,
            },
            notes: Vec::new(),
            failure: None,
        }
    }

    #[test]
    fn classroom_scores_add_up_to_the_grade_of_record() {
        for (passed, of) in [(7, 7), (2, 7), (3, 3), (5, 6), (1, 9)] {
            let grade = super::super::score::total(vec![lab(passed, of, true)], None);
            let sum: f64 = classroom(&grade).tests.iter().map(|t| t.score).sum();
            assert_eq!(
                super::super::score::round2(sum),
                grade.points,
                "{passed} of {of}"
            );
        }
    }

    #[test]
    fn a_class_grade_says_when_it_ran_unsandboxed() {
        let learner = Some(Learner {
            name: "ann".into(),
            submission: "class/ann".into(),
        });
        let unsandboxed = super::super::score::total(vec![lab(7, 7, false)], learner.clone());
        let entry = classroom(&unsandboxed)
            .tests
            .into_iter()
            .find(|t| t.name.ends_with("integrity"));
        assert!(entry.is_some_and(|e| e.message.contains("graded unsandboxed") && e.score == 0.0));
        let sandboxed = super::super::score::total(vec![lab(7, 7, true)], learner);
        assert!(
            !classroom(&sandboxed)
                .tests
                .iter()
                .any(|t| t.name.ends_with("integrity"))
        );
        let own = super::super::score::total(vec![lab(7, 7, false)], None);
        assert!(
            !classroom(&own)
                .tests
                .iter()
                .any(|t| t.name.ends_with("integrity")),
            "a learner's own grade is never sandboxed"
        );
    }
}
