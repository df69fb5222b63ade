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

/// The last lines of a long text, for error messages.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
