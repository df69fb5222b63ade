//! `cargo labs class report GRADE.json --out report.html [--anonymous]`, and
//! `grade-class … --report report.html`: a class's grade as one page for the teacher —
//! the class at a glance, per lab and item how the class answered before the run (the
//! items that split it marked for discussion, with each item's question and explanation,
//! so the page is a discussion plan), the catalogue's misconceptions the graded runs
//! matched, the graded tests' pass rates, and every integrity note and copied pair.
//!
//! A typed model (`model`) is computed from a saved class grade and the labs (`build`),
//! then rendered (`html`, `svg`). It reads the points, statuses, answers and diagnoses the
//! grade recorded, so a report can be made again from the same file at any time without
//! regrading, and a change of settings since the grading changes nothing in it.

mod book;
mod build;
mod html;
pub mod model;
mod names;
mod svg;

pub use build::{Options, build};
pub use model::*;
pub use names::Names;

use crate::class::ClassGrade;
use crate::error::{Error, Result};
use crate::workbook::Workbook;
use std::path::Path;

/// The page of a report.
pub fn render(report: &Report) -> String {
    html::render(report)
}

/// The default place of the book the report links to: this workbook's built book
/// (`cargo labs book` builds it into `book/build`).
pub fn default_book_base(root: &Path) -> String {
    let dir = root.join("book/build");
    let dir = dir.canonicalize().unwrap_or(dir);
    let mut text = dir.to_string_lossy().replace('\\', "/");
    if !text.starts_with('/') {
        text.insert(0, '/');
    }
    format!("file://{text}/")
}

/// Reads a class grade written by `grade-class --json`.
pub fn read_class(path: &Path) -> Result<ClassGrade> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::reading(path, e))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::input(format!(
            "{} is not a class grade written by `cargo labs grade-class --json`: {e}",
            path.display()
        ))
    })
}

/// Refuses outside the teacher's edition: a report shows every item's answer and
/// explanation, which the student edition keeps scrambled.
pub fn teachers_only(wb: &Workbook, what: &str) -> Result<()> {
    if crate::cli::teachers_edition(&wb.root) {
        Ok(())
    } else {
        Err(Error::input(format!(
            "{what} shows the answer keys, so it works in the teacher's edition only (this copy has no solutions/)"
        )))
    }
}

/// Makes the report of `class` and writes its page to `out` (and its model, as JSON, to
/// `json`).
pub fn write(
    wb: &Workbook,
    class: &ClassGrade,
    options: &Options,
    out: &Path,
    json: Option<&Path>,
) -> Result<Report> {
    let report = build(class, &wb.root, &wb.labs.labs, options);
    std::fs::write(out, render(&report)).map_err(|e| Error::writing(out, e))?;
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| Error::io("cannot write the report's JSON", e.into()))?;
        std::fs::write(path, text + "\n").map_err(|e| Error::writing(path, e))?;
    }
    Ok(report)
}
