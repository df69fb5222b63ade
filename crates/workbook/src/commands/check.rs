//! `cargo labs check N` (one lab's graded tests) and `cargo labs grade` (the learner's
//! own grade of every lab). Both run the graded suite the way `grade-class` does: the
//! expected tests from the suite's source, each test in its own process, a test that did
//! not report a failure.

use super::{Workbook, build_error, check_mark, read_predictions};
use crate::compile::{self, Artifact, BuildEnv};
use crate::error::{Error, Result};
use crate::grade::{self, Grade, Integrity, LabEvidence, RunEnv};
use crate::integrity;
use crate::meta::{Lab, graded_test_names};
use crate::progress::now_utc;
use crate::suite::{self, SuiteEnv, SuiteRun};
use colored::Colorize;
use std::path::Path;
use std::sync::atomic::AtomicBool;

/// The integrity scan of a lab's learner files as they are in `tree`.
pub fn scan_learner_files(tree: &Path, lab: &Lab) -> integrity::Scan {
    let mut all = integrity::Scan::default();
    for file in &lab.meta.learner_files {
        if let Ok(source) = std::fs::read_to_string(tree.join(lab.learner_path(file))) {
            let scan = integrity::scan(file, &source);
            all.notes.extend(scan.notes);
            all.refused |= scan.refused;
        }
    }
    all
}

/// Builds and runs one lab's graded suite in the learner's workbook.
pub fn graded_run(wb: &Workbook, lab: &Lab, cancel: Option<&AtomicBool>) -> Result<SuiteRun> {
    let limit = std::time::Duration::from_secs(wb.settings.limits.build_time_limit_secs);
    let env = BuildEnv {
        cancel,
        ..BuildEnv::default()
    };
    let built = compile::build(
        &wb.root,
        &[&lab.meta.package],
        Artifact::GradedSuite,
        &env,
        limit,
    )?;
    let exe = built
        .executable(&lab.meta.package)
        .map_err(|problem| build_error(lab, problem))?;
    let suite_path = wb.root.join(&lab.meta.graded_suite);
    let source =
        std::fs::read_to_string(&suite_path).map_err(|e| Error::reading(&suite_path, e))?;
    let expected = graded_test_names(&source);
    let suite_env = SuiteEnv {
        time_limit: wb.settings.time_limit(lab.meta.time_limit_secs),
        output_cap: wb.settings.limits.max_test_output_bytes as usize,
        env: [fast_tmp(), terminal_columns()].concat(),
        wrap: None,
        cancel,
        verify_binary: false,
    };
    Ok(suite::run(exe, &wb.root, &expected, &suite_env))
}

/// `COLUMNS` for a lab's child process when this CLI prints to a terminal: the width its
/// timelines and failure reports wrap to (the child's output is captured, so it cannot
/// ask the terminal itself). Elsewhere the child uses the book's width.
pub fn terminal_columns() -> Vec<(String, String)> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return Vec::new();
    }
    match crossterm::terminal::size() {
        Ok((columns, _)) if columns > 0 => vec![("COLUMNS".into(), columns.to_string())],
        _ => Vec::new(),
    }
}

/// Where graded tests put their scratch databases: a memory file system when there is one
/// and `TMPDIR` is not set (SQLite's fsyncs cost nothing there; the results are the same).
pub fn fast_tmp() -> Vec<(String, String)> {
    const FAST_TMP: &str = "/dev/shm";
    if std::env::var_os("TMPDIR").is_none() && Path::new(FAST_TMP).is_dir() {
        vec![("TMPDIR".into(), FAST_TMP.into())]
    } else {
        Vec::new()
    }
}

/// `cargo labs check N`: the graded tests, failures with their timelines.
pub fn check(wb: &Workbook, lab: &Lab) -> Result<()> {
    println!("grading lab {} …", lab.label());
    let progress = wb.progress()?;
    let run = match graded_run(wb, lab, None) {
        Ok(run) => run,
        Err(e) => {
            let _ =
                progress.record_attempt(&lab.meta.id, "check", &now_utc(), 0, 0, &e.to_string());
            return Err(e);
        }
    };
    for t in &run.tests {
        println!("  {} {}", check_mark(t.passed), t.name.replace('_', " "));
    }
    let passed = run.passed();
    for t in run.tests.iter().filter(|t| !t.passed) {
        println!("\n{} {}", "failed:".red().bold(), t.name.bold());
        if let Some(how) = &t.unreported {
            println!("  the test did not report a result: {how}");
        }
        for line in crate::text::clean_failure(&t.output) {
            println!("{}", crate::text::for_terminal(line));
        }
    }
    let scan = scan_learner_files(&wb.root, lab);
    for note in run.notes.iter().chain(&scan.notes) {
        println!("{} {note}", "note:".yellow().bold());
    }
    // Only a failure whose signature a catalogued wrong solution proves gets a name.
    for diagnosis in crate::mutants::diagnose(lab, &run) {
        println!(
            "\n{} a solution built on the belief \"{}\" fails exactly like this; the chapter says why it does not hold: {}",
            "diagnosis:".cyan().bold(),
            diagnosis.misconception.trim_end_matches('.'),
            crate::mutants::section_path(&diagnosis.section)
        );
    }
    let _ = progress.record_attempt(
        &lab.meta.id,
        "check",
        &now_utc(),
        passed,
        run.tests.len(),
        "",
    );
    println!(
        "\n{} {passed}/{} graded tests pass",
        "result:".bold(),
        run.tests.len()
    );
    if scan.refused {
        return Err(Error::lab(format!(
            "a learner file of lab {} brings in another file; a grader takes only the learner files, so it grades the starter in its place. Put the whole of your work in the learner files.",
            lab.meta.number
        )));
    }
    if passed == run.tests.len() && !run.tests.is_empty() {
        println!(
            "{}",
            "Lab complete. Read the chapter's acceptance criteria and move on.".green()
        );
        Ok(())
    } else {
        let n = &lab.meta.number;
        Err(Error::lab(format!(
            "{} graded test(s) fail. Replay a schedule with the `replay:` line above, or ask for a hint: `cargo labs hint {n}`.",
            run.tests.len() - passed
        )))
    }
}

