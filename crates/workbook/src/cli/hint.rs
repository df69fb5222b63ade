//! `cargo labs hint N`: one hint at a time.

use super::{Command, Section};
use crate::error::Result;
use crate::meta::Lab;
use crate::workbook::Workbook;
use colored::Colorize;

pub const COMMAND: Command = Command {
    name: "hint",
    section: Section::Learner,
    usage: "cargo labs hint N",
    about: "one more hint",
    run: |wb, args| hint(wb, wb.lab(&args.one()?)?),
};

/// `cargo labs hint N`: the next hint, one at a time.
pub fn hint(wb: &Workbook, lab: &Lab) -> Result<()> {
    let progress = wb.progress()?;
    let hints = &lab.key.hints;
    let shown = progress.hints_shown(&lab.meta.id);
    let total = hints.len();
    let index = shown.min(total.saturating_sub(1));
    for (i, text) in hints.iter().enumerate().take(index) {
        println!(
            "{} {}",
            format!("hint {}/{total}:", i + 1).dimmed(),
            text.dimmed()
        );
    }
    match hints.get(index) {
        Some(text) => println!("{} {text}", format!("hint {}/{total}:", index + 1).bold()),
        None => println!("lab {} has no hints", lab.meta.number),
    }
    if shown < total {
        progress.set_hints_shown(&lab.meta.id, shown + 1)?;
    }
    if index + 1 == total {
        println!("(that was the last hint; the chapter and the failing timeline say the rest)");
    }
    Ok(())
}
