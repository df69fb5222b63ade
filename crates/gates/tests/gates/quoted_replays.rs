//! Every replay command the book and the README quote names a real schedule: a `v2:`
//! token that the starter (the code a reader replays it on first) still fits. A quoted
//! token the code no longer fits would be refused, and a `v1:` token could name another
//! schedule than the one the text describes.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;
use workbook::meta::load_labs;
use workbook::process::{self, Ending, Job, cargo};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The `cargo labs replay NN SCENARIO TOKEN` commands quoted in `text` (placeholders such
/// as `NN SCENARIO TOKEN` are skipped).
fn quoted_replays(text: &str) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    for part in text.split("cargo labs replay ").skip(1) {
        let words: Vec<&str> = part
            .split_whitespace()
            .take(3)
            .map(|w| w.trim_end_matches(['`', '.', ',', ')', ';', ':']))
            .collect();
        if let [lab, scenario, token] = words.as_slice()
            && lab.chars().all(|c| c.is_ascii_digit())
        {
            found.push((lab.to_string(), scenario.to_string(), token.to_string()));
        }
    }
    found
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

#[test]
fn every_quoted_replay_token_fits_the_starter() {
    let root = root();
    let labs = load_labs(&root).expect("labs/ can be read").labs;
    let mut files = vec![root.join("README.md")];
    markdown_files(&root.join("book/src"), &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, scenario, token) in quoted_replays(&text) {
            let quoted = format!(
                "{}: `cargo labs replay {number} {scenario} {token}`",
                file.display()
            );
            let Some(lab) = labs.iter().find(|l| l.meta.number == number) else {
                problems.push(format!("{quoted}: there is no lab {number}"));
                continue;
            };
            if !token.starts_with("v2:") {
                problems.push(format!(
                    "{quoted}: quote a `v2:` token (it names its choice sites), e.g. the one `cargo labs check {number}` prints"
                ));
                continue;
            }
            let mut command = cargo();
            command.args(["run", "-q", "-p", &lab.meta.package, "--", "replay"]);
            command.args([&scenario, &token]);
            let job = Job::new(command, Duration::from_secs(lab.meta.time_limit_secs));
            let run = process::run(job, &root).expect("cargo starts");
            checked += 1;
            match run.ending {
                Ending::Exited(0 | 1) if !run.stdout.starts_with("note:") => {}
                ending => problems.push(format!(
                    "{quoted}: the starter's replay {} — replace the token with a current one:\n{}{}",
                    ending.describe(),
                    run.stdout,
                    run.stderr
                )),
            }
        }
    }
    assert!(checked > 0, "the book quotes no replay command");
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}

#[test]
fn quoted_commands_are_found_and_placeholders_skipped() {
    let text = "run `cargo labs replay NN SCENARIO TOKEN` or\n```text\ncargo labs replay 01 relay v2:0.1@abcde\n```\nand `cargo labs replay 03 reservations v2:0.0.1@00000`.";
    assert_eq!(
        quoted_replays(text),
        vec![
            ("01".into(), "relay".into(), "v2:0.1@abcde".into()),
            ("03".into(), "reservations".into(), "v2:0.0.1@00000".into()),
        ]
    );
}

fn lab01_replay(token: &str) -> process::Finished {
    let mut command = cargo();
    command.args([
        "run",
        "-q",
        "-p",
        "lab01-outbox",
        "--",
        "replay",
        "relay",
        token,
    ]);
    process::run(Job::new(command, Duration::from_secs(600)), &root()).expect("cargo starts")
}

#[test]
fn the_lab_binary_refuses_a_token_its_code_does_not_fit() {
    // The starter's first failure, with its digest changed by one: a token made on other
    // choice sites.
    let stale = lab01_replay("v2:0.0.0.0.1@2d2d7");
    assert_eq!(stale.ending, Ending::Exited(3), "{}", stale.stderr);
    assert!(stale.stdout.is_empty(), "no timeline of another schedule");
    let message = stale.stderr.trim();
    assert!(message.starts_with("stale token: v2:0.0.0.0.1@2d2d7 does not fit scenario `relay`"));
    assert!(!message.contains('\n'), "one paragraph: {message}");
    // A path this code cannot take is refused too, whatever its version.
    let beyond = lab01_replay("v1:0.9");
    assert_eq!(beyond.ending, Ending::Exited(3), "{}", beyond.stderr);
    // A v1 token that the code can follow replays, and says it cannot be verified.
    let old = lab01_replay("v1:0.0.0.0.1");
    assert_eq!(old.ending, Ending::Exited(1), "{}", old.stderr);
    assert!(
        old.stdout
            .starts_with("note: v1:0.0.0.0.1 names no choice sites")
            && old.stdout.contains("v2:0.0.0.0.1@2d2d6"),
        "{}",
        old.stdout
    );
    // A malformed token is a usage error.
    let malformed = lab01_replay("v2:0.0.0.0.1");
    assert_eq!(malformed.ending, Ending::Exited(2), "{}", malformed.stderr);

    // The CLI turns the refusal into its own message and exit code 1.
    let state = std::env::temp_dir().join(format!("boundary-replay-{}", std::process::id()));
    let out = std::process::Command::new(common::cli_binary())
        .args(["replay", "01", "relay", "v2:0.0.0.0.1@2d2d7"])
        .env("BOUNDARY_LABS_ROOT", root())
        .env("BOUNDARY_LABS_STATE", &state)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&state);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("stale token: v2:0.0.0.0.1@2d2d7"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("every invariant held"));
}
