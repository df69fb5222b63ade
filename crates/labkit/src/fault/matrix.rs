//! The crash matrix: for every one-fault schedule, which fault it took and whether every
//! invariant held. Learners predict cells of it before they run the lab.

use super::outcome::Exploration;
use super::timeline::{BOOK_WIDTH, render_two_columns};

/// One row: a single fault (`site=option`) and the invariant it broke, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixRow {
    /// The fault, as `site=option`.
    pub fault: String,
    /// The invariant the schedule broke, or `None` when every invariant held.
    pub broken: Option<String>,
}

/// The crash matrix of an exploration: one row per single-fault schedule, so a learner can
/// check a predicted cell against what the code did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashMatrix {
    /// The rows, in exploration order, one per distinct fault.
    pub rows: Vec<MatrixRow>,
}

impl CrashMatrix {
    /// Builds the matrix from an [`explore_all`](super::explore_all) run: one row per
    /// schedule with exactly one fault, in exploration order, duplicates merged (the same
    /// fault reached twice keeps the first verdict that broke something).
    pub fn from_exploration(exploration: &Exploration) -> CrashMatrix {
        let mut rows: Vec<MatrixRow> = Vec::new();
        for run in exploration.runs.iter().filter(|r| r.faults.len() == 1) {
            let broken = run.verdict.as_ref().err().map(|v| v.invariant.clone());
            match rows.iter_mut().find(|row| row.fault == run.faults[0]) {
                Some(row) => {
                    if row.broken.is_none() {
                        row.broken = broken;
                    }
                }
                None => rows.push(MatrixRow {
                    fault: run.faults[0].clone(),
                    broken,
                }),
            }
        }
        CrashMatrix { rows }
    }

    /// The verdict for one fault, if the matrix has that row.
    pub fn cell(&self, fault: &str) -> Option<&MatrixRow> {
        self.rows.iter().find(|row| row.fault == fault)
    }

    /// A plain-text table within [`BOOK_WIDTH`] columns: fault, then `pass` or the broken
    /// invariant.
    pub fn render(&self) -> String {
        self.render_width(BOOK_WIDTH)
    }

    /// The table within `width` columns; a row that would be wider puts its outcome on
    /// the next line, indented.
    pub fn render_width(&self, width: usize) -> String {
        let rows: Vec<(String, String)> = self
            .rows
            .iter()
            .map(|row| {
                let outcome = match &row.broken {
                    None => "pass".to_string(),
                    Some(invariant) => format!("FAIL: {invariant}"),
                };
                (row.fault.clone(), outcome)
            })
            .collect();
        render_two_columns(("fault", "outcome"), &rows, width, 4)
    }
}
