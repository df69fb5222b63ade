//! `cargo labs new NN-slug "Title"` scaffolds a lab the gates accept as it is. Proven
//! in a scratch copy of the workbook that holds only what a lab needs (the workspace
//! manifest without the template lab, the lock file, crates/labkit,
//! crates/unified-features and crates/graded,
//! book.toml, SUMMARY.md) with its own target folder, by the gates' own logic: the
//! files are laid out as CONTRIBUTING.md says and formatted; the metadata, published
//! hashes, predictions page and book includes are right; the chapter keeps the book's
//! rules and the sources the readability limits; the solution passes every graded test,
//! the starter fails exactly `starter_fails` on an invariant, every entry of the
//! catalogue is rejected as its mutant.toml says, the observed verdicts equal the
//! answer keys and the figures are current. And `new` refuses a taken number or id, and
//! never overwrites a file.

use crate::common;
use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use support::{book_rules, readability};
use workbook::blob::file_blob;
use workbook::grade::TestOutcome;
use workbook::grade::run::{GradedSuite, LabRun, RunEnv, SuiteRun, build_and_run};
use workbook::meta::{Lab, load_labs, predictions_page};
use workbook::mutants::gate as catalogue;
use workbook::mutants::{Mutant, catalogue as entries_of};
use workbook::process::{self, Finished, Job, cargo};

use common::{copy_tree, repo as root};

const SLUG: &str = "11-retried-writes";

/// The workspace manifest of the scratch copy: the teacher's without the template lab,
/// with the catalogue's packages as members.
fn scratch_manifest() -> String {
    let mut manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    let workspace = manifest["workspace"].as_table_mut().unwrap();
    for key in ["members", "default-members"] {
        let members = workspace[key].as_array_mut().unwrap();
        members.retain(|m| {
            !m.as_str()
                .unwrap()
                .starts_with("crates/workbook/templates/")
        });
    }
    workspace["members"]
        .as_array_mut()
        .unwrap()
        .push("mutants/*".into());
    toml::to_string(&manifest).unwrap()
}

