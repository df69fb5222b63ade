//! `cargo labs export DIR [--grader OWNER/REPO@COMMIT]`: the student edition.

use super::{Command, Section};

pub const COMMAND: Command = Command {
    name: "export",
    section: Section::Teacher,
    usage: "cargo labs export DIR [--grader OWNER/REPO@COMMIT]",
    about: "write the student edition into DIR: the starters, the book, the kit and the graded suites,\nand nothing that answers a prediction. --grader pins the copy that grades its Classroom workflow",
    run: |wb, mut args| {
        let grader = args.value("--grader")?;
        let dir = args.one()?;
        let report = crate::export::export(wb, std::path::Path::new(&dir), grader.as_deref())?;
        println!(
            "wrote the student edition into {dir}: {} files ({} labs)",
            report.files, report.labs
        );
        Ok(())
    },
};
