//! The workbook as the CLI sees it: its root, its labs, its settings and the learner's
//! progress. Every command starts from one.

use crate::error::{Error, Result};
use crate::meta::{Lab, Labs};
use crate::predictions::{self, Predictions};
use crate::progress::Progress;
use crate::settings::Settings;
use crate::state_dir;
use colored::Colorize;
use std::path::{Path, PathBuf};

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

    /// The labs named (numbers, ids or folders), or every lab when none is named.
    pub fn chosen(&self, wanted: &[String]) -> Result<Vec<&Lab>> {
        if wanted.is_empty() {
            return Ok(self.labs.labs.iter().collect());
        }
        wanted.iter().map(|w| self.lab(w)).collect()
    }

    /// Where the learner's progress lives (`.labs/`).
    pub fn state_dir(&self) -> &Path {
        &self.state
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