/// A fresh scratch workbook. Its target folder is kept between runs (the scratch lives
/// in cargo's test temp folder), so a second run does not compile serde again.
fn scratch_workbook() -> PathBuf {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scaffold-workbook");
    std::fs::create_dir_all(&scratch).unwrap();
    for entry in std::fs::read_dir(&scratch).unwrap().flatten() {
        if entry.file_name() != "target" {
            let path = entry.path();
            if path.is_dir() {
                std::fs::remove_dir_all(&path).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
        }
    }
    common::seed_dependency_builds(&scratch.join("target"));
    common::write(&scratch.join("Cargo.toml"), &scratch_manifest());
    for file in ["Cargo.lock", "book.toml", "book/src/SUMMARY.md"] {
        common::write(
            &scratch.join(file),
            &std::fs::read_to_string(root().join(file)).unwrap(),
        );
    }
    // The kit (and the crate that unifies its builds' features), and the graded suites'
    // harness the labs' suites link.
    for krate in ["crates/labkit", "crates/unified-features", "crates/graded"] {
        copy_tree(&root().join(krate), &scratch.join(krate));
    }
    std::fs::create_dir_all(scratch.join("labs")).unwrap();
    // A teacher's edition, where `cargo labs new` runs: it has a solutions folder.
    std::fs::create_dir_all(scratch.join("solutions")).unwrap();
    scratch
}

fn labs_cli(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(common::cli_binary())
        .args(args)
        .current_dir(dir)
        .env_remove("BOUNDARY_LABS_ROOT")
        .env("BOUNDARY_LABS_STATE", dir.join(".labs"))
        .output()
        .expect("the CLI starts")
}

fn cargo_in(dir: &Path, args: &[&str]) -> Finished {
    let mut command = cargo();
    command
        .args(args)
        .env("CARGO_TARGET_DIR", dir.join("target"));
    process::run(Job::new(command, Duration::from_secs(900)), dir).expect("cargo starts")
}

fn report(what: &str, problems: Vec<String>) {
    assert!(problems.is_empty(), "{what}:\n{}\n", problems.join("\n\n"));
}

/// The layout of CONTRIBUTING.md, every file formatted.
fn files_are_laid_out_and_formatted(dir: &Path) {
    let mut sources = Vec::new();
    for file in [
        "labs/11-retried-writes/Cargo.toml",
        "labs/11-retried-writes/harness/Cargo.toml",
        "labs/11-retried-writes/lab.toml",
        "labs/11-retried-writes/src/lib.rs",
        "labs/11-retried-writes/src/main.rs",
        "labs/11-retried-writes/src/world.rs",
        "labs/11-retried-writes/src/receiver.rs",
        "labs/11-retried-writes/src/scenarios.rs",
        "labs/11-retried-writes/src/invariants.rs",
        "labs/11-retried-writes/src/figures.rs",
        "labs/11-retried-writes/src/observe/mod.rs",
        "solutions/11-retried-writes/Cargo.toml",
        "solutions/11-retried-writes/src/receiver.rs",
        "solutions/11-retried-writes/mutants/identity-by-amount/mutant.toml",
        "tests/11_retried_writes.rs",
        "book/src/11-retried-writes.md",
        "book/src/predictions/11-retried-writes.md",
        "book/src/figures/11-retried-writes-lost-response.svg",
    ] {
        assert!(dir.join(file).is_file(), "{file} was scaffolded");
    }
    for folder in ["labs/11-retried-writes", "solutions/11-retried-writes"] {
        readability::rust_files(&dir.join(folder), &mut sources);
    }
    sources.push(dir.join("tests/11_retried_writes.rs"));
    let fmt = Command::new("rustfmt")
        .args(["--edition", "2024", "--check"])
        .args(&sources)
        .output()
        .expect("rustfmt starts");
    assert!(
        fmt.status.success(),
        "the scaffolded code is formatted:\n{}",
        String::from_utf8_lossy(&fmt.stdout)
    );
}

/// The metadata the gate reads: SUMMARY.md, `[published]` (complete and current), the
/// predictions page and the chapter's includes.
fn metadata_is_right(dir: &Path, lab: &Lab) {
    let m = &lab.meta;
    assert_eq!(
        (m.id.as_str(), m.number.as_str(), m.title.as_str()),
        ("retried-writes", "11", "Retried \"writes\"")
    );
    let summary = std::fs::read_to_string(dir.join("book/src/SUMMARY.md")).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.ends_with("(11-retried-writes.md)"))
        .expect("SUMMARY.md lists the chapter");
    assert!(
        lines[at - 1].ends_with("(10-topic-to-table-after-the-run.md)"),
        "the chapter follows chapter 10's two pages in SUMMARY.md"
    );
    for (path, blob) in &m.published {
        assert_eq!(
            &file_blob(&dir.join(path)).unwrap(),
            blob,
            "published hash of {path}"
        );
    }
    // What the consistency gate requires: the manifests, every source, the suite.
    let mut required = vec![
        dir.join(&m.graded_suite),
        lab.dir.join("Cargo.toml"),
        lab.dir.join("harness/Cargo.toml"),
    ];
    readability::rust_files(&lab.dir.join("src"), &mut required);
    for path in required {
        let rel = path.strip_prefix(dir).unwrap().to_string_lossy();
        assert!(
            m.published.contains_key(rel.as_ref()),
            "[published] has {rel}"
        );
    }
    let page = std::fs::read_to_string(dir.join("book/src/predictions/11-retried-writes.md"));
    assert_eq!(page.unwrap(), predictions_page(lab), "the page is current");
    let chapter = book_rules::chapter_text(dir, lab);
    let mut includes = 0;
    for part in chapter.split("{{#include ").skip(1) {
        let spec = part.split("}}").next().unwrap();
        let (file, anchor) = spec.split_once(':').unwrap_or((spec, ""));
        let source = std::fs::read_to_string(dir.join("book/src").join(file))
            .unwrap_or_else(|e| panic!("{{{{#include {spec}}}}}: {e}"));
        if !anchor.is_empty() {
            assert!(
                source.contains(&format!("// ANCHOR: {anchor}\n"))
                    && source.contains(&format!("// ANCHOR_END: {anchor}\n")),
                "{{{{#include {spec}}}}} resolves"
            );
        }
        includes += 1;
    }
    assert_eq!(
        includes, 5,
        "the chapter includes code and the predictions page"
    );
}

