//! The workbook's consistency gate, run by the root `cargo test`. Each test proves one
//! invariant of the whole workbook and names the fix when it fails: every solution passes
//! every graded test, every starter compiles and fails exactly the tests its metadata
//! names, every observed verdict equals its answer key, the book's includes resolve, the
//! figures are current, the metadata is complete and the published hashes are right.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use workbook::grade::git_blob;
use workbook::meta::{Lab, load_labs, predictions_pages};
use workbook::runner::{Finished, cargo, parse_libtest, run_limited};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every lab, or only those named in `LABS_ONLY` (e.g. `LABS_ONLY=01,05`) while a lab is
/// being written.
fn labs() -> Vec<Lab> {
    let labs = load_labs(&root()).expect("every lab.toml parses");
    match std::env::var("LABS_ONLY") {
        Ok(only) => {
            let wanted: Vec<&str> = only.split(',').map(str::trim).collect();
            labs.into_iter()
                .filter(|l| wanted.contains(&l.meta.number.as_str()))
                .collect()
        }
        Err(_) => labs,
    }
}

/// Collects every problem of every lab, so one run shows them all.
fn report(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}

fn cargo_in_root(args: &[&str], limit: u64) -> Finished {
    let mut command = cargo();
    command.args(args);
    run_limited(command, &root(), Duration::from_secs(limit)).expect("cargo starts")
}

fn graded_test_names(lab: &Lab) -> BTreeSet<String> {
    let suite = std::fs::read_to_string(root().join(&lab.meta.graded_suite)).unwrap_or_default();
    let mut names = BTreeSet::new();
    let mut next_is_test = false;
    for line in suite.lines() {
        let line = line.trim();
        if line.starts_with("#[test]") {
            next_is_test = true;
        } else if next_is_test && line.starts_with("fn ") {
            if let Some(name) = line[3..].split('(').next() {
                names.insert(name.trim().to_string());
            }
            next_is_test = false;
        }
    }
    names
}

#[test]
fn lab_metadata_is_complete_and_unique() {
    let root = root();
    let labs = labs();
    let mut problems = Vec::new();
    assert!(!labs.is_empty(), "no lab.toml under labs/");
    let mut ids = BTreeSet::new();
    let mut numbers = BTreeSet::new();
    let summary = std::fs::read_to_string(root.join("book/src/SUMMARY.md")).unwrap();
    for lab in &labs {
        let m = &lab.meta;
        let name = format!("lab {} ({})", m.number, lab.dir.display());
        if !ids.insert(m.id.clone()) {
            problems.push(format!("{name}: id `{}` is used twice", m.id));
        }
        if !numbers.insert(m.number.clone()) {
            problems.push(format!("{name}: number `{}` is used twice", m.number));
        }
        let manifest = std::fs::read_to_string(lab.dir.join("Cargo.toml")).unwrap_or_default();
        if !manifest.contains(&format!("name = \"{}\"", m.package)) {
            problems.push(format!(
                "{name}: Cargo.toml does not declare package `{}`",
                m.package
            ));
        }
        let solution_dir = root.join("solutions").join(lab.slug());
        let solution_manifest =
            std::fs::read_to_string(solution_dir.join("Cargo.toml")).unwrap_or_default();
        if !solution_manifest.contains(&format!("name = \"{}\"", m.solution_package)) {
            problems.push(format!(
                "{name}: {} does not declare package `{}`",
                solution_dir.join("Cargo.toml").display(),
                m.solution_package
            ));
        }
        for manifest_text in [&manifest, &solution_manifest] {
            if !manifest_text.contains(&format!("path = \"../../{}\"", m.graded_suite)) {
                problems.push(format!(
                    "{name}: both manifests must compile the one graded suite `../../{}`",
                    m.graded_suite
                ));
            }
        }
        for (what, path) in [("chapter", &m.chapter), ("graded suite", &m.graded_suite)] {
            if !root.join(path).is_file() {
                problems.push(format!("{name}: the {what} {path} does not exist"));
            }
        }
        let chapter_file = Path::new(&m.chapter)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !summary.contains(&format!("({chapter_file})")) {
            problems.push(format!(
                "{name}: book/src/SUMMARY.md does not list {chapter_file}"
            ));
        }
        for file in &m.learner_files {
            if !lab.dir.join(file).is_file() {
                problems.push(format!("{name}: learner file {file} does not exist"));
            }
        }
        if m.hints.is_empty() || m.hints.iter().any(|h| h.trim().is_empty()) {
            problems.push(format!("{name}: every lab needs hints, none of them empty"));
        }
        if m.checks.is_empty() {
            problems.push(format!("{name}: no [[check]]"));
        }
        let mut check_ids = BTreeSet::new();
        for check in &m.checks {
            if !check_ids.insert(check.id()) {
                problems.push(format!("{name}: two checks share the id `{}`", check.id()));
            }
            if check.explain.trim().is_empty() {
                problems.push(format!(
                    "{name}: check `{}` has no explanation",
                    check.claim
                ));
            }
        }
        for q in &m.questions {
            if !q.options.contains_key(&q.answer) {
                problems.push(format!(
                    "{name}: question `{}` has answer `{}`, not one of its options",
                    q.id, q.answer
                ));
            }
            if q.options.len() < 2 {
                problems.push(format!(
                    "{name}: question `{}` needs at least two options",
                    q.id
                ));
            }
        }
        let tests = graded_test_names(lab);
        for expected in &m.starter_fails {
            if !tests.contains(expected) {
                problems.push(format!(
                    "{name}: starter_fails names `{expected}`, which is not a #[test] in {}",
                    m.graded_suite
                ));
            }
        }
        if m.starter_fails.is_empty() {
            problems.push(format!(
                "{name}: starter_fails is empty: the starter must fail something"
            ));
        }
        if m.points.predictions + m.points.graded == 0 {
            problems.push(format!("{name}: the lab is worth no points"));
        }
    }
    report(problems);
}

