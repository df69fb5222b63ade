//! Interrupting or killing the CLI ends everything it started. Each case starts a command
//! whose lab never finishes (a graded test or an observe run that sleeps), waits until
//! that process exists, sends the CLI a real signal — SIGINT as Ctrl-C does, SIGTERM as
//! `kill` does, SIGKILL as `kill -9` does — and then finds no process of the lab left.
#![cfg(target_os = "linux")]

use crate::common;

use common::{TinyLab, processes_mentioning, shared_target, tiny_workbook};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A lab whose graded test `test` and whose binary both sleep "forever". The test's name
/// marks its process (each test of this file uses its own, as they run side by side).
fn sleeper(test: &str) -> std::path::PathBuf {
    let body =
        format!("fn {test}() {{ std::thread::sleep(std::time::Duration::from_secs(3600)); }}\n");
    tiny_workbook(
        "signals",
        &[TinyLab {
            number: "01",
            id: "sleeper",
            names: &[test],
            tests: &body,
            library: "",
            starter_fails: &[test],
            time_limit_secs: 600,
            main: "std::thread::sleep(std::time::Duration::from_secs(3600));",
        }],
    )
}

/// `name` made this run's own: another `cargo test` running at the same time (another
/// copy of the workbook) has sleepers of its own, and they are not this run's to find.
fn unique(name: &str) -> String {
    format!("{name}_{}", std::process::id())
}

/// Waits (bounded: the first case builds the lab kit) until a process mentioning
/// `marker` runs.
fn wait_for(marker: &str) {
    let started = Instant::now();
    while processes_mentioning(marker).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "no process mentioning `{marker}` started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills the CLI when a case fails half-way, so no sleeper outlives the test run.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `args` in `root`, signals the CLI with `signal` once the lab's process runs, and
/// proves that nothing of the lab is left.
fn interrupt(root: &Path, args: &[&str], marker: &str, signal: Signal) {
    let mut child = Reaped(
        common::cli(root, args)
            .env("CARGO_TARGET_DIR", shared_target())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for(marker);
    kill(Pid::from_raw(child.0.id() as i32), signal).unwrap();
    let status = child.0.wait().unwrap();
    assert!(
        !status.success(),
        "{args:?}: the CLI was stopped by {signal}"
    );
    let started = Instant::now();
    loop {
        let left = processes_mentioning(marker);
        if left.is_empty() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{args:?} stopped by {signal} left {left:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The command line of the sleeping lab binary run by `cargo labs run`.
const BINARY_MARKER: &str = "lab01-sleeper observe";

#[test]
fn check_grade_and_run_end_their_children_on_every_signal() {
    let test = &unique("sleeps_under_check");
    let root = sleeper(test);
    let graded = format!("--graded-child {test}");
    // `run` seals the (empty) predictions first, then runs the sleeping binary.
    common::write(&root.join("labs/01-sleeper/predictions.txt"), "q01 = yes\n");
    for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGKILL] {
        interrupt(&root, &["check", "01"], &graded, signal);
        interrupt(&root, &["grade", "--json"], &graded, signal);
        interrupt(&root, &["run", "01", "--anyway"], BINARY_MARKER, signal);
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn grade_class_ends_its_children_on_every_signal() {
    let test = &unique("sleeps_under_grade_class");
    let teacher = sleeper(test);
    let graded = format!("--graded-child {test}");
    let class = common::scratch_dir("signals-class");
    let submission = class.join("ann");
    std::fs::create_dir_all(submission.join("labs/01-sleeper/src")).unwrap();
    std::fs::write(submission.join("labs/01-sleeper/src/lib.rs"), "").unwrap();
    // A submission is a copy of the workbook: without its book.toml it is not graded.
    std::fs::write(submission.join("book.toml"), "[book]\n").unwrap();
    let work = class.join("work");
    let (submission, work) = (submission.display().to_string(), work.display().to_string());
    for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGKILL] {
        interrupt(
            &teacher,
            &["grade-class", &submission, "--work", &work],
            &graded,
            signal,
        );
    }
    let _ = std::fs::remove_dir_all(&teacher);
    let _ = std::fs::remove_dir_all(&class);
}

#[test]
fn a_process_that_leaves_the_session_does_not_outlive_check() {
    // The graded test starts `sleep` in a session of its own (`setsid --fork`), out of the
    // guard's process group, and returns: the test passes, and the sleeper is orphaned. Its
    // output goes nowhere, so no pipe keeps `check` waiting: only the guard can end it.
    let test = &unique("leaves_a_daemon_behind");
    // A sleep no other run asks for: the marker of this run's daemon.
    let marker = &format!("3599.{}", std::process::id() % 1000 + 1000);
    let body = format!(
        "fn {test}() {{ use std::process::{{Command, Stdio}}; \
         Command::new(\"setsid\").args([\"--fork\", \"sleep\", \"{marker}\"]) \
         .stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()) \
         .status().unwrap(); }}\n"
    );
    let root = tiny_workbook(
        "signals-daemon",
        &[TinyLab {
            number: "01",
            id: "daemon",
            names: &[test],
            tests: &body,
            library: "",
            starter_fails: &[test],
            time_limit_secs: 600,
            main: "",
        }],
    );
    let out = common::cli(&root, &["check", "01"])
        .env("CARGO_TARGET_DIR", shared_target())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1/1 graded tests pass"), "{stdout}");
    let left = processes_mentioning(marker);
    for (pid, _) in &left {
        let _ = kill(Pid::from_raw(*pid as i32), Signal::SIGKILL);
    }
    assert!(left.is_empty(), "check left {left:?} running");
    let _ = std::fs::remove_dir_all(&root);
}