/// The book's rules for the chapter and the readability limits for the sources.
fn chapter_and_sources_keep_the_rules(dir: &Path, lab: &Lab) {
    let chapter = dir.join(&lab.meta.chapter);
    let mut problems = book_rules::order_problems(dir, lab);
    problems.extend(book_rules::split_problems(dir, lab));
    problems.extend(book_rules::before_predict_problems(dir, lab));
    problems.extend(book_rules::grounds_problems(dir, lab));
    problems.extend(book_rules::balance_problem(lab));
    problems.extend(book_rules::figure_problems(dir, lab));
    problems.extend(book_rules::unlinked_chapter_references(&chapter));
    for (line, width) in book_rules::wide_code_lines(&book_rules::expanded(&chapter)) {
        problems.push(format!("a code line of {width} columns: {line}"));
    }
    report("the chapter keeps the book's rules", problems);
    let mut problems: Vec<String> = readability::file_sizes(dir, lab)
        .into_iter()
        .filter(|(lines, _)| *lines > readability::MAX_FILE_LINES)
        .map(|(lines, file)| format!("{file}: {lines} lines"))
        .collect();
    problems.extend(readability::long_functions(dir, lab));
    problems.extend(readability::import_circles(lab));
    report("the sources keep the readability limits", problems);
}

/// Builds the solution's, the starter's and every catalogue entry's graded suites in one
/// cargo run and runs each the way the grader does.
fn graded_runs(dir: &Path, lab: &Lab, mutants: &[Mutant]) -> Vec<(String, SuiteRun)> {
    let mut packages = vec![lab.meta.solution_package.clone(), lab.meta.package.clone()];
    for mutant in mutants {
        let package = catalogue::package_name(lab, mutant);
        let written = catalogue::write_package(lab, mutant, &dir.join("mutants").join(&package));
        report(
            "every entry's edits apply",
            written.err().into_iter().collect(),
        );
        packages.push(package);
    }
    let settings = workbook::settings::Settings::default();
    let suites: Vec<GradedSuite> = (packages.iter())
        .map(|package| GradedSuite::for_package(lab, package, dir, &settings))
        .collect();
    assert_eq!(
        suites[0].expected.len(),
        3,
        "the suite declares three tests"
    );
    let runs = build_and_run(dir, &suites, &RunEnv::gate(None));
    packages
        .into_iter()
        .zip(runs)
        .map(|(package, run)| match run {
            LabRun::Ran(run) => (package, run),
            other => panic!("{package} builds: {other:?}"),
        })
        .collect()
}

/// The solution passes, the starter fails exactly `starter_fails` on the invariant, and
/// every entry of the catalogue is rejected as its mutant.toml says.
fn graded_runs_are_right(dir: &Path, lab: &Lab) {
    let mutants = entries_of(lab).expect("the catalogue loads");
    assert!(!mutants.is_empty(), "the catalogue has an entry");
    let runs = graded_runs(dir, lab, &mutants);
    let (solution, starter) = (&runs[0].1, &runs[1].1);
    let failing = |run: &SuiteRun| -> Vec<String> {
        let failed = run.tests.iter().filter(|t| !t.passed());
        failed.map(|t| t.name.clone()).collect()
    };
    assert_eq!(
        failing(solution),
        Vec::<String>::new(),
        "the solution passes: {:?}",
        solution.tests
    );
    assert_eq!(starter.tests.len(), 3, "every graded test ran");
    assert_eq!(
        failing(starter),
        lab.meta.starter_fails,
        "the starter fails what lab.toml says"
    );
    let first = starter.tests.iter().find(|t| !t.passed()).unwrap();
    for shown in [
        "invariant violated: every message takes effect exactly once",
        "client saw",
        "Contradiction: ",
        "replay: cargo labs replay 11 delivery v2:",
    ] {
        assert!(
            first.output.contains(shown) && first.outcome == TestOutcome::Failed,
            "the starter fails on the invariant, with a timeline and its replay ({shown}):\n{}",
            first.output
        );
    }
    let mut problems = Vec::new();
    let mut signatures = BTreeSet::new();
    for (mutant, (_, run)) in mutants.iter().zip(&runs[2..]) {
        let label = format!("mutant `{}`", mutant.name);
        problems.extend(catalogue::judge(&label, mutant, run));
        let (seen, mismatch) = catalogue::signature_problem(&label, lab, mutant, run);
        problems.extend(mismatch);
        signatures.insert(format!("{seen:?}"));
    }
    report("every entry of the catalogue is rejected", problems);
    assert_eq!(
        signatures.len(),
        mutants.len(),
        "each entry fails its own way"
    );
}

