//! The catalogue of wrong solutions (teacher's edition only): per lab, under
//! `solutions/NN-slug/mutants/<name>/`, a `mutant.toml` that states one conceptual
//! mistake and makes it as edits of the reference solution's learner files:
//!
//! ```toml
//! misconception = "A lost response means the receiver did not apply the effect."
//! section = "01-outbox.md#what-the-run-shows"     # where the chapter teaches it
//! rejected_by = ["no_effect_is_applied_twice_when_the_relay_crashes"]
//! explains = ["applied it 2 times"]                # what the first failure must say
//! # How the graded run fails: every failing test, in suite order, and the first
//! # failure's invariant (blessed, not written by hand).
//! signature = { fails = ["…"], invariant = "no effect is applied twice" }
//!
//! [[edit]]                                         # one or more, see [`Edit`]
//! file = "src/relay.rs"                            # only when the lab has several
//! find = '        mark_sent(intent);'              # the solution's text, found once
//! replace = ''                                     # the mistaken text
//! ```
//!
//! [`gate`] applies the edits ([`learner_files`]), builds every entry as a crate of its
//! own on the lab's harness, and proves it compiles, fails each test it names, and fails
//! exactly as its signature says; an edit that no longer applies to the solution is
//! named there. The gate (`crates/gates/tests/gates/mutants.rs`) runs it, and
//! `cargo labs bless` runs it to record the signatures the runs show.
//! `cargo labs check` names the entries nearest to how a learner's run failed (see
//! [`nearest`]: an identical signature, or the same broken invariant and the most
//! telling failing tests in common) — diagnoses every entry's mutant proves, shipped
//! scrambled in the student edition's key.

mod edits;
pub mod gate;
mod nearest;

pub use edits::{Edit, EditError, apply_edits, apply_to_files, first_line};
pub use nearest::{Failure, Nearest, nearest};

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
    /// The mistake, as edits of the reference solution's learner files (`[[edit]]`).
    #[serde(default, rename = "edit")]
    pub edits: Vec<Edit>,
    #[serde(default)]
    pub signature: Signature,
}

/// One wrong solution of the catalogue.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub name: String,
    /// Its folder, which holds its mutant.toml.
    pub dir: PathBuf,
    pub meta: MutantMeta,
}

/// The reference solution of a lab: `solutions/<slug>` beside `labs/<slug>`.
pub fn solution_dir(lab: &Lab) -> Option<PathBuf> {
    let root = lab.dir.parent()?.parent()?;
    Some(root.join("solutions").join(lab.slug()))
}

/// The catalogue folder of a lab: `solutions/<slug>/mutants`.
pub fn catalogue_dir(lab: &Lab) -> Option<PathBuf> {
    Some(solution_dir(lab)?.join("mutants"))
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

/// Why one entry of a lab's catalogue cannot be written: its edits do not apply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("lab {lab} mutant `{entry}`: {problem}")]
pub struct EntryError {
    pub lab: String,
    pub entry: String,
    pub problem: Box<EditError>,
}

/// The learner files of `mutant`, as (path relative to the lab's folder, text): the
/// reference solution's, with the entry's edits applied.
pub fn learner_files(lab: &Lab, mutant: &Mutant) -> Result<Vec<(String, String)>, EntryError> {
    let solution = solution_dir(lab);
    let read = |file: &str| {
        let path = solution
            .as_ref()
            .ok_or_else(|| format!("{} has no workbook around it", lab.dir.display()))?
            .join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((text, format!("solutions/{}/{file}", lab.slug())))
    };
    apply_to_files(&lab.meta.learner_files, &mutant.meta.edits, read).map_err(|problem| {
        EntryError {
            lab: lab.meta.number.clone(),
            entry: mutant.name.clone(),
            problem: Box::new(problem),
        }
    })
}

/// `signature` as a TOML inline table, on one line.
fn inline(signature: &Signature) -> String {
    let quoted = |text: &str| toml::Value::String(text.to_string()).to_string();
    let fails: Vec<String> = signature.fails.iter().map(|f| quoted(f)).collect();
    match &signature.invariant {
        Some(invariant) => format!(
            "{{ fails = [{}], invariant = {} }}",
            fails.join(", "),
            quoted(invariant)
        ),
        None => format!("{{ fails = [{}] }}", fails.join(", ")),
    }
}

/// `text` (a mutant.toml) with its signature replaced by `signature`: what `BLESS=1`
/// writes, on the `signature = { … }` line that ends the entry's head, leaving the rest
/// as it was written.
pub fn with_signature(text: &str, signature: &Signature) -> String {
    let line = format!("signature = {}", inline(signature));
    // An entry written before the signature moved to the head kept it as a last table.
    let text = text.rfind("\n[signature]\n").map_or(text, |at| &text[..at]);
    let head_end = text.find("\n[[edit]]").map_or(text.len(), |i| i + 1);
    let (head, edits) = text.split_at(head_end);
    let mut head: Vec<&str> = (head.lines())
        .filter(|l| !l.starts_with("signature = ") && !l.is_empty())
        .collect();
    head.push(&line);
    format!("{}\n\n{}", head.join("\n"), edits.trim_start_matches('\n'))
        .trim_end()
        .to_string()
        + "\n"
}

/// The book page a section pointer names, for messages: `book/src/01-outbox.md#…`, or
/// the chapter's page after the run when the section is there.
pub fn section_path(root: &std::path::Path, section: &str) -> String {
    let src = root.join("book/src");
    format!("book/src/{}", crate::pages::section_page(&src, section))
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

    const ENTRY: &str = "misconception = \"m\"\nsection = \"01-outbox.md#s\"\nrejected_by = [\"t\"]\nsignature = { fails = [\"t\"] }\n\n[[edit]]\nfile = \"src/relay.rs\"\nfind = '''\n    mark_sent();\n'''\nreplace = ''\n";

    #[test]
    fn an_entry_reads_its_edits() {
        let meta: MutantMeta = toml::from_str(ENTRY).unwrap();
        assert_eq!(
            meta.edits,
            vec![Edit {
                file: Some("src/relay.rs".into()),
                find: "    mark_sent();\n".into(),
                replace: String::new(),
            }]
        );
        assert_eq!(meta.signature.fails, vec!["t".to_string()]);
    }

    #[test]
    fn blessing_rewrites_the_signature_and_nothing_else() {
        let seen = Signature {
            fails: vec!["t".into(), "u".into()],
            invariant: Some("i".into()),
        };
        let blessed = with_signature(ENTRY, &seen);
        let (before, after) = ENTRY.split_once("signature = ").unwrap();
        assert!(blessed.starts_with(before), "{blessed}");
        assert!(
            blessed.ends_with(after.split_once('\n').unwrap().1),
            "{blessed}"
        );
        assert!(blessed.contains("signature = { fails = [\"t\", \"u\"], invariant = \"i\" }\n"));
        let meta: MutantMeta = toml::from_str(&blessed).unwrap();
        assert_eq!(meta.signature, seen);
        assert_eq!(with_signature(&blessed, &seen), blessed);
        let unsigned = ENTRY.replace("signature = { fails = [\"t\"] }\n", "");
        let signed: MutantMeta = toml::from_str(&with_signature(&unsigned, &seen)).unwrap();
        assert_eq!(signed.signature, seen);
        // The old form, a last [signature] table, is moved to the head.
        let old = format!("{unsigned}\n[signature]\nfails = [\"t\"]\n");
        assert_eq!(with_signature(&old, &seen), blessed);
    }
}
