//! `cargo labs grade [--json | --classroom [--base64]] [N …]`: the learner's own grade.
//! It proves honest mistakes (a changed harness, a test that never reported); only
//! `grade-class` with the teacher's files proves anything against tampering.

use super::{Args, Command, Section};
use crate::error::Result;
use crate::grade::run::{RunEnv, fast_tmp};
use crate::grade::{self, Format, Integrity, LearnerEvidence, Note, PredictionSource, Severity};
use crate::progress::now_utc;
use crate::workbook::{Workbook, read_predictions};

pub const COMMAND: Command = Command {
    name: "grade",
    section: Section::Learner,
    usage: "cargo labs grade [--json | --classroom [--base64]] [N …]",
    about: "your own grade of every lab (or some): tests, predictions, points (--json and --classroom\n\
            are for tools: GitHub Classroom's autograder runs `grade --classroom`)",
    run: |wb, mut args: Args| {
        let format = match (
            args.flag("--json"),
            args.flag("--classroom"),
            args.flag("--base64"),
        ) {
            (true, false, false) => Format::Json,
            (false, true, false) => Format::Classroom,
            (false, true, true) => Format::ClassroomBase64,
            (false, false, false) => Format::Text,
            _ => return Err(args.usage()),
        };
        grade(wb, format, &args.positional()?)
    },
};

/// What the learner's own workbook says of one lab's learner.
fn evidence(
    wb: &Workbook,
    lab: &crate::meta::Lab,
    progress: &crate::progress::Progress,
) -> LearnerEvidence {
    let max = wb.settings.limits.max_learner_file_bytes;
    let changed = grade::changed_published_files(&wb.root, lab, max);
    let scan = grade::scan_learner_files(&wb.root, lab);
    let mut notes = scan.notes;
    if !changed.is_empty() {
        notes.push(Note::new(
            Severity::Review,
            format!(
                "files that differ from the published version: {}",
                changed.join(", ")
            ),
        ));
    }
    LearnerEvidence {
        predictions: read_predictions(lab).map_err(|e| e.to_string()),
        first_seal: progress.first_seal(&lab.meta.id),
        source: PredictionSource::File,
        integrity: Integrity {
            notes,
            sandboxed: false,
            refused: scan.refused,
        },
        notes: Vec::new(),
    }
}

pub fn grade(wb: &Workbook, format: Format, only: &[String]) -> Result<()> {
    let chosen = wb.chosen(only)?;
    let progress = wb.progress()?;
    let env = RunEnv::learner(&wb.settings, None, fast_tmp());
    if format == Format::Text {
        eprintln!(
            "grading {} lab(s): every graded suite is built and run, which takes a minute or two …",
            chosen.len()
        );
    }
    let mut labs = grade::grade_labs(&wb.root, &chosen, &wb.settings, &env, |lab| {
        evidence(wb, lab, &progress)
    });
    if only.is_empty() {
        for broken in &wb.labs.broken {
            labs.push(grade::broken_lab(
                &broken.number(),
                &broken.slug(),
                &broken.problem,
            ));
        }
    }
    // A grade is a check of each lab it graded: `cargo labs` shows the newest.
    for graded in &labs {
        let Some(lab) = chosen.iter().find(|l| l.meta.id == graded.id) else {
            continue;
        };
        let ran = graded.status == grade::LabStatus::Graded;
        let (passed, total) = if ran {
            (graded.tests.passed, graded.tests.expected)
        } else {
            (0, 0)
        };
        let note = if ran {
            ""
        } else {
            "did not run (see `cargo labs check`)"
        };
        let _ = progress.record_attempt(&lab.meta.id, "check", &now_utc(), passed, total, note);
    }
    format.print(&grade::total(labs, None))
}
