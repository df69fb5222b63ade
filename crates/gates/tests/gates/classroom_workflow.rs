//! The student edition's GitHub Classroom workflow, its shell steps run here: it refuses
//! to grade without a pinned grader (no silent self-grading), it sets the runner up for
//! bubblewrap and passes `--no-sandbox` only after bubblewrap's own check failed, saying
//! what bubblewrap said, and it carries the names Classroom's reporter looks for.
#![cfg(unix)]

use crate::common;

use common::{repo, scratch_dir};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workflow() -> String {
    std::fs::read_to_string(repo().join("editions/student/.github/workflows/classroom.yml"))
        .unwrap()
}

/// The `run: |` script of the step named `name`, dedented.
fn step_script(name: &str) -> String {
    let text = workflow();
    let start = text
        .find(&format!("- name: {name}\n"))
        .unwrap_or_else(|| panic!("a step `{name}`"));
    let rest = &text[start..];
    let run = rest.find("run: |\n").expect("a run block") + "run: |\n".len();
    let mut script = String::new();
    let mut indent = None;
    for line in rest[run..].lines() {
        let here = line.len() - line.trim_start().len();
        if !line.trim().is_empty() && here <= 8 {
            break;
        }
        let cut = *indent.get_or_insert(here);
        script.push_str(line.get(cut..).unwrap_or(""));
        script.push('\n');
    }
    script
}

/// Runs `script` in bash with `env`, `bin` first on the PATH; returns its output and
/// what it wrote to `$GITHUB_OUTPUT`.
fn run_step(script: &str, env: &[(&str, &str)], bin: Option<&Path>) -> (Output, String) {
    let dir = scratch_dir("workflow");
    let output_file = dir.join("github-output");
    std::fs::write(&output_file, "").unwrap();
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(script)
        .env("GITHUB_OUTPUT", &output_file);
    command
        .env_remove("GRADER_REPOSITORY")
        .env_remove("GRADER_REF");
    for (key, value) in env {
        command.env(key, value);
    }
    if let Some(bin) = bin {
        let path = std::env::var("PATH").unwrap_or_default();
        command.env("PATH", format!("{}:{path}", bin.display()));
    }
    let out = command.output().unwrap();
    let written = std::fs::read_to_string(&output_file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (out, written)
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

#[test]
fn without_a_pinned_grader_nothing_is_graded() {
    let script = step_script("Refuse to grade without a pinned grader");
    let learner = ("GITHUB_REPOSITORY", "class-org/lab-alice");
    for (env, says) in [
        (vec![learner], "No grader is pinned"),
        (
            vec![learner, ("GRADER_REPOSITORY", ""), ("GRADER_REF", "")],
            "No grader is pinned",
        ),
        (
            vec![
                learner,
                ("GRADER_REPOSITORY", "class-org/grader"),
                ("GRADER_REF", "main"),
            ],
            "40-digit",
        ),
        (
            vec![
                learner,
                ("GRADER_REPOSITORY", "class-org/grader"),
                ("GRADER_REF", "0123456"),
            ],
            "40-digit",
        ),
        (
            vec![
                learner,
                ("GRADER_REPOSITORY", "Class-Org/Lab-Alice"),
                ("GRADER_REF", COMMIT),
            ],
            "this repository itself",
        ),
    ] {
        let (out, _) = run_step(&script, &env, None);
        assert!(!out.status.success(), "{env:?} must fail: {}", text(&out));
        assert!(
            text(&out).contains("::error::") && text(&out).contains(says),
            "{env:?}: {}",
            text(&out)
        );
    }
    let pinned = [
        learner,
        ("GRADER_REPOSITORY", "class-org/grader"),
        ("GRADER_REF", COMMIT),
    ];
    let (out, _) = run_step(&script, &pinned, None);
    assert!(out.status.success(), "{}", text(&out));
}

/// A folder of stand-ins: `sudo` that runs nothing (the runner is not ours here) and a
/// `bwrap` that ends with `code`, saying `says`.
fn stand_ins(code: i32, says: &str) -> PathBuf {
    let dir = scratch_dir("stand-ins");
    let write = |name: &str, body: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        let mut permissions = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&path, permissions).unwrap();
    };
    write("sudo", "exit 0");
    write("bwrap", &format!("echo '{says}' >&2; exit {code}"));
    dir
}

#[test]
fn the_sandbox_is_given_up_only_when_bubblewrap_itself_fails_and_the_result_says_so() {
    let script = step_script("A sandbox for the submission's code");
    assert!(
        script.contains("kernel.apparmor_restrict_unprivileged_userns=0"),
        "{script}"
    );
    let failing = stand_ins(1, "bwrap: setting up uid map: Permission denied");
    let (out, written) = run_step(&script, &[], Some(&failing));
    assert!(out.status.success(), "{}", text(&out));
    assert!(written.contains("flag=--no-sandbox"), "{written}");
    assert!(text(&out).contains("::warning::"), "{}", text(&out));
    assert!(
        text(&out).contains("setting up uid map: Permission denied"),
        "bubblewrap's own error: {}",
        text(&out)
    );
    let working = stand_ins(0, "");
    let (out, written) = run_step(&script, &[], Some(&working));
    assert!(written.lines().any(|l| l == "flag="), "{written}");
    assert!(!text(&out).contains("::warning::"), "{}", text(&out));
    for dir in [failing, working] {
        let _ = std::fs::remove_dir_all(dir);
    }
    // The grading step passes exactly what that step decided, and nothing else does.
    let grade = step_script("Grade every lab");
    assert!(
        grade.contains("--classroom --base64 ${{ steps.sandbox.outputs.flag }}"),
        "{grade}"
    );
    assert_eq!(
        workflow().matches("--no-sandbox").count(),
        1,
        "only the sandbox step may name --no-sandbox"
    );
}

#[test]
fn the_names_classrooms_reporter_looks_for_are_there() {
    let text = workflow();
    assert!(
        text.contains("\nname: Autograding Tests\n"),
        "the workflow's name"
    );
    assert!(
        text.contains("\n  run-autograding-tests:\n    name: Autograding Tests\n"),
        "the job's id and name (the check run's name)"
    );
    assert!(text.contains("        id: labs\n"), "the grading step's id");
    assert!(
        text.contains("LABS_RESULTS: \"${{ steps.labs.outputs.result }}\""),
        "the reporter reads <ID>_RESULTS"
    );
    assert!(text.contains("runners: labs"));
    // Only what cargo verifies is restored from a cache the learner's repository can write.
    assert!(!text.contains("target"), "no build folder is cached");
}
