//! The catalogue of wrong solutions (teacher's edition only): per lab, under
//! `solutions/NN-slug/mutants/<name>/`, the learner files with one conceptual mistake and
//! a `mutant.toml`:
//!
//! ```toml
//! misconception = "A lost response means the receiver did not apply the effect."
//! section = "01-outbox.md#what-the-run-shows"     # where the chapter teaches it
//! rejected_by = ["no_effect_is_applied_twice_when_the_relay_crashes"]
//! explains = ["applied it 2 times"]                # what the first failure must say
//!
//! [signature]                                      # how the graded run fails
//! fails = ["…", "…"]                               # every failing test, in suite order
//! invariant = "no effect is applied twice"         # the first failure's invariant
//! ```
//!
//! The gate (`crates/workbook/tests/mutants.rs`) proves every entry compiles, fails each
//! test it names, and fails exactly as its signature says. `cargo labs check` names an
//! entry's misconception when a learner's run fails with the same signature — a diagnosis
//! every entry's mutant proves, shipped scrambled in the student edition's key.

use crate::grade::SuiteRun;
use crate::meta::{Diagnosis, Lab, Signature};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One entry's `mutant.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MutantMeta {
    pub misconception: String,
    pub section: String,
    pub rejected_by: Vec<String>,
    /// Phrases the first failing test's output must contain: its explanation, tested
    /// against the schedule it explains.
    #[serde(default)]
    pub explains: Vec<String>,
    #[serde(default)]
    pub signature: Signature,
}

/// One wrong solution of the catalogue.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub name: String,
    /// Its folder: the learner files (same relative paths as in the lab) and mutant.toml.
    pub dir: PathBuf,
    pub meta: MutantMeta,
}

/// The catalogue folder of a lab: `solutions/<slug>/mutants` beside `labs/<slug>`.
pub fn catalogue_dir(lab: &Lab) -> Option<PathBuf> {
    let root = lab.dir.parent()?.parent()?;
    Some(root.join("solutions").join(lab.slug()).join("mutants"))
}

/// The lab's catalogue, sorted by name (empty when there is none, as in the student
/// edition).
pub fn catalogue(lab: &Lab) -> Result<Vec<Mutant>, String> {
    let Some(dir) = catalogue_dir(lab) else {
        return Ok(Vec::new());
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut mutants = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let toml_path = path.join("mutant.toml");
        if !toml_path.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&toml_path)
            .map_err(|e| format!("{}: {e}", toml_path.display()))?;
        let meta: MutantMeta =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", toml_path.display()))?;
        mutants.push(Mutant {
            name: entry.file_name().to_string_lossy().into_owned(),
            dir: path,
            meta,
        });
    }
    mutants.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(mutants)
}

/// The diagnoses of a lab's catalogue (teacher's edition).
pub fn diagnoses(lab: &Lab) -> Result<Vec<Diagnosis>, String> {
    Ok(catalogue(lab)?
        .into_iter()
        .filter(|m| !m.meta.signature.fails.is_empty())
        .map(|m| Diagnosis {
            misconception: m.meta.misconception,
            section: m.meta.section,
            signature: m.meta.signature,
        })
        .collect())
}

/// The invariant a failing test's output reports (`invariant violated: X (lab …`), also
/// when a narrow terminal wrapped the header onto indented continuation lines.
pub fn reported_invariant(output: &str) -> Option<String> {
    let mut lines = output.lines();
    let first = lines.find_map(|l| l.trim().strip_prefix("invariant violated: "))?;
    let mut header = first.to_string();
    for next in lines {
        if header.contains(" (lab ") || !next.starts_with("  ") || next.trim().is_empty() {
            break;
        }
        header.push(' ');
        header.push_str(next.trim());
    }
    Some(
        header
            .split(" (lab ")
            .next()
            .unwrap_or(&header)
            .trim()
            .to_string(),
    )
}

/// How `run` failed.
pub fn signature(run: &SuiteRun) -> Signature {
    let failing: Vec<_> = run.tests.iter().filter(|t| !t.passed()).collect();
    Signature {
        fails: failing.iter().map(|t| t.name.clone()).collect(),
        invariant: failing.first().and_then(|t| reported_invariant(&t.output)),
    }
}

/// The diagnoses whose signature `run` matches exactly; none when it passed.
pub fn diagnose<'a>(lab: &'a Lab, run: &SuiteRun) -> Vec<&'a Diagnosis> {
    let seen = signature(run);
    if seen.fails.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<&Diagnosis> = lab
        .key
        .diagnoses
        .iter()
        .filter(|d| d.signature == seen)
        .collect();
    found.dedup_by(|a, b| a.misconception == b.misconception);
    found
}

/// The learner files of `mutant` for `lab`, as (relative path in the lab, absolute path).
pub fn learner_files(lab: &Lab, mutant: &Mutant) -> Vec<(String, PathBuf)> {
    lab.meta
        .learner_files
        .iter()
        .map(|f| (f.clone(), mutant.dir.join(f)))
        .collect()
}

/// The book page a section pointer names, for messages: `book/src/01-outbox.md#…`.
pub fn section_path(section: &str) -> String {
    format!("book/src/{section}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::{TestOutcome, TestRun};

    fn test(name: &str, passed: bool, output: &str) -> TestRun {
        TestRun {
            name: name.into(),
            outcome: if passed {
                TestOutcome::Passed
            } else {
                TestOutcome::Failed
            },
            output: output.into(),
            detail: None,
        }
    }

    #[test]
    fn a_wrapped_header_still_names_its_invariant() {
        let output = "invariant violated: every intent is marked sent in the\n  end (lab 01, scenario relay, 2 faults)\nfaults: x\n";
        assert_eq!(
            reported_invariant(output).as_deref(),
            Some("every intent is marked sent in the end")
        );
    }

    #[test]
    fn a_signature_is_the_failing_tests_and_the_first_invariant() {
        let run = SuiteRun {
            tests: vec![
                test("a", true, ""),
                test(
                    "b",
                    false,
                    "\ninvariant violated: no effect is applied twice (lab 01, scenario relay, 1 fault)\n",
                ),
                test("c", false, "assertion failed"),
            ],
            ..SuiteRun::default()
        };
        assert_eq!(
            signature(&run),
            Signature {
                fails: vec!["b".into(), "c".into()],
                invariant: Some("no effect is applied twice".into()),
            }
        );
        let green = SuiteRun {
            tests: vec![test("a", true, "")],
            ..SuiteRun::default()
        };
        assert_eq!(signature(&green).fails, Vec::<String>::new());
    }
}
