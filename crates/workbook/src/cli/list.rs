//! `cargo labs list`.

use super::{Command, Section};
use crate::error::Result;
use crate::workbook::Workbook;
use colored::Colorize;

pub const COMMAND: Command = Command {
    name: "list",
    section: Section::Learner,
    usage: "cargo labs list",
    about: "the labs, their ids and chapters",
    run: |wb, args| {
        args.none()?;
        list(wb)
    },
};

/// `cargo labs list`.
pub fn list(wb: &Workbook) -> Result<()> {
    for lab in &wb.labs.labs {
        println!(
            "{}  {:<14} {:<45} {}",
            lab.meta.number.bold(),
            lab.meta.id,
            lab.meta.title,
            lab.meta.chapter
        );
    }
    for broken in &wb.labs.broken {
        println!(
            "{}  cannot be used: {}",
            broken.number().bold(),
            broken.problem
        );
    }
    Ok(())
}
