//! Running cargo as a subprocess with a time limit, and reading what libtest printed.
//! The CLI never links lab code: everything it learns about a lab comes through here.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct Finished {
    /// The exit code; None when killed.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub seconds: f64,
}

impl Finished {
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// True when cargo stopped because the code did not compile.
    pub fn compile_error(&self) -> bool {
        self.stderr.contains("could not compile") || self.stderr.contains("error[E")
    }
}

/// The cargo that runs us (cargo sets `CARGO` for `cargo run`), or `cargo` on the PATH.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Runs `command` in `dir`, killing its whole process group after `limit`. The wall
/// clock is fine here: this is the CLI, not simulated code.
pub fn run_limited(command: Command, dir: &Path, limit: Duration) -> std::io::Result<Finished> {
    run_cancellable(command, dir, limit, &AtomicBool::new(false))
}

/// Like [`run_limited`], and also stops as soon as `cancel` is set (watch mode: a newer
/// save or `q` does not wait for a check that no longer matters). A cancelled run is not
/// a timeout.
pub fn run_cancellable(
    mut command: Command,
    dir: &Path,
    limit: Duration,
    cancel: &AtomicBool,
) -> std::io::Result<Finished> {
    use std::os::unix::process::CommandExt;
    command
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command.spawn()?;
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        let cancelled = cancel.load(Ordering::SeqCst);
        if cancelled || started.elapsed() >= limit {
            timed_out = !cancelled;
            // The group holds cargo and the test binary it started: stop them all.
            let _ = Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(10));
    };
    Ok(Finished {
        code: status.and_then(|s| s.code()),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        timed_out,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// One graded test's result, as libtest printed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestResult {
    pub name: String,
    pub passed: bool,
    /// What the test printed when it failed (its panic message, a timeline, a diff).
    pub output: String,
}

/// Reads `test NAME ... ok|FAILED` lines and the `---- NAME stdout ----` sections.
pub fn parse_libtest(stdout: &str) -> Vec<TestResult> {
    let mut results: Vec<TestResult> = Vec::new();
    for line in stdout.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, verdict)) = rest.rsplit_once(" ... ") else {
            continue;
        };
        let passed = match verdict.trim() {
            "ok" => true,
            "FAILED" => false,
            _ => continue,
        };
        results.push(TestResult {
            name: name.trim().to_string(),
            passed,
            output: String::new(),
        });
    }
    let mut current: Option<usize> = None;
    for line in stdout.lines() {
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            current = results.iter().position(|r| r.name == name);
            continue;
        }
        if line == "failures:" || line.starts_with("test result:") {
            current = None;
            continue;
        }
        if let Some(i) = current {
            results[i].output.push_str(line);
            results[i].output.push('\n');
        }
    }
    results
}

/// What a failed test printed, without what only a Rust developer needs: the panic's
/// location line, the backtrace and the note about `RUST_BACKTRACE`. The timeline, the
/// explanation, a diff and the replay command stay.
pub fn clean_failure(output: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut in_backtrace = false;
    for line in output.lines() {
        if line.starts_with("stack backtrace:") {
            in_backtrace = true;
            continue;
        }
        if in_backtrace && !line.starts_with("note: ") {
            continue;
        }
        in_backtrace = false;
        let noise = (line.starts_with("thread '") && line.contains("panicked at"))
            || line.starts_with("note: run with `RUST_BACKTRACE")
            || line.starts_with("note: Some details are omitted");
        if !noise {
            lines.push(line);
        }
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// Removes ANSI colour sequences (pretty_assertions colours its diffs even when the output
/// goes to a file or a grader).
pub fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ … final byte in @..~
            for d in chars.by_ref() {
                if ('@'..='~').contains(&d) && d != '[' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The last lines of a long text, for error messages.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn colour_sequences_are_removed() {
        assert_eq!(
            super::strip_ansi("\u{1b}[31m<\u{1b}[0m\u{1b}[1;48;5;52;31mAppl\u{1b}[0m"),
            "<Appl"
        );
    }

    #[test]
    fn a_failure_keeps_its_message_and_loses_the_panic_noise() {
        let output = "\nthread 'x' (12) panicked at crates/labkit/src/fault/explore.rs:146:13:\n\
                      invariant violated: no message is lost\n\
                      stack backtrace:\n   0: rust_begin_unwind\n\
                      note: Some details are omitted, run with `RUST_BACKTRACE=full`\n\
                      replay: cargo labs replay 05 ledger v1:0.1\n\
                      note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
        assert_eq!(
            super::clean_failure(output),
            vec![
                "invariant violated: no message is lost",
                "replay: cargo labs replay 05 ledger v1:0.1"
            ]
        );
    }
}
