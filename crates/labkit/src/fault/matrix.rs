//! The crash matrix: for every one-fault schedule, which fault it took and whether every
//! invariant held. Learners predict cells of it before they run the lab.

use super::explore::Exploration;

/// One row: a single fault (`site=option`) and the invariant it broke, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixRow {
    pub fault: String,
    pub broken: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrashMatrix {
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

    /// A plain-text table: fault, then `pass` or the broken invariant.
    pub fn render(&self) -> String {
        let width = self
            .rows
            .iter()
            .map(|r| r.fault.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let mut out = format!("{:<width$}  outcome\n", "fault");
        for row in &self.rows {
            let outcome = match &row.broken {
                None => "pass".to_string(),
                Some(invariant) => format!("FAIL: {invariant}"),
            };
            out.push_str(&format!("{:<width$}  {outcome}\n", row.fault));
        }
        out
    }
}
