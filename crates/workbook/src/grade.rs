//! `cargo labs grade`: every lab graded on its own. A lab that does not compile, panics or
//! hangs loses its own points only. Formats: text, JSON, and the GitHub Classroom
//! autograding result (`{version: 1, status, max_score, tests: [...]}`), optionally
//! base64-encoded as the Classroom reporter reads it.

use crate::Failure;
use crate::commands::{Workbook, compare, graded, observe, read_predictions};
use crate::meta::Lab;
use crate::predictions::Predictions;
use labkit::{ObservedAnswer, ObservedCheck, Report};
use serde_json::{Value, json};
use std::path::Path;

/// The git blob id of a file as it is now (what `git hash-object` prints).
pub fn git_blob(root: &Path, path: &str) -> Result<String, String> {
    let out = std::process::Command::new("git")
        .args(["hash-object", "--no-filters", path])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The published files (graded suite, harness, …) that differ from their published
/// version. Learner files are expected to differ and are not listed.
pub fn changed_published_files(root: &Path, lab: &Lab) -> Vec<String> {
    let learner: Vec<String> = lab
        .meta
        .learner_files
        .iter()
        .map(|f| format!("labs/{}/{f}", lab.slug()))
        .collect();
    lab.meta
        .published
        .iter()
        .filter(|(path, _)| !learner.contains(path))
        .filter(|(path, blob)| git_blob(root, path).ok().as_deref() != Some(blob.as_str()))
        .map(|(path, _)| path.clone())
        .collect()
}

/// The report the answer keys describe: used to score predictions when the learner's
/// lab cannot run (the consistency gate proves the keys equal what the lab observes).
fn report_from_keys(lab: &Lab) -> Report {
    Report {
        lab: lab.meta.id.clone(),
        checks: lab
            .meta
            .checks
            .iter()
            .map(|c| ObservedCheck {
                id: c.id(),
                claim: c.claim.clone(),
                holds: c.holds,
            })
            .collect(),
        questions: lab
            .meta
            .questions
            .iter()
            .map(|q| ObservedAnswer {
                id: q.id.clone(),
                answer: q.answer.clone(),
                evidence: "answer key".into(),
            })
            .collect(),
        sqlite: None,
        summary: Value::Null,
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Grades one lab. Never fails: every problem becomes part of the lab's result.
pub fn grade_lab(wb: &Workbook, lab: &Lab) -> Value {
    let mut notes: Vec<String> = Vec::new();
    let (status, tests) = match graded(wb, lab, &lab.meta.package) {
        Ok((_, results)) => ("ran", results),
        Err(failure) => {
            notes.push(failure.message.clone());
            let status = if failure.message.contains("does not compile") {
                "compile-error"
            } else if failure.message.contains("hang") {
                "timeout"
            } else {
                "error"
            };
            (status, Vec::new())
        }
    };
    let passed = tests.iter().filter(|t| t.passed).count();
    let total = tests.len();
    let predictions: Option<Predictions> = match read_predictions(lab) {
        Ok(p) => p,
        Err(failure) => {
            notes.push(failure.message);
            None
        }
    };
    let report = if status == "ran" {
        match observe(wb, lab) {
            Ok(report) => report,
            Err(failure) => {
                notes.push(format!(
                    "{} — predictions scored against the published answer keys",
                    failure.message
                ));
                report_from_keys(lab)
            }
        }
    } else {
        notes.push(
            "the lab did not run: predictions scored against the published answer keys".into(),
        );
        report_from_keys(lab)
    };
    let rows = compare(lab, &predictions.clone().unwrap_or_default(), &report);
    let correct = rows.iter().filter(|r| r.correct).count();
    let answered = predictions.as_ref().map_or(0, |p| p.answered());
    let seal = predictions.as_ref().and_then(|p| p.seal.clone());
    let revised = predictions.as_ref().is_some_and(|p| p.revised_after_seal());
    if revised {
        notes.push("the predictions were revised after they were sealed at the first run".into());
    }
    if answered > 0 && seal.is_none() {
        notes.push("the predictions were never sealed by a run".into());
    }
    let changed = changed_published_files(&wb.root, lab);
    if !changed.is_empty() {
        notes.push(format!(
            "files that differ from the published version: {}",
            changed.join(", ")
        ));
    }
    let points = &lab.meta.points;
    let prediction_points =
        round2(points.predictions as f64 * correct as f64 / rows.len().max(1) as f64);
    // The graded points are earned by the tests the starter fails: a test the starter
    // already passes guards against regressions and is reported, but worth nothing on
    // its own (otherwise an untouched starter would collect points).
    let earns = |name: &str| {
        lab.meta.starter_fails.is_empty() || lab.meta.starter_fails.iter().any(|f| f == name)
    };
    let weights: f64 = tests.iter().filter(|t| earns(&t.name)).count() as f64;
    let share = if weights > 0.0 {
        points.graded as f64 / weights
    } else {
        0.0
    };
    let graded_points: f64 =
        round2(tests.iter().filter(|t| t.passed && earns(&t.name)).count() as f64 * share);
    json!({
        "lab": lab.meta.number,
        "id": lab.meta.id,
        "title": lab.meta.title,
        "status": status,
        "compiled": status == "ran",
        "tests": {
            "passed": passed,
            "total": total,
            "results": tests.iter().map(|t| {
                let max = if earns(&t.name) { round2(share) } else { 0.0 };
                json!({
                    "name": t.name,
                    "passed": t.passed,
                    "points": if t.passed { max } else { 0.0 },
                    "max_points": max,
                })
            }).collect::<Vec<_>>(),
        },
        "predictions": {
            "answered": answered,
            "total": rows.len(),
            "correct": correct,
            "sealed": seal.is_some(),
            "sealed_at": seal.as_ref().map(|s| s.at.clone()),
            "revised_after_seal": revised,
        },
        "integrity": {
            "published_files_changed": changed,
        },
        "points": {
            "predictions": prediction_points,
            "graded": graded_points,
            "total": round2(prediction_points + graded_points),
            "max": points.predictions + points.graded,
            "max_predictions": points.predictions,
            "max_graded": points.graded,
        },
        "notes": notes,
    })
}

/// Grades every lab (or the chosen ones).
pub fn grade_all(wb: &Workbook, only: &[&Lab]) -> Value {
    let labs: Vec<&Lab> = if only.is_empty() {
        wb.labs.iter().collect()
    } else {
        only.to_vec()
    };
    let results: Vec<Value> = labs.iter().map(|lab| grade_lab(wb, lab)).collect();
    let total: f64 = results
        .iter()
        .map(|r| r["points"]["total"].as_f64().unwrap_or(0.0))
        .sum();
    let max: u64 = results
        .iter()
        .map(|r| r["points"]["max"].as_u64().unwrap_or(0))
        .sum();
    json!({
        "workbook": "boundary-labs",
        "labs": results,
        "points": round2(total),
        "max_points": max,
    })
}

/// The GitHub Classroom autograding result: one entry per graded test and one per lab's
/// predictions, each with its share of the lab's points, so partial credit works.
pub fn classroom(grade: &Value) -> Value {
    let mut tests = Vec::new();
    for lab in grade["labs"].as_array().into_iter().flatten() {
        let number = lab["lab"].as_str().unwrap_or("?");
        let id = lab["id"].as_str().unwrap_or("?");
        let graded_max = lab["points"]["max_graded"].as_f64().unwrap_or(0.0);
        let results = lab["tests"]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if results.is_empty() {
            tests.push(json!({
                "name": format!("lab {number} ({id}): graded tests"),
                "status": "error",
                "score": 0,
                "max_score": graded_max,
                "message": lab["notes"].as_array().and_then(|n| n.first()).and_then(Value::as_str).unwrap_or("no graded test ran"),
                "test_code": format!("cargo labs check {number}"),
                "filename": "",
                "line_no": 0,
                "duration": 0,
            }));
        }
        for t in &results {
            let ok = t["passed"].as_bool().unwrap_or(false);
            tests.push(json!({
                "name": format!("lab {number} ({id}): {}", t["name"].as_str().unwrap_or("?")),
                "status": if ok { "pass" } else { "fail" },
                "score": t["points"],
                "max_score": t["max_points"],
                "message": if ok { "" } else { "run `cargo labs check` for the timeline and the replay command" },
                "test_code": format!("cargo labs check {number}"),
                "filename": "",
                "line_no": 0,
                "duration": 0,
            }));
        }
        let p = &lab["predictions"];
        tests.push(json!({
            "name": format!("lab {number} ({id}): predictions"),
            "status": if p["correct"] == p["total"] { "pass" } else { "fail" },
            "score": lab["points"]["predictions"],
            "max_score": lab["points"]["max_predictions"],
            "message": format!(
                "{} of {} correct{}",
                p["correct"], p["total"],
                if p["revised_after_seal"].as_bool().unwrap_or(false) { "; revised after the seal" } else { "" }
            ),
            "test_code": format!("cargo labs run {number}"),
            "filename": "",
            "line_no": 0,
            "duration": 0,
        }));
    }
    let all_pass = tests.iter().all(|t| t["status"] == "pass");
    json!({
        "version": 1,
        "status": if all_pass { "pass" } else { "fail" },
        "max_score": grade["max_points"],
        "tests": tests,
    })
}

/// Standard base64 (RFC 4648), as the Classroom reporter decodes it.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Prints the grade as text.
pub fn print_text(grade: &Value) {
    use colored::Colorize;
    for lab in grade["labs"].as_array().into_iter().flatten() {
        let tests = &lab["tests"];
        let p = &lab["predictions"];
        println!(
            "{} {:<45} tests {}/{}  predictions {}/{}{}  points {}/{}",
            lab["lab"].as_str().unwrap_or("?").bold(),
            lab["title"].as_str().unwrap_or(""),
            tests["passed"],
            tests["total"],
            p["correct"],
            p["total"],
            if p["sealed"].as_bool().unwrap_or(false) {
                " (sealed)"
            } else {
                ""
            },
            lab["points"]["total"],
            lab["points"]["max"]
        );
        for note in lab["notes"].as_array().into_iter().flatten() {
            let note = note.as_str().unwrap_or("");
            println!(
                "    {} {}",
                "note:".yellow(),
                note.lines().next().unwrap_or("")
            );
        }
    }
    println!(
        "\n{} {} / {}",
        "total:".bold(),
        grade["points"],
        grade["max_points"]
    );
}

/// `cargo labs grade [--json | --classroom [--base64]] [LAB…]`.
pub fn run(wb: &Workbook, format: &str, only: &[String]) -> Result<(), Failure> {
    let chosen: Vec<&Lab> = only.iter().map(|w| wb.lab(w)).collect::<Result<_, _>>()?;
    let grade = grade_all(wb, &chosen);
    match format {
        "json" => println!(
            "{}",
            serde_json::to_string_pretty(&grade).unwrap_or_default()
        ),
        "classroom" => println!(
            "{}",
            serde_json::to_string_pretty(&classroom(&grade)).unwrap_or_default()
        ),
        "classroom-base64" => println!("{}", base64(classroom(&grade).to_string().as_bytes())),
        _ => print_text(&grade),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_rfc_4648_test_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(plain.as_bytes()), encoded);
        }
    }
}
