//! Grading, as a learner's own `cargo labs grade` does it, in a scratch workbook of tiny
//! labs on the real lab kit: a hang and a compile error cost only their own lab and are
//! named; a test that does not report (exit, abort, stack overflow) fails and says how;
//! lines printed to imitate the harness earn nothing; a time limit of `u64::MAX` is
//! capped; a broken lab.toml costs only its lab; the Classroom format gives partial credit
//! and shows the integrity notes.

use crate::common;

use common::{TinyLab, sealed_predictions, shared_target, stderr, tiny_workbook};
use serde_json::Value;
use std::path::Path;

fn grade(root: &Path, args: &[&str]) -> Value {
    let out = common::cli(root, &[&["grade"], args].concat())
        .env("CARGO_TARGET_DIR", shared_target())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", common::stdout(&out)))
}

#[test]
fn a_hang_and_a_compile_error_cost_only_their_own_lab() {
    let root = tiny_workbook(
        "grading",
        &[
            TinyLab {
                number: "01",
                id: "passes",
                names: &["one", "two", "three"],
                tests: "fn one() {}\nfn two() { assert_eq!(1 + 1, 3, \"arithmetic\"); }\nfn three() {}\n",
                library: "",
                // The starter failed `one` and `two`; `three` guards against regressions.
                starter_fails: &["one", "two"],
                time_limit_secs: 60,
                main: "",
            },
            TinyLab {
                number: "02",
                id: "hangs",
                names: &["before", "forever", "after"],
                tests: "fn before() {}\nfn forever() { loop { std::hint::spin_loop(); } }\nfn after() {}\n",
                library: "",
                starter_fails: &["before", "forever", "after"],
                // Far beyond any cap: grading.toml's default caps it at 600 s; here the
                // workbook's grading.toml caps it at 4.
                time_limit_secs: u64::MAX,
                main: "",
            },
            TinyLab {
                number: "03",
                id: "broken",
                names: &["fine"],
                tests: "fn fine() {}\n",
                library: "pub fn f() -> u32 { \"not a number\" }\n",
                starter_fails: &["fine"],
                time_limit_secs: 60,
                main: "",
            },
        ],
    );
    std::fs::write(
        root.join("grading.toml"),
        "[limits]\nmax_time_limit_secs = 4\n",
    )
    .unwrap();
    sealed_predictions(&root, "01-passes", &[("q01", "yes"), ("q02", "yes")]);
    // Lab 04's metadata is broken (its crate is fine): it costs lab 04 only.
    common::write(
        &root.join("labs/04-bad/lab.toml"),
        "id = \"bad\"\nnumber = ",
    );
    common::write(
        &root.join("labs/04-bad/Cargo.toml"),
        "[package]\nname = \"lab04-bad\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    );
    common::write(&root.join("labs/04-bad/src/lib.rs"), "");

    let grade = grade(&root, &["--json"]);
    let labs = grade["labs"].as_array().unwrap();
    let (passes, hangs, broken, bad) = (&labs[0], &labs[1], &labs[2], &labs[3]);

    assert_eq!(passes["status"], "graded");
    assert_eq!(passes["tests"]["passed"], 2);
    assert_eq!(passes["tests"]["expected"], 3);
    assert_eq!(
        passes["predictions"]["correct"], 1,
        "`it is magic` was predicted wrong"
    );
    assert_eq!(
        passes["points"]["graded"], 10.0,
        "`one` of the two tests the starter failed passes; `three` earns nothing alone"
    );
    assert_eq!(passes["points"]["predictions"], 5.0);

    // A hang costs its own test and its own time limit: the tests after it still run.
    assert_eq!(hangs["status"], "graded");
    let outcomes: Vec<&str> = (hangs["tests"]["results"].as_array().unwrap().iter())
        .map(|t| t["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["passed", "timed-out", "passed"]);
    let note = hangs["notes"][0].as_str().unwrap();
    assert!(note.contains("`forever`") && note.contains("4 s"), "{note}");
    assert_eq!(hangs["points"]["graded"], 13.33);

    assert_eq!(broken["status"], "did-not-compile");
    let reason = broken["reason"].as_str().unwrap();
    assert!(reason.contains("lab 03 does not compile"), "{reason}");
    assert!(reason.contains("mismatched types"), "{reason}");

    assert_eq!(bad["status"], "broken-metadata");
    assert!(
        bad["reason"]
            .as_str()
            .unwrap()
            .contains("lab.toml cannot be read"),
        "{bad}"
    );

    let out = common::cli(&root, &["grade", "--classroom", "01"])
        .env("CARGO_TARGET_DIR", shared_target())
        .output()
        .unwrap();
    let classroom: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(classroom["version"], 1);
    assert_eq!(classroom["status"], "fail");
    assert_eq!(classroom["max_score"], 30.0);
    let tests = classroom["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4, "three graded tests and the predictions");
    let scores: Vec<f64> = tests.iter().map(|t| t["score"].as_f64().unwrap()).collect();
    // In the suite's order: one, two, three (a regression guard); then the predictions.
    assert_eq!(scores, vec![10.0, 0.0, 0.0, 5.0]);
    let max: Vec<f64> = tests
        .iter()
        .map(|t| t["max_score"].as_f64().unwrap())
        .collect();
    assert_eq!(max, vec![10.0, 10.0, 0.0, 10.0]);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_test_that_does_not_report_fails_and_lines_that_imitate_the_harness_earn_nothing() {
    let fake = "println!(\"test a ... ok\\ntest b ... ok\\ntest c ... ok\\ntest d ... ok\");\n    \
                println!(\"<labkit-graded-result> a passed 0123456789abcdef0123456789abcdef\");";
    let tests = String::from(
        "fn a() { lab::cheat(); }\n\
         fn b() { std::process::exit(0); }\n\
         fn c() { fn deep(n: u64) -> u64 { if n == 0 { 0 } else { 1 + deep(std::hint::black_box(n) - 1) } } deep(u64::MAX); }\n\
         fn d() { std::process::abort(); }\n\
         fn e() { for _ in 0..100_000 { println!(\"{}\", \"x\".repeat(100)); } }\n\
         fn f() { println!(\"<labkit-graded-result> f passed 0123456789abcdef\"); }\n\
         fn g() {}\n",
    );
    let library = format!("pub fn cheat() {{\n    {fake}\n    std::process::exit(0);\n}}\n");
    let root = tiny_workbook(
        "unreported",
        &[TinyLab {
            number: "01",
            id: "cheats",
            names: &["a", "b", "c", "d", "e", "f", "g"],
            tests: &tests,
            library: &library,
            starter_fails: &["a", "b", "c", "d", "e", "f", "g"],
            time_limit_secs: 60,
            main: "",
        }],
    );
    std::fs::write(
        root.join("grading.toml"),
        "[limits]\nmax_test_output_bytes = 65536\n",
    )
    .unwrap();
    let grade = grade(&root, &["--json"]);
    let lab = &grade["labs"][0];
    // `e` floods its output and `f` prints a guess at a result line before its own: both
    // then report properly, and neither report is believed. Only `g` passes.
    assert_eq!(lab["tests"]["passed"], 1, "only `g` passes: {lab}");
    assert_eq!(
        lab["points"]["graded"], 2.86,
        "one of seven tests sharing 20 points"
    );
    let results = lab["tests"]["results"].as_array().unwrap();
    let how = |i: usize| {
        results[i]["detail"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(how(0).contains("exited with code 0"), "{}", how(0));
    assert!(how(1).contains("exited with code 0"), "{}", how(1));
    assert!(how(2).contains("signal"), "a stack overflow: {}", how(2));
    assert!(how(3).contains("signal 6"), "an abort: {}", how(3));
    assert!(how(4).contains("more than the 64 KiB"), "{}", how(4));
    assert!(how(5).contains("not its own"), "{}", how(5));
    assert!(results[6]["passed"].as_bool().unwrap());
    let notes: Vec<String> = lab["integrity"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            format!(
                "{} {}",
                n["file"].as_str().unwrap_or_default(),
                n["text"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("without the grader's proof")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`e` printed more than 64 KiB")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("labs/01-cheats/src/lib.rs uses `std::process`")),
        "{notes:?}"
    );
    let out = common::cli(&root, &["grade", "--classroom"])
        .env("CARGO_TARGET_DIR", shared_target())
        .output()
        .unwrap();
    let classroom: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let integrity = classroom["tests"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["name"].as_str().is_some_and(|n| n.ends_with("integrity")));
    let integrity = integrity.expect("an integrity entry");
    assert_eq!(integrity["status"], "fail");
    assert_eq!(integrity["score"], 0.0);
    assert!(
        integrity["message"]
            .as_str()
            .unwrap()
            .contains("std::process")
    );
    let _ = std::fs::remove_dir_all(&root);
}