#[test]
fn answering_holds_everywhere_scores_below_80_percent() {
    let mut problems = Vec::new();
    for lab in labs() {
        let right = lab.meta.checks.iter().filter(|c| c.holds).count();
        let share = right as f64 / lab.prediction_count() as f64;
        if share >= 0.8 {
            problems.push(format!(
                "lab {}: answering `holds` to every claim scores {:.0} % — add misconceptions that do not hold",
                lab.meta.number,
                share * 100.0
            ));
        }
    }
    report(problems);
}

#[test]
fn published_hashes_match_the_files() {
    let root = root();
    let mut problems = Vec::new();
    for lab in labs() {
        for (path, blob) in &lab.meta.published {
            match git_blob(&root, path) {
                Ok(actual) if &actual == blob => {}
                Ok(actual) => problems.push(format!(
                    "lab {}: {path} changed since it was published; if the change is intended, put this line in [published] of {}:\n\"{path}\" = \"{actual}\"",
                    lab.meta.number,
                    lab.dir.join("lab.toml").display()
                )),
                Err(e) => problems.push(format!("lab {}: {path}: {e}", lab.meta.number)),
            }
        }
        let slug = lab.slug();
        let mut required: Vec<String> = vec![
            lab.meta.graded_suite.clone(),
            format!("labs/{slug}/src/harness.rs"),
        ];
        required.extend(
            lab.meta
                .learner_files
                .iter()
                .map(|f| format!("labs/{slug}/{f}")),
        );
        for path in required {
            if !lab.meta.published.contains_key(&path) {
                problems.push(format!("lab {}: [published] lacks {path}", lab.meta.number));
            }
        }
    }
    report(problems);
}

#[test]
fn every_observed_verdict_equals_its_answer_key() {
    let mut problems = Vec::new();
    for lab in labs() {
        let m = &lab.meta;
        let run = cargo_in_root(
            &["run", "-q", "-p", &m.package, "--", "observe", "--json"],
            m.time_limit_secs,
        );
        if !run.success() {
            problems.push(format!(
                "lab {}: the observe run failed:\n{}",
                m.number, run.stderr
            ));
            continue;
        }
        let report: labkit::Report = match serde_json::from_str(run.stdout.trim()) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("lab {}: the report is not JSON ({e})", m.number));
                continue;
            }
        };
        let reported: Vec<&str> = report.checks.iter().map(|c| c.id.as_str()).collect();
        let expected: Vec<String> = m.checks.iter().map(|c| c.id()).collect();
        if reported != expected.iter().map(String::as_str).collect::<Vec<_>>() {
            problems.push(format!(
                "lab {}: the report's checks differ from lab.toml (same ids, same order):\n  report:   {reported:?}\n  lab.toml: {expected:?}",
                m.number
            ));
        }
        for check in &m.checks {
            if let Some(observed) = report.checks.iter().find(|c| c.id == check.id())
                && observed.holds != check.holds
            {
                problems.push(format!(
                    "lab {}: `{}` observed {} but the key says {}",
                    m.number, check.claim, observed.holds, check.holds
                ));
            }
        }
        for q in &m.questions {
            match report.questions.iter().find(|a| a.id == q.id) {
                Some(a) if a.answer == q.answer => {}
                Some(a) => problems.push(format!(
                    "lab {}: question `{}` observed ({}) — {} — but the key says ({})",
                    m.number, q.id, a.answer, a.evidence, q.answer
                )),
                None => problems.push(format!(
                    "lab {}: question `{}` is not in the report",
                    m.number, q.id
                )),
            }
        }
        if report.questions.len() != m.questions.len() {
            problems.push(format!(
                "lab {}: the report answers {} questions, lab.toml has {}",
                m.number,
                report.questions.len(),
                m.questions.len()
            ));
        }
    }
    report(problems);
}

