//! Grading a class: each lab is graded on its own. A scratch workbook with three tiny labs
//! — one that passes, one that hangs, one that does not compile — proves that the hang and
//! the compile error cost only their own lab, are named, and leave the others graded; and
//! that the Classroom format gives partial credit per test.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A lab whose binary prints a fixed report and whose graded suite is `tests`.
fn tiny_lab(root: &Path, number: &str, id: &str, tests: &str, main_extra: &str) {
    let dir = root.join(format!("labs/{number}-{id}"));
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"lab{number}-{id}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [[bin]]\nname = \"lab{number}-{id}\"\npath = \"src/main.rs\"\n\n\
             [[test]]\nname = \"graded\"\npath = \"../../tests/{number}_{id}.rs\"\n"
        ),
    );
    write(
        &dir.join("src/main.rs"),
        &format!(
            "fn main() {{ {main_extra} println!(\"{{}}\", r#\"{{\"lab\":\"{id}\",\"checks\":[{{\"id\":\"it-works\",\"claim\":\"it works\",\"holds\":true}},{{\"id\":\"it-is-magic\",\"claim\":\"it is magic\",\"holds\":false}}],\"questions\":[],\"sqlite\":null,\"summary\":null}}\"#); }}\n"
        ),
    );
    write(&root.join(format!("tests/{number}_{id}.rs")), tests);
    write(
        &dir.join("lab.toml"),
        &format!(
            "id = \"{id}\"\nnumber = \"{number}\"\ntitle = \"Tiny {id}\"\npackage = \"lab{number}-{id}\"\n\
             solution_package = \"none\"\nchapter = \"book/src/x.md\"\ngraded_suite = \"tests/{number}_{id}.rs\"\n\
             learner_files = []\ntime_limit_secs = 20\nstarter_fails = []\nhints = [\"h\"]\n\n\
             [points]\npredictions = 10\ngraded = 20\n\n[published]\n\n\
             [[check]]\nclaim = \"it works\"\nholds = true\nexplain = \"e\"\n\n\
             [[check]]\nclaim = \"it is magic\"\nholds = false\nexplain = \"e\"\n"
        ),
    );
    write(
        &dir.join("predictions.txt"),
        "it-works = holds\nit-is-magic = holds\n",
    );
}

fn scratch_workbook() -> PathBuf {
    let root = std::env::temp_dir().join(format!("boundary-grading-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    write(&root.join("book.toml"), "[book]\n");
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"labs/*\"]\n",
    );
    tiny_lab(
        &root,
        "01",
        "passes",
        "#[test]\nfn one() {}\n#[test]\nfn two() { assert_eq!(1 + 1, 3, \"arithmetic\"); }\n#[test]\nfn three() {}\n",
        "",
    );
    tiny_lab(
        &root,
        "02",
        "hangs",
        "#[test]\nfn forever() { loop { std::hint::spin_loop(); } }\n",
        "",
    );
    tiny_lab(
        &root,
        "03",
        "broken",
        "#[test]\nfn fine() {}\n",
        "let x: u32 = \"not a number\";",
    );
    root
}

#[test]
fn a_hang_and_a_compile_error_cost_only_their_own_lab() {
    let root = scratch_workbook();
    // The hanging lab gets a short limit; the wall clock only decides when to stop it.
    let toml = root.join("labs/02-hangs/lab.toml");
    let text = std::fs::read_to_string(&toml)
        .unwrap()
        .replace("time_limit_secs = 20", "time_limit_secs = 4");
    std::fs::write(&toml, text).unwrap();
    // In lab 01 the starter failed `one` and `two`; `three` guards against regressions.
    let toml = root.join("labs/01-passes/lab.toml");
    let text = std::fs::read_to_string(&toml)
        .unwrap()
        .replace("starter_fails = []", "starter_fails = [\"one\", \"two\"]");
    std::fs::write(&toml, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_workbook"))
        .args(["grade", "--json"])
        .env("BOUNDARY_LABS_ROOT", &root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let grade: Value = serde_json::from_slice(&out.stdout).unwrap();
    let labs = grade["labs"].as_array().unwrap();
    let (passes, hangs, broken) = (&labs[0], &labs[1], &labs[2]);

    assert_eq!(passes["status"], "ran");
    assert_eq!(passes["tests"]["passed"], 2);
    assert_eq!(passes["tests"]["total"], 3);
    assert_eq!(
        passes["predictions"]["correct"], 1,
        "`it is magic` was predicted wrong"
    );
    assert_eq!(
        passes["points"]["graded"], 10.0,
        "`one` of the two tests the starter failed passes; `three` earns nothing alone"
    );
    assert_eq!(passes["points"]["predictions"], 5.0);

    assert_eq!(hangs["status"], "timeout");
    let note = hangs["notes"][0].as_str().unwrap();
    assert!(note.contains("lab 02") && note.contains("hang"), "{note}");
    assert_eq!(hangs["points"]["graded"], 0.0);

    assert_eq!(broken["status"], "compile-error");
    let note = broken["notes"][0].as_str().unwrap();
    assert!(note.contains("lab 03 does not compile"), "{note}");
    assert_eq!(
        broken["predictions"]["correct"], 1,
        "predictions are still scored, against the answer keys"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_workbook"))
        .args(["grade", "--classroom", "01"])
        .env("BOUNDARY_LABS_ROOT", &root)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .output()
        .unwrap();
    let classroom: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(classroom["version"], 1);
    assert_eq!(classroom["status"], "fail");
    assert_eq!(classroom["max_score"], 30);
    let tests = classroom["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 4, "three graded tests and the predictions");
    let scores: Vec<f64> = tests.iter().map(|t| t["score"].as_f64().unwrap()).collect();
    // Sorted by name: one, three (a regression guard), two; then the predictions.
    assert_eq!(scores, vec![10.0, 0.0, 0.0, 5.0]);
    let max: Vec<f64> = tests
        .iter()
        .map(|t| t["max_score"].as_f64().unwrap())
        .collect();
    assert_eq!(max, vec![10.0, 0.0, 10.0, 10.0]);
    let _ = std::fs::remove_dir_all(&root);
}