/// Grades the labs of the workbook at `tree` (the learner's own, or a scratch tree) with
/// `settings`; the evidence of each lab's predictions comes from `predictions_of`.
pub fn grade_tree(
    tree: &Path,
    labs: &[&Lab],
    settings: &crate::settings::Settings,
    env: &RunEnv<'_>,
    mut evidence: impl FnMut(&Lab) -> (LabEvidencePart, Integrity),
) -> Vec<grade::LabGrade> {
    let runs = grade::run_labs(tree, labs, settings, env);
    labs.iter()
        .zip(runs)
        .map(|(lab, run)| {
            let (part, integrity) = evidence(lab);
            let suite =
                std::fs::read_to_string(tree.join(&lab.meta.graded_suite)).unwrap_or_default();
            grade::grade_lab(
                LabEvidence {
                    lab,
                    predictions: part.predictions,
                    first_seal: part.first_seal,
                    run,
                    expected: graded_test_names(&suite),
                    integrity,
                    notes: part.notes,
                },
                settings,
            )
        })
        .collect()
}

/// What a caller of [`grade_tree`] knows of one lab's learner.
pub struct LabEvidencePart {
    pub predictions: std::result::Result<Option<crate::predictions::Predictions>, String>,
    pub first_seal: Option<crate::predictions::Seal>,
    pub notes: Vec<String>,
}

/// `cargo labs grade [--json | --classroom [--base64]] [N …]`: the learner's own grade.
/// It proves honest mistakes (a changed harness, a test that never reported); only
/// `grade-class` with the teacher's files proves anything against tampering.
pub fn grade(wb: &Workbook, format: &str, only: &[String]) -> Result<()> {
    let chosen: Vec<&Lab> = if only.is_empty() {
        wb.labs.labs.iter().collect()
    } else {
        only.iter().map(|w| wb.lab(w)).collect::<Result<_>>()?
    };
    let progress = wb.progress()?;
    let env = RunEnv {
        target_dir: None,
        build_env: Vec::new(),
        build_wrap: None,
        run_wrap: None,
        test_env: fast_tmp(),
        cancel: None,
        verify_binaries: false,
    };
    let mut labs = grade_tree(&wb.root, &chosen, &wb.settings, &env, |lab| {
        let changed =
            changed_published_files(&wb.root, lab, wb.settings.limits.max_learner_file_bytes);
        let scan = scan_learner_files(&wb.root, lab);
        let mut review = scan.notes;
        if !changed.is_empty() {
            review.push(format!(
                "files that differ from the published version: {}",
                changed.join(", ")
            ));
        }
        let predictions = read_predictions(lab).map_err(|e| e.to_string());
        (
            LabEvidencePart {
                predictions,
                first_seal: progress.first_seal(&lab.meta.id),
                notes: Vec::new(),
            },
            Integrity {
                notes: review,
                sandboxed: false,
                refused: scan.refused,
            },
        )
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
        let ran = graded.status == grade::LabStatus::Ran;
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
    let grade = grade::total(labs, None);
    print_grade(&grade, format)
}

/// Prints a grade in one of the formats.
pub fn print_grade(grade: &Grade, format: &str) -> Result<()> {
    let classroom = grade::classroom(grade);
    let text = match format {
        "json" => serde_json::to_string_pretty(grade),
        "classroom" => serde_json::to_string_pretty(&classroom),
        "classroom-base64" => serde_json::to_string(&classroom)
            .map(|json| crate::keys::base64_encode(json.as_bytes())),
        _ => Ok(grade::text(grade)),
    }
    .map_err(|e| Error::io("cannot write the grade", e.into()))?;
    println!("{}", text.trim_end());
    Ok(())
}

/// The published files (graded suite, harness, …) that differ from their published
/// version under `root`. Learner files are expected to differ and are not listed. Only
/// regular files of a learner file's size are read: anything else (a link to /dev/zero, a
/// missing file) counts as changed.
pub fn changed_published_files(root: &Path, lab: &Lab, max_bytes: u64) -> Vec<String> {
    let learner: Vec<String> = lab
        .meta
        .learner_files
        .iter()
        .map(|f| lab.learner_path(f))
        .collect();
    lab.meta
        .published
        .iter()
        .filter(|(path, _)| !learner.contains(path))
        .filter(|(path, blob)| {
            let path = root.join(path);
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_file() && meta.len() <= max_bytes => {
                    crate::blob::file_blob(&path).ok().as_deref() != Some(blob.as_str())
                }
                // Not a regular file, too large, or gone: not the published one.
                _ => true,
            }
        })
        .map(|(path, _)| path.clone())
        .collect()
}
