//! `cargo labs grade-class DIR…`: grades a folder of submissions from this copy of the
//! workbook, trusting nothing in a submission.
//!
//! From each submission it takes only each lab's learner files and `predictions.txt`
//! (`intake`), lays them over a scratch tree exported from this copy (`tree`), so no
//! solution is there to be included, and grades them with this copy's settings, suites,
//! harnesses, keys and limits, in bubblewrap's sandbox (`crate::sandbox`) unless the
//! teacher says `--no-sandbox`. It never writes into a submission.
//!
//! Without the sandbox a submission's tests can write wherever the teacher can, so it
//! grades one submission at a time, restores every tree from the pristine edition it holds
//! in memory (never from a folder a test could have written to), checks every executable
//! before every test, and after each submission's tests deletes whatever they wrote in the
//! shared build folder, naming the submission.
//!
//! Before the first submission it fetches the dependencies and builds the starters once,
//! exactly as a submission will be built: if that fails, the grader's environment is at
//! fault, and it stops and says what to fix instead of giving every learner a zero. A lab
//! that later fails to build for no reason in the learner's code is checked the same way
//! (do the starters still build?) before it is put down to the learner.

mod code;
pub mod copies;
pub mod gradebook;
mod grading;
pub mod intake;
pub mod key;
pub mod polled;
pub mod report;
pub mod table;
pub mod tree;

pub use code::CodePair;
pub use copies::PredictionPair;
pub use grading::grade_submissions;
pub use table::{Row, csv};

use crate::error::{Error, Result};
use crate::grade::{Format, Grade, Learner};
use crate::workbook::Workbook;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The options of `grade-class`.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    /// Only these labs (numbers or ids); all when empty.
    pub labs: Vec<String>,
    /// Where the scratch trees and their builds live (default `target/grade-class`).
    pub work: Option<PathBuf>,
    /// Print one submission's GitHub Classroom result on stdout.
    pub classroom: bool,
    pub base64: bool,
    /// Grade without the sandbox (it is refused otherwise where bubblewrap fails).
    pub no_sandbox: bool,
    /// How many submissions are graded at once (default: the cores).
    pub jobs: Option<usize>,
    /// Score predictions from the live poll's round-1 votes (closed rounds, server-stamped)
    /// instead of the learners' files.
    pub predictions_from: Option<PathBuf>,
    /// Where to write the class report's page at the end (`class report` makes the same
    /// from the JSON).
    pub report: Option<PathBuf>,
}

/// The whole class: each learner's full grade, one row per learner and lab, and the
/// pairs whose predictions look copied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassGrade {
    pub version: u32,
    pub sandboxed: bool,
    pub learners: Vec<Grade>,
    pub rows: Vec<Row>,
    #[serde(default)]
    pub copied_predictions: Vec<PredictionPair>,
    /// Learner files that look copied from a classmate's, the reference solution or a
    /// catalogue entry (see the teacher's chapter for what the detector compares).
    #[serde(default)]
    pub copied_code: Vec<CodePair>,
    /// How long each submission took to grade, in seconds, in the order given (the first
    /// ones pay for building the workbook's dependencies).
    pub seconds: Vec<f64>,
}

/// `cargo labs grade-class`: grades, writes the files asked for, prints the summary (or
/// one submission's Classroom result).
pub fn grade_class(wb: &Workbook, dirs: &[PathBuf], options: &Options) -> Result<()> {
    if options.classroom && dirs.len() != 1 {
        return Err(Error::input(
            "--classroom prints one submission's result: give one folder",
        ));
    }
    if options.report.is_some() {
        report::teachers_only(wb, "`grade-class --report`")?;
    }
    let class = grading::grade_submissions(wb, dirs, options)?;
    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&class)
            .map_err(|e| Error::io("cannot write the JSON", e.into()))?;
        std::fs::write(path, text + "\n").map_err(|e| Error::writing(path, e))?;
    }
    if let Some(path) = &options.csv {
        std::fs::write(path, csv(&class.rows)).map_err(|e| Error::writing(path, e))?;
    }
    if let Some(path) = &options.report {
        let made = report::Options {
            anonymous: false,
            book_base: report::default_book_base(&wb.root),
        };
        report::write(wb, &class, &made, path, None)?;
    }
    if options.classroom {
        let format = if options.base64 {
            Format::ClassroomBase64
        } else {
            Format::Classroom
        };
        return format.print(&class.learners[0]);
    }
    print!("{}", table::summary(&class.learners));
    for CodePair { lab, pair } in &class.copied_code {
        println!(
            "lab {lab}: {} and {} share {:.0} % of {} ({} tokens): worth a look",
            pair.left,
            pair.right,
            pair.share * 100.0,
            pair.file,
            pair.matched_tokens
        );
    }
    for pair in &class.copied_predictions {
        println!(
            "lab {}: {} and {} sealed the same {} rare wrong answers (score {}): worth a look",
            pair.lab,
            pair.learners[0],
            pair.learners[1],
            pair.shared_wrong.len(),
            pair.score
        );
    }
    let written = [
        (&options.json, "the grades (JSON)"),
        (&options.csv, "the gradebook (CSV)"),
        (&options.report, "the class report"),
    ];
    for (path, what) in written {
        if let Some(path) = path {
            println!("wrote {what}: {}", path.display());
        }
    }
    Ok(())
}

/// Names every submission uniquely: its folder's name, or, where two folders share one,
/// the name with as many parent folders as it takes to tell them apart.
pub fn learners(dirs: &[PathBuf]) -> Vec<Learner> {
    let full: Vec<PathBuf> = dirs
        .iter()
        .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()))
        .collect();
    let parts: Vec<Vec<String>> = full
        .iter()
        .map(|p| {
            p.components()
                .rev()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        })
        .collect();
    let name = |i: usize, depth: usize| {
        let mut taken: Vec<String> = parts[i].iter().take(depth).cloned().collect();
        taken.reverse();
        taken.join("/")
    };
    (0..dirs.len())
        .map(|i| {
            let mut depth = 1;
            while depth < parts[i].len()
                && (0..dirs.len()).any(|j| full[j] != full[i] && name(j, depth) == name(i, depth))
            {
                depth += 1;
            }
            let mut unique = name(i, depth);
            let twins = (0..i).filter(|&j| full[j] == full[i]).count();
            if twins > 0 {
                unique = format!("{unique} ({})", twins + 1);
            }
            Learner {
                name: unique,
                submission: dirs[i].display().to_string(),
            }
        })
        .collect()
}

/// Where the scratch trees live.
fn work_dir(wb: &Workbook, options: &Options) -> Result<PathBuf> {
    let work = match &options.work {
        Some(work) => work.clone(),
        None => wb.root.join("target/grade-class"),
    };
    std::fs::create_dir_all(&work).map_err(|e| Error::writing(&work, e))?;
    work.canonicalize().map_err(|e| Error::reading(&work, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learners_get_unique_names_from_their_paths() {
        let dirs: Vec<PathBuf> = [
            "/c/2025/alice",
            "/c/2026/alice",
            "/c/2026/bob",
            "/c/2026/bob",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let names: Vec<String> = learners(&dirs).into_iter().map(|l| l.name).collect();
        assert_eq!(names, ["2025/alice", "2026/alice", "bob", "bob (2)"]);
    }
}
