//! The learner's commands. Each one reads the lab's metadata, builds and runs what it
//! needs as child processes with the lab's time limit, and prints for a person.

mod check;
mod predict;
mod run;
mod status;
mod tools;

pub use check::{
    LabEvidencePart, changed_published_files, check, fast_tmp, grade, grade_tree, graded_run,
    print_grade, scan_learner_files, terminal_columns,
};
pub use predict::{predict, seal_only};
pub use run::{observe, run};
pub use status::{list, status};
pub use tools::{
    STALE_TOKEN_EXIT, STARTERS, book, figures, hint, published_starter, replay, reset,
};

use crate::compile::{self, Artifact, BuildEnv, BuildProblem};
use crate::error::{Error, Result};
use crate::meta::{Lab, Labs};
use crate::predictions::{self, Predictions};
use crate::progress::Progress;
use crate::settings::Settings;
use crate::state_dir;
use colored::Colorize;
use std::path::{Path, PathBuf};

/// The workbook as the CLI sees it: its root, its labs, its settings and the learner's
/// progress.
pub struct Workbook {
    pub root: PathBuf,
    pub labs: Labs,
    pub settings: Settings,
    state: PathBuf,
}

impl Workbook {
    pub fn load(root: PathBuf) -> Result<Workbook> {
        let labs = crate::meta::load_labs(&root)?;
        let settings = Settings::load(&root)?;
        let state = state_dir(&root);
        Ok(Workbook {
            root,
            labs,
            settings,
            state,
        })
    }

    pub fn lab(&self, wanted: &str) -> Result<&Lab> {
        self.labs.find(wanted)
    }

    pub fn progress(&self) -> Result<Progress> {
        let (progress, note) = Progress::open(&self.state).map_err(Error::input)?;
        if let Some(note) = note {
            let restored = self.rebuild(&progress);
            // A fresh clone has no store and nothing to restore: nothing worth saying.
            if restored > 0 || !note.starts_with("there was no progress store") {
                eprintln!(
                    "{} {note} ({restored} prediction seal(s) restored)",
                    "note:".yellow().bold()
                );
            }
        }
        Ok(progress)
    }

    /// Restores what the learner's files prove: the intact seals of predictions.txt.
    /// Returns how many seals it restored.
    fn rebuild(&self, progress: &Progress) -> usize {
        let mut restored = 0;
        for lab in &self.labs.labs {
            if let Ok(Some(p)) = read_predictions(lab)
                && let Some(seal) = p.seal.filter(|s| s.intact(lab))
                && progress.record_seal(&lab.meta.id, &seal).is_ok()
            {
                restored += 1;
            }
        }
        restored
    }

    /// A path as the learner would type it: relative to the workbook's root.
    pub fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// Reads and parses a lab's predictions; `None` when the file does not exist.
pub fn read_predictions(lab: &Lab) -> Result<Option<Predictions>> {
    let path = lab.predictions_path();
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(predictions::parse(lab, &text)?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::reading(&path, e)),
    }
}

fn check_mark(ok: bool) -> colored::ColoredString {
    if ok {
        "✓".green().bold()
    } else {
        "✗".red().bold()
    }
}

/// Builds `lab`'s own binary (observe, replay, figures) and returns its path.
pub fn lab_binary(wb: &Workbook, lab: &Lab) -> Result<PathBuf> {
    let limit = std::time::Duration::from_secs(wb.settings.limits.build_time_limit_secs);
    let built = compile::build(
        &wb.root,
        &[&lab.meta.package],
        Artifact::LabBinary,
        &BuildEnv::default(),
        limit,
    )?;
    built
        .executable(&lab.meta.package)
        .map(Path::to_path_buf)
        .map_err(|problem| build_error(lab, problem))
}

/// A build problem, in words that name the lab and the way out.
pub fn build_error(lab: &Lab, problem: BuildProblem) -> Error {
    let n = &lab.meta.number;
    match problem {
        BuildProblem::DoesNotCompile(errors) => Error::lab(format!(
            "lab {n} does not compile. The compiler said:\n{}",
            crate::text::for_terminal(&crate::process::tail(&errors, 60))
        )),
        BuildProblem::TimedOut => Error::lab(format!(
            "lab {n} did not build within the time limit; try again, or `cargo build -p {}` to see why",
            lab.meta.package
        )),
        BuildProblem::Cancelled => Error::Interrupted,
        BuildProblem::Failed(why) => Error::lab(format!("lab {n} could not be built: {why}")),
    }
}
