//! Copied code: the learner files of a class compared with each other, with the teacher's
//! reference solution and with the catalogue's wrong solutions (`crate::similarity`,
//! winnowed fingerprints of the files' tokens, the starter's text discounted). Each pair
//! the detector names becomes a serious note on the learners it names, so it reaches the
//! summary, the CSV, the JSON and Classroom.

use crate::grade::{Grade, Note, Severity};
use crate::meta::Lab;
use crate::similarity::{self, Document, Lines, Pair, Settings};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One learner file as a submission gave it.
pub struct Taken {
    pub learner: String,
    pub lab: String,
    /// The file's path in the workbook (`labs/01-outbox/src/relay.rs`).
    pub path: String,
    pub text: String,
}

/// A pair of learner files (or a learner file and a teacher's file) that look copied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodePair {
    pub lab: String,
    pub pair: Pair,
}

/// The teacher's files a submission is compared with: the reference solution's, and
/// each catalogue entry's where it differs from the reference.
fn references(root: &Path, lab: &Lab, file: &str) -> Vec<Document> {
    let reference =
        std::fs::read_to_string(root.join("solutions").join(lab.slug()).join(file)).ok();
    let mut out: Vec<Document> = reference
        .iter()
        .map(|text| Document::new("reference", file, text.clone()))
        .collect();
    for mutant in crate::mutants::catalogue(lab).unwrap_or_default() {
        let Ok(files) = crate::mutants::learner_files(lab, &mutant) else {
            continue;
        };
        for (name, text) in files.into_iter().filter(|(name, _)| name == file) {
            if Some(&text) != reference.as_ref() {
                out.push(Document::new(
                    format!("catalogue:{}", mutant.name),
                    name,
                    text,
                ));
            }
        }
    }
    out
}

/// Every named pair of the class, per lab and learner file.
pub fn copied(root: &Path, pristine: &Path, labs: &[&Lab], taken: &[Taken]) -> Vec<CodePair> {
    let settings = Settings::default();
    let mut found = Vec::new();
    for lab in labs {
        for file in &lab.meta.learner_files {
            let path = lab.learner_path(file);
            let starter = std::fs::read_to_string(pristine.join(&path)).unwrap_or_default();
            let submissions: Vec<Document> = (taken.iter())
                .filter(|t| t.lab == lab.meta.number && t.path == path)
                .map(|t| Document::new(t.learner.clone(), path.clone(), t.text.clone()))
                .collect();
            let references = references(root, lab, file);
            let pairs = similarity::pairs(&submissions, &starter, &references, &settings);
            // A catalogue entry is the reference with one mistake: a file that is named
            // beside the reference says nothing more beside the entry.
            let beside_reference = |learner: &str| {
                pairs
                    .iter()
                    .any(|p| p.left == learner && p.right == "reference")
            };
            for pair in pairs
                .iter()
                .filter(|p| !(p.right.starts_with("catalogue:") && beside_reference(&p.left)))
            {
                found.push(CodePair {
                    lab: lab.meta.number.clone(),
                    pair: pair.clone(),
                });
            }
        }
    }
    found
}

fn ranges(lines: &[Lines]) -> String {
    let shown: Vec<String> = lines
        .iter()
        .map(|l| {
            if l.first == l.last {
                l.first.to_string()
            } else {
                format!("{}–{}", l.first, l.last)
            }
        })
        .collect();
    shown.join(", ")
}

/// Adds each pair to the grades of the learners it names.
pub fn note(pairs: &[CodePair], learners: &mut [Grade]) {
    for CodePair { lab, pair } in pairs {
        let percent = (pair.share * 100.0).round();
        for (me, other, mine, theirs) in [
            (&pair.left, &pair.right, &pair.left_lines, &pair.right_lines),
            (&pair.right, &pair.left, &pair.right_lines, &pair.left_lines),
        ] {
            let (whose, their_lines) = match other.as_str() {
                "reference" => (
                    "the reference solution".to_string(),
                    "the reference's lines".to_string(),
                ),
                o if o.starts_with("catalogue:") => (
                    format!("the catalogue's wrong solution `{}`", &o[10..]),
                    "the entry's lines".to_string(),
                ),
                o => (format!("{o}'s"), format!("{o}'s lines")),
            };
            let Some(grade) = learners
                .iter_mut()
                .find(|g| g.learner.as_ref().is_some_and(|l| &l.name == me))
            else {
                continue;
            };
            let Some(graded) = grade.labs.iter_mut().find(|l| &l.lab == lab) else {
                continue;
            };
            let mut note = Note::new(
                Severity::Serious,
                format!(
                    "shares {percent} % of its fingerprints ({} tokens) with {whose} (lines {} here; {their_lines} {}): read both before you grade",
                    pair.matched_tokens,
                    ranges(mine),
                    ranges(theirs)
                ),
            );
            note.file = Some(pair.file.clone());
            note.lines = mine.iter().map(|l| l.first).collect();
            graded.integrity.notes.insert(0, note);
        }
    }
}
