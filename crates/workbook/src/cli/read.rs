//! `cargo labs read N`: the lab's chapter in the terminal, offline and without mdBook —
//! includes resolved as the book shows them (learner files as published), Rust code
//! highlighted, through a pager when the output is a terminal and as plain text
//! otherwise. It knows the learner's state as the book cannot: the chapter up to Predict
//! until the lab's predictions are sealed, and the page after the run only once they are.

use super::{Command, Section};
use crate::error::{Error, Result};
use crate::meta::Lab;
use crate::pages::{Starters, after_the_run_expanded, chapter_pages, expanded_with};
use crate::workbook::{Workbook, read_predictions};
use std::io::{IsTerminal, Write};
use std::process::{Command as Process, Stdio};

pub const COMMAND: Command = Command {
    name: "read",
    section: Section::Learner,
    usage: "cargo labs read N",
    about: "read the lab's chapter in the terminal, offline. Up to Predict until your predictions are sealed, all of it once they are; through a pager at a terminal, as plain text otherwise",
    run: |wb, args| read(wb, wb.lab(&args.one()?)?),
};

/// Whether the predictions of `lab` are sealed: in predictions.txt, or in the progress
/// store (a deleted seal line does not reopen the chapter's first page alone).
pub fn sealed(wb: &Workbook, lab: &Lab) -> Result<bool> {
    let in_file = read_predictions(lab)?.is_some_and(|p| p.seal.is_some());
    Ok(in_file || wb.progress()?.first_seal(&lab.meta.id).is_some())
}

/// The chapter as Markdown, as far as the learner may read it now.
pub fn chapter_for(wb: &Workbook, lab: &Lab, sealed: bool) -> String {
    let starters = Starters::of(&wb.root, std::slice::from_ref(lab));
    let [page, _] = chapter_pages(&wb.root, lab);
    let mut text = expanded_with(&page, &starters);
    let n = &lab.meta.number;
    if sealed {
        // In the student edition the page and its figures are written out first, as the
        // book does: the page's includes read them from there.
        let opened = crate::pages::open_after_the_run(&wb.root, lab);
        text.push_str("\n\n");
        text.push_str(&after_the_run_expanded(&wb.root, lab, &starters));
        if let Err(why) = opened {
            text.push_str(&format!(
                "\n\n(The page's figures could not be written: {why}.)\n"
            ));
        }
    } else {
        text.push_str(&format!(
            "\n\n---\n\nThe rest of the chapter (what the run shows, what the service promises, the build phase) opens here once your predictions are sealed: `cargo labs predict {n}`, then `cargo labs run {n}`.\n"
        ));
    }
    text
}

/// `cargo labs read N`.
pub fn read(wb: &Workbook, lab: &Lab) -> Result<()> {
    let sealed = sealed(wb, lab)?;
    let markdown = chapter_for(wb, lab, sealed);
    let terminal = std::io::stdout().is_terminal();
    let colour = terminal && colored::control::SHOULD_COLORIZE.should_colorize();
    let width = terminal_width(terminal);
    let text = crate::reader::render(&markdown, width, colour);
    if terminal && page(&text) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .map_err(|e| Error::io("cannot write the chapter", e))
}

/// The terminal's width, or `COLUMNS`, or 90 columns when the output is not a terminal.
fn terminal_width(terminal: bool) -> usize {
    let size = terminal
        .then(|| crossterm::terminal::size().ok())
        .flatten()
        .map(|(w, _)| usize::from(w));
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok());
    size.or(columns).unwrap_or(90).min(100)
}

/// Shows `text` through `$PAGER` (or `less -R`); false when no pager could be started.
fn page(text: &str) -> bool {
    let pager = std::env::var("PAGER")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "less -R".to_string());
    let mut words = pager.split_whitespace();
    let Some(program) = words.next() else {
        return false;
    };
    let mut command = Process::new(program);
    command.args(words).stdin(Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        // `less` shows colours with -R.
        command.env("LESS", "R");
    }
    let child = command.spawn();
    let Ok(mut child) = child else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        // The reader may quit before the end: a closed pipe is not an error.
        let _ = stdin.write_all(text.as_bytes());
    }
    let _ = child.wait();
    true
}
