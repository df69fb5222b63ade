//! `cargo labs reset N`: the starter's learner files back, the learner's kept as backups.

use super::{Command, Section};
use crate::error::{Error, Result};
use crate::meta::Lab;
use crate::starters::published_starter;
use crate::workbook::Workbook;
use crate::{backup, write_atomically};
use colored::Colorize;

pub const COMMAND: Command = Command {
    name: "reset",
    section: Section::Learner,
    usage: "cargo labs reset N",
    about: "restore the starter files (yours are kept as .backup-N files)",
    run: |wb, args| reset(wb, wb.lab(&args.one()?)?),
};

/// `cargo labs reset N`: restores the starter's learner files, keeping a backup of yours.
pub fn reset(wb: &Workbook, lab: &Lab) -> Result<()> {
    // Read every pristine file first, so a missing one changes nothing at all.
    let mut plan = Vec::new();
    for file in &lab.meta.learner_files {
        let text = published_starter(&wb.root, lab, file)
            .map_err(|e| Error::input(format!("cannot reset {file}: {e}. Nothing was changed.")))?;
        plan.push((lab.dir.join(file), text));
    }
    let mut restored = Vec::new();
    for (path, text) in plan {
        if path.exists() {
            let current = std::fs::read_to_string(&path).unwrap_or_default();
            if current == text {
                continue;
            }
            let saved = backup(&path).map_err(|e| Error::writing(&path, e))?;
            println!("your version is kept as {}", saved.display());
        }
        write_atomically(&path, &text).map_err(|e| Error::writing(&path, e))?;
        restored.push(wb.shown(&path));
    }
    if restored.is_empty() {
        println!("lab {} already holds the starter files", lab.meta.number);
    } else {
        println!("{} {}", "restored".green().bold(), restored.join(", "));
    }
    Ok(())
}
