//! Grading, in one home: the typed grade (`model`), scoring (`score`), the one
//! build-and-run path (`run`, over `build` and `suite`) and the formats (`format`).
//! `cargo labs check`, `grade`, `grade-class` and `watch`, and the gates, all grade
//! through here.

pub mod build;
pub mod format;
pub mod model;
pub mod run;
pub mod score;
pub mod suite;

pub use format::Format;
pub use model::*;
pub use run::{GradedSuite, LabRun, RunEnv, SuiteRun, TestRun};
pub use score::{LabEvidence, broken_lab, grade_lab, total};

use crate::meta::Lab;
use crate::settings::Settings;
use std::path::Path;

/// What a caller of [`grade_labs`] knows of one lab's learner, besides the run.
pub struct LearnerEvidence {
    pub predictions: Result<Option<crate::predictions::Predictions>, String>,
    pub first_seal: Option<crate::predictions::Seal>,
    pub source: PredictionSource,
    pub integrity: Integrity,
    pub notes: Vec<String>,
}

/// Builds and runs the labs of the workbook at `tree` and grades each with `settings`;
/// what is known of each lab's learner comes from `evidence`.
pub fn grade_labs(
    tree: &Path,
    labs: &[&Lab],
    settings: &Settings,
    env: &RunEnv<'_>,
    mut evidence: impl FnMut(&Lab) -> LearnerEvidence,
) -> Vec<LabGrade> {
    let suites: Vec<GradedSuite> = labs
        .iter()
        .map(|l| GradedSuite::of(l, tree, settings))
        .collect();
    let runs = run::build_and_run(tree, &suites, env);
    labs.iter()
        .zip(suites)
        .zip(runs)
        .map(|((lab, suite), run)| {
            let known = evidence(lab);
            grade_lab(LabEvidence {
                lab,
                predictions: known.predictions,
                first_seal: known.first_seal,
                source: known.source,
                mode: settings.prediction_mode(&lab.meta.number),
                run,
                expected: suite.expected,
                integrity: known.integrity,
                notes: known.notes,
            })
        })
        .collect()
}

/// The integrity scan of a lab's learner files as they are in `tree`.
pub fn scan_learner_files(tree: &Path, lab: &Lab) -> crate::integrity::Scan {
    let mut all = crate::integrity::Scan::default();
    for file in &lab.meta.learner_files {
        let path = lab.learner_path(file);
        if let Ok(source) = std::fs::read_to_string(tree.join(&path)) {
            let scan = crate::integrity::scan(&path, &source);
            all.notes.extend(scan.notes);
            all.refused |= scan.refused;
        }
    }
    all
}

/// The published files (graded suite, harness, …) that differ from their published
/// version under `root`. Learner files are expected to differ and are not listed. Only
/// regular files of a learner file's size are read: anything else (a link to /dev/zero, a
/// missing file) counts as changed.
pub fn changed_published_files(root: &Path, lab: &Lab, max_bytes: u64) -> Vec<String> {
    let learner: Vec<String> = lab
        .meta
        .learner_files
        .iter()
        .map(|f| lab.learner_path(f))
        .collect();
    lab.meta
        .published
        .iter()
        .filter(|(path, _)| !learner.contains(path))
        .filter(|(path, blob)| {
            let path = root.join(path);
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_file() && meta.len() <= max_bytes => {
                    crate::blob::file_blob(&path).ok().as_deref() != Some(blob.as_str())
                }
                // Not a regular file, too large, or gone: not the published one.
                _ => true,
            }
        })
        .map(|(path, _)| path.clone())
        .collect()
}
