//! The workbook's consistency gate, run by the root `cargo test`. Each test proves one
//! invariant of the whole workbook and names the fix when it fails: every solution passes
//! every graded test, every starter compiles and fails exactly the tests its metadata
//! names, every observed verdict equals its answer key, the book's includes resolve, the
//! figures are current, the metadata is complete and the published hashes are right.

use crate::common;

use common::{labs, repo as root};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;
use workbook::blob::file_blob;
use workbook::grade::build::{Artifact, BuildEnv, Built, build};
use workbook::grade::run::{GradedSuite, LabRun, RunEnv, SuiteRun, build_and_run, in_parallel};
use workbook::grade::{Note, TestOutcome};
use workbook::meta::Lab;
use workbook::pages::generated_pages;
use workbook::process::{self, Finished, Job};
use workbook::settings::Settings;

/// Collects every problem of every lab, so one run shows them all.
fn report(problems: Vec<String>) {
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}

/// Every lab binary, built once for the tests that run them (in one cargo run).
fn lab_binaries() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let every_lab = workbook::meta::load_labs(&root()).unwrap().labs;
        let packages: Vec<&str> = every_lab.iter().map(|l| l.meta.package.as_str()).collect();
        let limit = Duration::from_secs(1800);
        build(
            &root(),
            &packages,
            Artifact::LabBinary,
            &BuildEnv::default(),
            limit,
        )
        .expect("cargo starts")
    })
}

/// Runs `lab`'s binary with `args` in the workbook's root, within its time limit.
fn run_lab(lab: &Lab, args: &[&str]) -> Result<Finished, String> {
    let exe = lab_binaries()
        .executable(&lab.meta.package)
        .map_err(|problem| format!("the lab binary does not build: {problem:?}"))?;
    let mut command = std::process::Command::new(exe);
    command.args(args);
    let limit = Duration::from_secs(lab.meta.time_limit_secs);
    Ok(process::run(Job::new(command, limit), &root()).expect("the lab binary starts"))
}

fn graded_test_names(lab: &Lab) -> Vec<String> {
    let suite = std::fs::read_to_string(root().join(&lab.meta.graded_suite)).unwrap_or_default();
    workbook::meta::graded_test_names(&suite)
}

