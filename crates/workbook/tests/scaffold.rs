//! `cargo labs new NN-slug "Title"` scaffolds a lab the consistency gate accepts. Proven
//! in a scratch copy of the workbook that holds only what a lab needs (the workspace
//! manifest and lock file, crates/labkit, book.toml, SUMMARY.md) with its own target
//! folder: the files are laid out as CONTRIBUTING.md says and formatted, the metadata,
//! published hashes, predictions page and book includes are right, the solution passes
//! every graded test, the starter fails exactly `starter_fails` on an invariant, and the
//! observed verdicts equal the answer keys.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use workbook::blob::file_blob;
use workbook::compile::{self, Artifact, BuildEnv};
use workbook::meta::{load_labs, predictions_page};
use workbook::process::{self, Finished, Job, cargo};
use workbook::suite::{self, SuiteEnv, SuiteRun};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
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
    let root = root();
    for file in ["Cargo.toml", "Cargo.lock", "book.toml"] {
        std::fs::copy(root.join(file), scratch.join(file)).unwrap();
    }
    copy_dir(&root.join("crates/labkit"), &scratch.join("crates/labkit"));
    std::fs::create_dir_all(scratch.join("book/src")).unwrap();
    std::fs::copy(
        root.join("book/src/SUMMARY.md"),
        scratch.join("book/src/SUMMARY.md"),
    )
    .unwrap();
    std::fs::create_dir_all(scratch.join("labs")).unwrap();
    scratch
}

fn labs_cli(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_workbook"))
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

#[test]
fn a_scaffolded_lab_is_one_the_consistency_gate_accepts() {
    let dir = scratch_workbook();
    let out = labs_cli(&dir, &["new", "11-retried-writes", "Retried \"writes\""]);
    assert!(
        out.status.success(),
        "`cargo labs new` failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The layout of CONTRIBUTING.md.
    for file in [
        "labs/11-retried-writes/Cargo.toml",
        "labs/11-retried-writes/lab.toml",
        "labs/11-retried-writes/src/lib.rs",
        "labs/11-retried-writes/src/main.rs",
        "labs/11-retried-writes/src/observe.rs",
        "labs/11-retried-writes/src/harness.rs",
        "labs/11-retried-writes/src/receiver.rs",
        "solutions/11-retried-writes/Cargo.toml",
        "solutions/11-retried-writes/src/lib.rs",
        "solutions/11-retried-writes/src/receiver.rs",
        "tests/11_retried_writes.rs",
        "book/src/11-retried-writes.md",
        "book/src/predictions/11-retried-writes.md",
    ] {
        assert!(dir.join(file).is_file(), "{file} was scaffolded");
    }
    let sources: Vec<PathBuf> = [
        "labs/11-retried-writes/src/lib.rs",
        "labs/11-retried-writes/src/main.rs",
        "labs/11-retried-writes/src/observe.rs",
        "labs/11-retried-writes/src/harness.rs",
        "labs/11-retried-writes/src/receiver.rs",
        "solutions/11-retried-writes/src/receiver.rs",
        "tests/11_retried_writes.rs",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
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

    // The metadata the gate reads.
    let labs = load_labs(&dir).expect("labs/ can be read").labs;
    assert_eq!(labs.len(), 1);
    let lab = &labs[0];
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
        lines[at - 1].ends_with("(10-topic-to-table.md)"),
        "the chapter follows chapter 10 in SUMMARY.md"
    );
    for (path, blob) in &m.published {
        assert_eq!(
            &file_blob(&dir.join(path)).unwrap(),
            blob,
            "published hash of {path}"
        );
    }
    assert!(m.published.contains_key(&m.graded_suite));
    let page = std::fs::read_to_string(dir.join("book/src/predictions/11-retried-writes.md"));
    assert_eq!(
        page.unwrap(),
        predictions_page(lab),
        "the predictions page is current"
    );
    let chapter = std::fs::read_to_string(dir.join(&m.chapter)).unwrap();
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
        includes, 4,
        "the chapter includes code and the predictions page"
    );

    // The solution passes every graded test.
    let suite = std::fs::read_to_string(dir.join(&m.graded_suite)).unwrap();
    let declared_list = workbook::meta::graded_test_names(&suite);
    let declared: BTreeSet<String> = declared_list.iter().cloned().collect();
    assert_eq!(declared.len(), 3, "the suite declares three tests");
    let graded = |package: &str| -> SuiteRun {
        let built = compile::build(
            &dir,
            &[package],
            Artifact::GradedSuite,
            &BuildEnv::default(),
            Duration::from_secs(900),
        )
        .expect("cargo starts");
        let exe = built.executable(package).expect("the suite builds");
        let env = SuiteEnv {
            time_limit: Duration::from_secs(300),
            output_cap: 1 << 20,
            env: Vec::new(),
            wrap: None,
            cancel: None,
        };
        suite::run(exe, &dir, &declared_list, &env)
    };
    let run = graded(&m.solution_package);
    let passed: BTreeSet<String> = run
        .tests
        .iter()
        .filter(|r| r.passed)
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(passed, declared, "the solution passes: {:?}", run.tests);

    // The starter compiles and fails exactly `starter_fails`, on the invariant.
    let run = graded(&m.package);
    assert_eq!(run.tests.len(), 3, "every graded test ran");
    let failed: Vec<_> = run.tests.iter().filter(|r| !r.passed).collect();
    let names: Vec<&str> = failed.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names, m.starter_fails,
        "the starter fails what lab.toml says"
    );
    assert!(
        failed[0]
            .output
            .contains("invariant violated: every message takes effect exactly once"),
        "it fails on the invariant, with a timeline:\n{}",
        failed[0].output
    );
    assert!(
        failed[0]
            .output
            .contains("replay: cargo labs replay 11 delivery v2:")
    );

    // Every observed verdict and answer equals its key.
    let run = cargo_in(
        &dir,
        &["run", "-q", "-p", &m.package, "--", "observe", "--json"],
    );
    assert!(run.success(), "the observe run works:\n{}", run.stderr);
    let report: labkit::Report = serde_json::from_str(run.stdout.trim()).unwrap();
    let observed: Vec<(String, bool)> = report
        .checks
        .iter()
        .map(|c| (c.id.clone(), c.holds))
        .collect();
    let keys: Vec<(String, bool)> = lab
        .key
        .checks
        .iter()
        .map(|c| (c.id.clone(), c.holds))
        .collect();
    assert_eq!(observed, keys);
    assert!(
        keys.iter().any(|(_, holds)| !holds),
        "a misconception is among the claims"
    );
    let answers: Vec<(&str, &str)> = report
        .questions
        .iter()
        .map(|a| (a.id.as_str(), a.answer.as_str()))
        .collect();
    let expected: Vec<(&str, &str)> = lab
        .key
        .questions
        .iter()
        .map(|q| (q.id.as_str(), q.answer.as_str()))
        .collect();
    assert_eq!(answers, expected);

    // A second `new` with that number, or a malformed name, is refused and writes nothing.
    let before = std::fs::read_to_string(dir.join("book/src/SUMMARY.md")).unwrap();
    let again = labs_cli(&dir, &["new", "11-other", "Other"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already has that number"));
    let bad = labs_cli(&dir, &["new", "12_Bad", "Bad"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(!dir.join("labs/11-other").exists() && !dir.join("labs/12_Bad").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("book/src/SUMMARY.md")).unwrap(),
        before
    );
}