/// Every observed verdict and answer equals its key; the figures are current.
fn observed_verdicts_equal_the_keys(dir: &Path, lab: &Lab) {
    let m = &lab.meta;
    let run = cargo_in(
        dir,
        &["run", "-q", "-p", &m.package, "--", "observe", "--json"],
    );
    assert!(run.success(), "the observe run works:\n{}", run.stderr);
    let report: labkit::Report = serde_json::from_str(run.stdout.trim()).unwrap();
    let problems = workbook::observed::report_problems(lab, &report);
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
    assert!(
        lab.key.checks.iter().any(|key| !key.holds),
        "a misconception is among the claims"
    );
    let figures = dir.join("book/src/figures").display().to_string();
    let run = cargo_in(
        dir,
        &[
            "run", "-q", "-p", &m.package, "--", "figures", &figures, "--check",
        ],
    );
    assert!(
        run.success(),
        "the figures are current (the template's own: `cargo run -q -p lab99-template -- figures crates/workbook/templates/book/src/figures`):\n{}",
        run.stderr
    );
}

/// A taken number or id, a malformed name, a file in the way: refused, nothing written.
fn new_refuses_and_never_overwrites(dir: &Path) {
    let before = std::fs::read_to_string(dir.join("book/src/SUMMARY.md")).unwrap();
    let again = labs_cli(dir, &["new", "11-other", "Other"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already has that number"));
    let same_id = labs_cli(dir, &["new", "12-retried-writes", "Same id"]);
    assert_eq!(same_id.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&same_id.stderr).contains("already has that number or id"));
    let bad = labs_cli(dir, &["new", "12_Bad", "Bad"]);
    assert_eq!(bad.status.code(), Some(2));
    let in_the_way = dir.join("tests/12_other.rs");
    std::fs::write(&in_the_way, "// someone's file\n").unwrap();
    let blocked = labs_cli(dir, &["new", "12-other", "Other"]);
    assert_eq!(blocked.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&blocked.stderr).contains("never overwrites"));
    assert_eq!(
        std::fs::read_to_string(&in_the_way).unwrap(),
        "// someone's file\n"
    );
    for path in [
        "labs/11-other",
        "labs/12-retried-writes",
        "labs/12_Bad",
        "labs/12-other",
    ] {
        assert!(!dir.join(path).exists(), "nothing of {path} was written");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("book/src/SUMMARY.md")).unwrap(),
        before
    );
}

#[test]
fn a_scaffolded_lab_is_one_the_gates_accept() {
    let dir = scratch_workbook();
    let out = labs_cli(&dir, &["new", SLUG, "Retried \"writes\""]);
    assert!(
        out.status.success(),
        "`cargo labs new` failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    files_are_laid_out_and_formatted(&dir);
    let labs = load_labs(&dir).expect("labs/ can be read");
    assert!(labs.broken.is_empty(), "{:?}", labs.broken);
    assert_eq!(labs.labs.len(), 1);
    let lab = &labs.labs[0];
    metadata_is_right(&dir, lab);
    chapter_and_sources_keep_the_rules(&dir, lab);
    graded_runs_are_right(&dir, lab);
    observed_verdicts_equal_the_keys(&dir, lab);
    new_refuses_and_never_overwrites(&dir);
}