#[test]
fn every_solution_passes_every_graded_test() {
    let mut problems = Vec::new();
    for lab in labs() {
        let m = &lab.meta;
        let run = cargo_in_root(
            &["test", "-p", &m.solution_package, "--test", "graded"],
            m.time_limit_secs,
        );
        let results = parse_libtest(&run.stdout);
        let names: BTreeSet<String> = results.iter().map(|r| r.name.clone()).collect();
        if !run.success() || results.iter().any(|r| !r.passed) {
            let failed: Vec<String> = results
                .iter()
                .filter(|r| !r.passed)
                .map(|r| format!("{}\n{}", r.name, r.output))
                .collect();
            problems.push(format!(
                "lab {}: the solution fails its graded suite:\n{}\n{}",
                m.number,
                failed.join("\n"),
                workbook::runner::tail(&run.stderr, 20)
            ));
        } else if names != graded_test_names(&lab) {
            problems.push(format!(
                "lab {}: the solution ran {names:?}, the suite declares {:?}",
                m.number,
                graded_test_names(&lab)
            ));
        }
    }
    report(problems);
}

#[test]
fn every_starter_fails_exactly_the_tests_its_metadata_names() {
    let mut problems = Vec::new();
    for lab in labs() {
        let m = &lab.meta;
        let run = cargo_in_root(
            &["test", "-p", &m.package, "--test", "graded"],
            m.time_limit_secs,
        );
        if run.compile_error() {
            problems.push(format!(
                "lab {}: the starter does not compile; it must fail on an invariant, not a compile error:\n{}",
                m.number,
                workbook::runner::tail(&run.stderr, 30)
            ));
            continue;
        }
        if run.timed_out {
            problems.push(format!("lab {}: the starter's graded tests hang", m.number));
            continue;
        }
        let results = parse_libtest(&run.stdout);
        let failed: BTreeSet<String> = results
            .iter()
            .filter(|r| !r.passed)
            .map(|r| r.name.clone())
            .collect();
        let expected: BTreeSet<String> = m.starter_fails.iter().cloned().collect();
        if failed != expected {
            problems.push(format!(
                "lab {}: the starter fails {failed:?}; lab.toml says it fails {expected:?}",
                m.number
            ));
        }
        for r in results.iter().filter(|r| !r.passed) {
            if r.output.contains("not yet implemented") || r.output.contains("not implemented") {
                problems.push(format!(
                    "lab {}: `{}` fails on a todo!() panic, not on an invariant",
                    m.number, r.name
                ));
            }
        }
    }
    report(problems);
}

#[test]
fn solutions_are_finished_code() {
    let mut problems = Vec::new();
    let mut stack = vec![root().join("solutions")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    if line.contains("todo!(")
                        || line.contains("unimplemented!(")
                        || line.contains("TODO")
                    {
                        problems.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                    }
                }
            }
        }
    }
    report(problems);
}

/// Every `{{#include path:anchor}}` in the book names an existing file and anchor (mdBook
/// renders a missing anchor as nothing, silently), and every image exists.
#[test]
fn every_book_include_and_image_resolves() {
    let book = root().join("book/src");
    let mut problems = Vec::new();
    let mut stack = vec![book.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let base = path.parent().unwrap();
            for part in text.split("{{#").skip(1) {
                let Some(body) = part.split("}}").next() else {
                    continue;
                };
                let mut words = body.split_whitespace();
                let (Some(kind), Some(spec)) = (words.next(), words.next()) else {
                    continue;
                };
                if kind != "include" && kind != "rustdoc_include" {
                    continue;
                }
                let (file, anchor) = spec.split_once(':').unwrap_or((spec, ""));
                let target = base.join(file);
                let Ok(source) = std::fs::read_to_string(&target) else {
                    problems.push(format!(
                        "{}: {{{{#{kind} {spec}}}}}: no such file",
                        path.display()
                    ));
                    continue;
                };
                let is_lines = anchor.chars().all(|c| c.is_ascii_digit() || c == ':');
                if !anchor.is_empty() && !is_lines {
                    let start = format!("ANCHOR: {anchor}");
                    let end = format!("ANCHOR_END: {anchor}");
                    let has = |marker: &str| source.lines().any(|l| l.trim_end().ends_with(marker));
                    if !has(&start) || !has(&end) {
                        problems.push(format!(
                            "{}: {{{{#{kind} {spec}}}}}: no `{start}` … `{end}` in {}",
                            path.display(),
                            target.display()
                        ));
                    }
                }
            }
            for part in text.split("](").skip(1) {
                let link = part.split(')').next().unwrap_or("");
                let image = link.ends_with(".svg") || link.ends_with(".png");
                if image && !base.join(link).is_file() {
                    problems.push(format!("{}: image {link} does not exist", path.display()));
                }
            }
        }
    }
    report(problems);
}

#[test]
fn figures_and_generated_pages_are_current() {
    let root = root();
    let labs = labs();
    let mut problems = Vec::new();
    for (path, text) in predictions_pages(&root, &labs) {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            problems.push(format!(
                "{} is out of date: run `cargo labs figures`",
                path.display()
            ));
        }
    }
    let figures = root.join("book/src/figures");
    for lab in &labs {
        let dir = figures.to_string_lossy().into_owned();
        let run = cargo_in_root(
            &[
                "run",
                "-q",
                "-p",
                &lab.meta.package,
                "--",
                "figures",
                &dir,
                "--check",
            ],
            lab.meta.time_limit_secs,
        );
        if !run.success() {
            problems.push(format!("lab {}: {}", lab.meta.number, run.stderr.trim()));
        }
    }
    report(problems);
}
