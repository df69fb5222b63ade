//! `cargo labs grade-class` over a scratch class graded from this teacher's edition (lab
//! 01 only, to keep it short): a solved submission earns everything, an untouched one
//! earns what a starter earns, and each way of tampering tried so far earns nothing it did
//! not earn by its learner file — or is named in an integrity note where only a reviewer
//! can judge it. A submission is never written to.

#[path = "../../workbook/tests/common/mod.rs"]
mod common;

use common::{repo, scratch_dir, stderr};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use workbook::meta::load_labs;
use workbook::predictions::{self, Seal};

const RELAY: &str = "labs/01-outbox/src/relay.rs";
const PREDICTIONS: &str = "labs/01-outbox/predictions.txt";

fn put(root: &Path, rel: &str, text: &str) {
    common::write(&root.join(rel), text);
}

/// A copy of the student edition: what a learner clones.
fn clone_of(edition: &Path, class: &Path, learner: &str) -> PathBuf {
    let to = class.join(learner);
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(edition)
        .arg(&to)
        .status()
        .unwrap();
    assert!(status.success());
    to
}

/// Lab 01's right answers written after a seal of nothing (`cargo labs run --anyway`,
/// then answers from the run): every one of them a revision.
fn answered_after_the_seal(edition: &Path) -> String {
    let lab = load_labs(edition).unwrap().labs.remove(0);
    let seal = Seal::new(&lab, &BTreeMap::new(), "2026-12-01T09:00:00Z");
    predictions::with_seal(
        &predictions::render(&lab, &lab.right_answers(), None),
        &seal,
    )
}

/// Lab 01's answers from the key, sealed the way `cargo labs run` seals them; with
/// `forge`, the answers are put in after the seal (its checksum no longer matches).
fn predictions_text(edition: &Path, forge: bool) -> String {
    let lab = load_labs(edition).unwrap().labs.remove(0);
    let right = lab.right_answers();
    let sealed_answers = if forge {
        BTreeMap::new()
    } else {
        right.clone()
    };
    let seal = Seal::new(&lab, &sealed_answers, "2026-12-01T09:00:00Z");
    let forged_seal = Seal {
        answers: Seal::new(&lab, &right, &seal.at).answers,
        ..seal.clone()
    };
    predictions::with_seal(
        &predictions::render(&lab, &right, None),
        if forge { &forged_seal } else { &seal },
    )
}

