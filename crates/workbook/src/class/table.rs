//! What a teacher reads of a class: one row per learner and lab — status, points and an
//! attention list of every note — as CSV, and the same as a terminal summary, so the JSON
//! is never needed to act.

use crate::grade::{Grade, LabGrade, LabStatus, Note};
use serde::{Deserialize, Serialize};

/// One row of the class table: a learner and a lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub learner: String,
    pub submission: String,
    pub lab: String,
    pub status: LabStatus,
    pub graded_points: f64,
    pub graded_max: f64,
    pub prediction_points: f64,
    pub prediction_max: f64,
    pub tests_passed: usize,
    pub tests_expected: usize,
    /// Everything worth reading, most important first: why the lab was not graded, why
    /// points were lost, and what a reviewer should look at.
    pub attention: Vec<String>,
    pub sandboxed: bool,
}

/// The attention list of one lab: its status's reason, its notes, its integrity notes
/// (most serious first).
pub fn attention(lab: &LabGrade) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(reason) = &lab.reason {
        // A first line that announces what follows ("… The compiler said:") takes the
        // next line with it, so that the summary and the CSV say what went wrong.
        let mut lines = reason.lines().map(str::trim).filter(|l| !l.is_empty());
        let first = lines.next().unwrap_or_default();
        let said = match (first.ends_with(':'), lines.next()) {
            (true, Some(next)) => format!("{first} {}", crate::text::strip_ansi(next)),
            _ => first.to_string(),
        };
        out.push(format!("{}: {said}", lab.status.words()));
    }
    out.extend(
        lab.notes
            .iter()
            .map(|n| n.lines().next().unwrap_or_default().to_string()),
    );
    out.extend(lab.integrity.notes.iter().map(|n| {
        format!(
            "{}: {}",
            format!("{:?}", n.severity).to_lowercase(),
            Note::one_line(n)
        )
    }));
    out
}

/// One row per learner and lab, from their grades.
pub fn rows(learners: &[Grade]) -> Vec<Row> {
    let mut rows = Vec::new();
    for grade in learners {
        let (name, submission) = grade
            .learner
            .as_ref()
            .map(|l| (l.name.clone(), l.submission.clone()))
            .unwrap_or_default();
        for lab in &grade.labs {
            rows.push(Row {
                learner: name.clone(),
                submission: submission.clone(),
                lab: lab.lab.clone(),
                status: lab.status,
                graded_points: lab.points.graded,
                graded_max: lab.points.max_graded,
                prediction_points: lab.points.predictions,
                prediction_max: lab.points.max_predictions,
                tests_passed: lab.tests.passed,
                tests_expected: lab.tests.expected,
                attention: attention(lab),
                sandboxed: lab.integrity.sandboxed,
            });
        }
    }
    rows
}

/// A CSV field (RFC 4180: fields with a comma, a quote or a line break are quoted).
pub fn field(text: &str) -> String {
    // A cell a spreadsheet would take for a formula (a learner's folder named `=HYPERLINK(…)`)
    // is kept as text, as OWASP's advice on CSV injection says.
    let text = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// `text` for one line of the terminal: a control character (a newline in a folder's
/// name could print a row of its own) shows as `�`.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// The rows as CSV.
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "learner,submission,lab,status,graded_points,graded_max,prediction_points,prediction_max,tests_passed,tests_expected,attention,sandboxed\n",
    );
    for r in rows {
        let status = serde_json::to_value(r.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            field(&r.learner),
            field(&r.submission),
            field(&r.lab),
            status,
            r.graded_points,
            r.graded_max,
            r.prediction_points,
            r.prediction_max,
            r.tests_passed,
            r.tests_expected,
            field(&r.attention.join(" | ")),
            r.sandboxed
        ));
    }
    out
}

/// The terminal summary: a line per learner, then per lab what needs attention.
pub fn summary(learners: &[Grade]) -> String {
    let mut out = String::new();
    for grade in learners {
        let name = one_line(grade.learner.as_ref().map_or("?", |l| l.name.as_str()));
        out.push_str(&format!(
            "{name:<24} {:>7} / {}\n",
            grade.points, grade.max_points
        ));
        if let Some(found) = &grade.found_in {
            let found = one_line(found);
            out.push_str(&format!("    (the workbook was found in {found})\n"));
        }
        for lab in &grade.labs {
            for line in attention(lab) {
                out.push_str(&format!("    lab {}: {line}\n", lab.lab));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_a_spreadsheet_would_run_stays_text_and_a_name_stays_on_its_line() {
        assert_eq!(field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(field("@sum"), "'@sum");
        assert_eq!(field("ann"), "ann");
        assert_eq!(one_line("ann\nbob 60 / 60"), "ann\u{fffd}bob 60 / 60");
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let row = Row {
            learner: "ann, b".into(),
            submission: "class/ann, b".into(),
            lab: "01".into(),
            status: LabStatus::DidNotCompile,
            graded_points: 0.0,
            graded_max: 20.0,
            prediction_points: 5.5,
            prediction_max: 10.0,
            tests_passed: 0,
            tests_expected: 7,
            attention: vec!["relay.rs reads \"/proc\"".into()],
            sandboxed: true,
        };
        let text = csv(&[row]);
        assert!(
            text.ends_with(
                "\"ann, b\",\"class/ann, b\",01,did-not-compile,0,20,5.5,10,0,7,\"relay.rs reads \"\"/proc\"\"\",true\n"
            ),
            "{text}"
        );
    }
}