/// Builds the graded suite of `package` for each lab and runs every test the way the
/// grader does (one process per test, a result only its own process can prove).
fn graded_runs(
    labs: &[Lab],
    package: impl Fn(&Lab) -> String,
) -> Vec<(Lab, Result<SuiteRun, String>)> {
    let settings = Settings::load(&root()).expect("grading.toml parses");
    let suites: Vec<GradedSuite> = (labs.iter())
        .map(|lab| GradedSuite::for_package(lab, &package(lab), &root(), &settings))
        .collect();
    let runs = build_and_run(&root(), &suites, &RunEnv::gate(None));
    labs.iter()
        .zip(runs)
        .map(|(lab, run)| {
            let run = match run {
                LabRun::Ran(run) => Ok(run),
                other => Err(format!("{other:?}")),
            };
            (lab.clone(), run)
        })
        .collect()
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
        // Both packages' suites are `src/graded.rs`, which takes the learner's files and
        // the one graded suite as modules side by side.
        let include = format!("#[path = \"../../../{}\"]\nmod suite;", m.graded_suite);
        for (package, text) in [(&lab.dir, &manifest), (&solution_dir, &solution_manifest)] {
            let root = std::fs::read_to_string(package.join("src/graded.rs")).unwrap_or_default();
            let modules = m.learner_files.iter().all(|f| {
                let module = Path::new(f).file_stem().and_then(|s| s.to_str());
                module.is_some_and(|module| root.contains(&format!("mod {module};")))
            });
            if !text.contains("path = \"src/graded.rs\"") || !root.contains(&include) || !modules {
                problems.push(format!(
                    "{name}: {} must build its graded suite from src/graded.rs, which names the learner's files as modules and holds `{include}` beside them",
                    package.display()
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
        if lab.key.hints.is_empty() || lab.key.hints.iter().any(|h| h.trim().is_empty()) {
            problems.push(format!("{name}: every lab needs hints, none of them empty"));
        }
        if m.checks.is_empty() {
            problems.push(format!("{name}: no [[check]]"));
        }
        let mut claims = BTreeSet::new();
        for check in &m.checks {
            if !claims.insert(check.slug()) {
                problems.push(format!(
                    "{name}: two checks share the claim `{}`",
                    check.claim
                ));
            }
            if check.ask.trim().is_empty() {
                problems.push(format!("{name}: check `{}` asks nothing", check.claim));
            }
        }
        for key in &lab.key.checks {
            if key.explain.trim().is_empty() {
                problems.push(format!("{name}: check `{}` has no explanation", key.claim));
            }
        }
        for q in &m.questions {
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
fn published_hashes_match_the_files() {
    let root = root();
    let mut problems = Vec::new();
    for lab in labs() {
        for (path, blob) in &lab.meta.published {
            match file_blob(&root.join(path)) {
                Ok(actual) if &actual == blob => {}
                Ok(actual) => problems.push(format!(
                    "lab {}: {path} changed since it was published; if the change is intended, put this line in [published] of {}:\n\"{path}\" = \"{actual}\"",
                    lab.meta.number,
                    lab.dir.join("lab.toml").display()
                )),
                Err(e) => problems.push(format!("lab {}: {path}: {e}", lab.meta.number)),
            }
        }
        // Everything the learner's crate and the harness are built from: their manifests,
        // every source file (the learner's own included, for `reset`), the graded suite.
        for path in lab.publishable(&root) {
            if !lab.meta.published.contains_key(&path) {
                problems.push(format!(
                    "lab {}: [published] lacks {path}: run `cargo labs bless {}`",
                    lab.meta.number, lab.meta.number
                ));
            }
        }
    }
    report(problems);
}

#[test]
fn every_observed_verdict_equals_its_answer_key() {
    let labs = labs();
    let problems = in_parallel(&labs, |lab| {
        let n = &lab.meta.number;
        let run = match run_lab(lab, &["observe", "--json"]) {
            Ok(run) if run.success() => run,
            Ok(run) => return vec![format!("lab {n}: the observe run failed:\n{}", run.stderr)],
            Err(problem) => return vec![format!("lab {n}: {problem}")],
        };
        match serde_json::from_str::<labkit::Report>(run.stdout.trim()) {
            // The same questions as lab.toml, word for word, in its order, each once;
            // and every answer as the key says.
            Ok(report) => workbook::observed::report_problems(lab, &report),
            Err(e) => vec![format!("lab {n}: the report is not JSON ({e})")],
        }
    });
    report(problems.into_iter().flatten().collect());
}

#[test]
fn every_solution_passes_every_graded_test() {
    let mut problems = Vec::new();
    for (lab, run) in graded_runs(&labs(), |lab| lab.meta.solution_package.clone()) {
        let m = &lab.meta;
        match run {
            Err(problem) => problems.push(format!(
                "lab {}: the solution's graded suite does not build: {problem}",
                m.number
            )),
            Ok(run) => {
                for test in run.tests.iter().filter(|t| !t.passed()) {
                    problems.push(format!(
                        "lab {}: the solution fails `{}`{}:\n{}",
                        m.number,
                        test.name,
                        test.detail
                            .as_deref()
                            .map(|how| format!(" ({how})"))
                            .unwrap_or_default(),
                        test.output
                    ));
                }
                for note in &run.notes {
                    problems.push(format!("lab {}: {}", m.number, Note::one_line(note)));
                }
            }
        }
    }
    report(problems);
}

#[test]
fn every_starter_fails_exactly_the_tests_its_metadata_names() {
    let mut problems = Vec::new();
    for (lab, run) in graded_runs(&labs(), |lab| lab.meta.package.clone()) {
        let m = &lab.meta;
        let run = match run {
            Ok(run) => run,
            Err(problem) => {
                problems.push(format!(
                    "lab {}: the starter does not build; it must fail on an invariant, not a compile error: {problem}",
                    m.number
                ));
                continue;
            }
        };
        if run.tests.iter().any(|t| t.outcome == TestOutcome::TimedOut) {
            problems.push(format!("lab {}: the starter's graded tests hang", m.number));
            continue;
        }
        let failed: BTreeSet<String> = run
            .tests
            .iter()
            .filter(|t| !t.passed())
            .map(|t| t.name.clone())
            .collect();
        let expected: BTreeSet<String> = m.starter_fails.iter().cloned().collect();
        if failed != expected {
            problems.push(format!(
                "lab {}: the starter fails {failed:?}; lab.toml says it fails {expected:?}",
                m.number
            ));
        }
        for t in run.tests.iter().filter(|t| !t.passed()) {
            if t.output.contains("not yet implemented") || t.output.contains("not implemented") {
                problems.push(format!(
                    "lab {}: `{}` fails on a todo!() panic, not on an invariant",
                    m.number, t.name
                ));
            }
            if let (TestOutcome::Crashed | TestOutcome::TimedOut | TestOutcome::Void, Some(how)) =
                (t.outcome, &t.detail)
            {
                problems.push(format!(
                    "lab {}: `{}` does not fail on an invariant: {how}",
                    m.number, t.name
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

#[test]
fn figures_and_generated_pages_are_current() {
    let root = root();
    let labs = labs();
    let mut problems = Vec::new();
    // The generated pages cover every lab (the reading times are one table), whatever
    // `LABS_ONLY` picks for the rest of the gate.
    let every_lab = workbook::meta::load_labs(&root)
        .expect("labs/ can be read")
        .labs;
    for (path, text) in generated_pages(&root, &every_lab) {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            problems.push(format!(
                "{} is out of date: run `cargo labs bless`",
                path.display()
            ));
        }
    }
    let figures = root.join("book/src/figures").to_string_lossy().into_owned();
    let checked = in_parallel(&labs, |lab| {
        match run_lab(lab, &["figures", &figures, "--check"]) {
            Ok(run) if run.success() => None,
            Ok(run) => Some(format!("lab {}: {}", lab.meta.number, run.stderr.trim())),
            Err(problem) => Some(format!("lab {}: {problem}", lab.meta.number)),
        }
    });
    problems.extend(checked.into_iter().flatten());
    report(problems);
}

#[test]
fn no_solution_or_starter_draws_an_integrity_note() {
    let root = root();
    let mut problems = Vec::new();
    for lab in labs() {
        for (edition, folder) in [("reference solution", "solutions"), ("starter", "labs")] {
            for file in &lab.meta.learner_files {
                let path = root.join(folder).join(lab.slug()).join(file);
                let source = std::fs::read_to_string(&path).unwrap();
                let scan = workbook::integrity::scan(file, &source);
                if scan.refused {
                    problems.push(format!(
                        "lab {}: the {edition} would be refused",
                        lab.meta.number
                    ));
                }
                for note in scan.notes {
                    problems.push(format!(
                        "lab {}: the {edition} draws a note no honest file should: {note}",
                        lab.meta.number
                    ));
                }
            }
        }
    }
    report(problems);
}