/// Every file of a folder, with its bytes, to prove grading wrote nothing there.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_class_with_every_tampering_tried_earns_only_what_its_learner_files_earn() {
    let class = scratch_dir("class");
    let edition = class.join("template");
    let out = common::run_cli(&repo(), &["export", edition.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let submissions = class.join("submissions");
    std::fs::create_dir_all(&submissions).unwrap();
    let solution =
        std::fs::read_to_string(repo().join("solutions/01-outbox/src/relay.rs")).unwrap();

    let solved = clone_of(&edition, &submissions, "a-solved");
    put(&solved, RELAY, &solution);
    put(&solved, PREDICTIONS, &predictions_text(&edition, false));

    // Everything but the learner file and the predictions is the teacher's.
    let settings = clone_of(&edition, &submissions, "b-settings");
    let lab_toml = std::fs::read_to_string(settings.join("labs/01-outbox/lab.toml")).unwrap();
    let lab_toml = lab_toml
        .replace(
            "time_limit_secs = 180",
            "time_limit_secs = 18446744073709551615",
        )
        .replace("predictions = 10", "predictions = 1000")
        .replace("graded = 20", "graded = 2000");
    let lab_toml = regex_free_replace(
        &lab_toml,
        "starter_fails = [",
        "]",
        "starter_fails = [\"the_fault_free_relay_delivers_every_intent_once\", \"every_schedule_replays_identically\"]",
    );
    put(&settings, "labs/01-outbox/lab.toml", &lab_toml);
    put(
        &settings,
        "tests/01_outbox.rs",
        "graded::suite![a_retried_identity_is_recognised];\nfn a_retried_identity_is_recognised() {}\n",
    );
    // Every invariant of the lab's harness turned into a pass.
    let invariants =
        std::fs::read_to_string(settings.join("labs/01-outbox/src/invariants.rs")).unwrap();
    put(
        &settings,
        "labs/01-outbox/src/invariants.rs",
        &format!("{invariants}\n// tampered: every check below returns Ok\n"),
    );
    let graded = std::fs::read_to_string(settings.join("crates/labkit/src/graded.rs")).unwrap();
    put(
        &settings,
        "crates/labkit/src/graded.rs",
        &graded.replace("passed: proven && exited_ok", "passed: true"),
    );
    put(
        &settings,
        "grading.toml",
        "[predictions]\nmode = \"participation\"\n",
    );
    put(
        &settings,
        ".cargo/config.toml",
        "[alias]\nlabs = \"version\"\n",
    );
    // A build script that would write into another submission, were it ever built.
    put(
        &settings,
        "labs/01-outbox/build.rs",
        &format!(
            "fn main() {{ let _ = std::fs::write({:?}, \"owned\"); }}\n",
            solved.join("owned.txt").display().to_string()
        ),
    );

    let starter = clone_of(&edition, &submissions, "c-starter");

    let symlink = clone_of(&edition, &submissions, "d-symlink");
    std::fs::remove_file(symlink.join(RELAY)).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        repo().join("solutions/01-outbox/src/relay.rs"),
        symlink.join(RELAY),
    )
    .unwrap();

    let include = clone_of(&edition, &submissions, "e-include");
    put(
        &include,
        RELAY,
        &format!(
            "include!({:?});\n",
            repo()
                .join("solutions/01-outbox/src/relay.rs")
                .display()
                .to_string()
        ),
    );

    let forger = clone_of(&edition, &submissions, "f-forger");
    let starter_relay = std::fs::read_to_string(forger.join(RELAY)).unwrap();
    put(
        &forger,
        RELAY,
        &starter_relay.replace(
            "    for intent in relay.unsent_intents()? {",
            "    for t in [\"exactly_once_under_every_schedule_with_two_faults\", \"no_effect_is_lost_when_a_response_is_lost_or_the_relay_crashes\"] {\n        println!(\"test {t} ... ok\");\n        println!(\"<labkit-graded-result> {t} passed 00000000000000000000000000000000\");\n    }\n    std::process::exit(0);\n    #[allow(unreachable_code)]\n    for intent in relay.unsent_intents()? {",
        ),
    );
    put(&forger, PREDICTIONS, &predictions_text(&edition, true));

    let huge = clone_of(&edition, &submissions, "g-huge");
    put(
        &huge,
        RELAY,
        &format!("{solution}\n{}", "// padding\n".repeat(40_000)),
    );

    let late = clone_of(&edition, &submissions, "h-late");
    put(&late, PREDICTIONS, &answered_after_the_seal(&edition));

    // A classmate's predictions file, copied whole: its seal is theirs.
    let copier = clone_of(&edition, &submissions, "i-copier");
    put(&copier, PREDICTIONS, &predictions_text(&edition, false));

    let everyone = [
        &solved, &settings, &starter, &symlink, &include, &forger, &huge, &late, &copier,
    ];
    let before: Vec<_> = everyone.iter().map(|d| snapshot(d)).collect();
    let json = class.join("class.json");
    let csv = class.join("class.csv");
    let dirs: Vec<String> = everyone.iter().map(|d| d.display().to_string()).collect();
    let mut args: Vec<&str> = vec!["grade-class"];
    args.extend(dirs.iter().map(String::as_str));
    let work = repo().join("target/grade-class-test");
    let (json_arg, csv_arg, work_arg) = (
        json.display().to_string(),
        csv.display().to_string(),
        work.display().to_string(),
    );
    args.extend([
        "--labs", "01", "--json", &json_arg, "--csv", &csv_arg, "--work", &work_arg,
    ]);
    let out = common::run_cli(&repo(), &args);
    assert!(out.status.success(), "{}", stderr(&out));

    let after: Vec<_> = everyone.iter().map(|d| snapshot(d)).collect();
    assert_eq!(before, after, "grade-class wrote into a submission");
    assert!(!solved.join("owned.txt").exists());

    let lab = load_labs(&repo()).unwrap().labs.remove(0);
    let suite = std::fs::read_to_string(repo().join(&lab.meta.graded_suite)).unwrap();
    let tests = workbook::meta::graded_test_names(&suite).len();
    let grade: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let sandboxed = grade["sandboxed"].as_bool().unwrap();
    let rows: BTreeMap<String, &Value> = grade["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["learner"].as_str().unwrap().to_string(), r))
        .collect();
    let notes = |learner: &str| -> String {
        rows[learner]["integrity"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let points = |learner: &str| {
        (
            rows[learner]["graded_points"].as_f64().unwrap(),
            rows[learner]["prediction_points"].as_f64().unwrap(),
        )
    };
    for row in rows.values() {
        assert_eq!(row["graded_max"], 20.0, "the teacher's points: {row}");
        assert_eq!(row["prediction_max"], 10.0, "the teacher's points: {row}");
        assert_eq!(row["tests_expected"], tests, "the teacher's suite: {row}");
        assert_eq!(row["sandboxed"], sandboxed);
    }
    assert_eq!(points("a-solved"), (20.0, 10.0), "{}", notes("a-solved"));
    assert_eq!(rows["a-solved"]["tests_passed"], tests);
    assert_eq!(points("b-settings"), (0.0, 0.0), "{}", notes("b-settings"));
    assert_eq!(
        rows["b-settings"]["tests_passed"],
        tests - lab.meta.starter_fails.len(),
        "the starter's own two"
    );
    // What was changed is ignored, and named for the reviewer.
    let tampered = notes("b-settings");
    assert!(
        tampered.contains("changed files the grader does not take")
            && tampered.contains("tests/01_outbox.rs")
            && tampered.contains("labs/01-outbox/src/invariants.rs"),
        "{tampered}"
    );
    assert!(!notes("c-starter").contains("changed files"));
    assert_eq!(points("c-starter"), (0.0, 0.0));
    assert_eq!(points("d-symlink"), (0.0, 0.0), "{}", notes("d-symlink"));
    assert!(notes("d-symlink").contains("symbolic link"));
    // A file that brings in another file is refused, sandbox or not: the starter is graded
    // in its place, and the note says why.
    assert!(
        notes("e-include").contains("brings in another file"),
        "{}",
        notes("e-include")
    );
    assert_eq!(points("e-include"), (0.0, 0.0), "{}", notes("e-include"));
    assert_eq!(points("f-forger"), (0.0, 0.0), "{}", notes("f-forger"));
    let forged = notes("f-forger");
    assert!(forged.contains("without the grader's proof"), "{forged}");
    assert!(forged.contains("uses `std::process`"), "{forged}");
    assert!(
        forged.contains("seal line of predictions.txt was edited"),
        "{forged}"
    );
    assert_eq!(points("g-huge"), (0.0, 0.0));
    assert_eq!(
        points("h-late"),
        (0.0, 0.0),
        "answers given after the seal earn nothing"
    );
    assert!(notes("g-huge").contains("more than"), "{}", notes("g-huge"));
    for (learner, other) in [("i-copier", "a-solved"), ("a-solved", "i-copier")] {
        let shared = format!("the same seal line as {other}'s");
        assert!(notes(learner).contains(&shared), "{}", notes(learner));
    }
    assert!(!notes("h-late").contains("the same seal line"));

    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(
        csv.starts_with("learner,lab,graded_points,graded_max,"),
        "{csv}"
    );
    assert!(
        csv.contains(&format!("\na-solved,01,20,20,10,10,{tests},{tests},")),
        "{csv}"
    );
    let _ = std::fs::remove_dir_all(&class);
}

/// Replaces the text from `start` to the next `end` (inclusive) with `with`.
fn regex_free_replace(text: &str, start: &str, end: &str, with: &str) -> String {
    let from = text.find(start).unwrap();
    let to = from + text[from..].find(end).unwrap() + end.len();
    format!("{}{with}{}", &text[..from], &text[to..])
}
