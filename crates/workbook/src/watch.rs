//! `cargo labs watch [N]`: re-runs a lab's graded tests each time the learner saves one of
//! its files, and prints the verdict and the next step. Keys: `h` hint, `r` run (observe),
//! `c` check now, `n` next lab, `q` quit.
//!
//! The files are polled (modification time and size, every 50 ms; std only). In a
//! terminal, keys act at once: the terminal is put in non-canonical mode with `stty` and
//! restored on the way out. Signals stay with the terminal driver only as bytes: with
//! `-isig`, Ctrl-C and Ctrl-D arrive as keys and quit through the same path as `q`, so the
//! terminal is restored then too (the workspace forbids unsafe code, so no signal handler).
//! When stdin is not a terminal, keys are read a line at a time (the first letter counts)
//! and the end of input quits.
//!
//! A check runs in its own thread, in its own process group: a new save cancels the
//! running check (the whole group is killed) and starts a new one, and `q` never waits for
//! a check. This is CLI code, not simulated code: threads and the wall clock are fine here.

use crate::Failure;
use crate::commands::{self, Outcome, Workbook, explain_failed_run, read_predictions};
use crate::meta::Lab;
use crate::progress::now_utc;
use crate::runner::{self, Finished, TestResult, cargo, parse_libtest, run_cancellable};
use colored::Colorize;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, SystemTime};

/// How often the lab's files are looked at.
const POLL: Duration = Duration::from_millis(50);
/// Where the graded tests put their scratch databases under watch, when it exists and
/// `TMPDIR` is not set: a memory file system, where SQLite's fsyncs cost nothing (lab 01's
/// graded run: 0.86 s with /tmp on disk, 0.58 s here). The results are the same.
const FAST_TMP: &str = "/dev/shm";
const KEYS: &str = "h hint · r run (observe) · c check now · n next lab · q quit";
/// The most lines of one failing test's output shown under a verdict.
const FAILURE_LINES: usize = 30;

enum Event {
    Key(char),
    InputClosed,
    Checked {
        id: u64,
        finished: std::io::Result<Finished>,
    },
}

/// `cargo labs watch [N]`. Without N, the first lab not yet graded green.
pub fn watch(wb: &Workbook, wanted: Option<&Lab>) -> Outcome {
    // Open the store first, so a note about it comes before the header.
    drop(wb.progress()?);
    let index = match wanted {
        Some(lab) => wb
            .labs
            .iter()
            .position(|l| l.meta.id == lab.meta.id)
            .unwrap_or(0),
        None => first_unfinished(wb)?,
    };
    let terminal = Terminal::single_keys();
    let (tx, rx) = mpsc::channel();
    read_keys(tx.clone(), terminal.is_some());
    let mut session = Session {
        wb,
        index,
        tx,
        checks: 0,
        running: None,
        stamps: Vec::new(),
        terminal: terminal.is_some(),
    };
    session.open_lab();
    let result = session.serve(&rx);
    session.stop_check(&rx);
    drop(terminal);
    println!("watch ended");
    result
}

/// The index of the first lab whose last graded run was not green (or the last lab).
fn first_unfinished(wb: &Workbook) -> Result<usize, Failure> {
    let progress = wb.progress()?;
    Ok(wb
        .labs
        .iter()
        .position(|lab| {
            !progress
                .last(&lab.meta.id, "check")
                .is_some_and(|g| g.total > 0 && g.passed == g.total)
        })
        .unwrap_or(wb.labs.len().saturating_sub(1)))
}

struct Running {
    id: u64,
    cancel: Arc<AtomicBool>,
}

struct Session<'a> {
    wb: &'a Workbook,
    index: usize,
    tx: Sender<Event>,
    /// Checks started so far; each verdict line carries its number.
    checks: u64,
    running: Option<Running>,
    /// (file, modification time and size) of each watched file, as last seen.
    stamps: Vec<(PathBuf, Option<(SystemTime, u64)>)>,
    terminal: bool,
}

impl Session<'_> {
    fn lab(&self) -> &Lab {
        &self.wb.labs[self.index]
    }

    /// The learner files and predictions.txt of the current lab.
    fn files(&self) -> Vec<PathBuf> {
        let lab = self.lab();
        let mut files: Vec<PathBuf> = lab
            .meta
            .learner_files
            .iter()
            .map(|f| lab.dir.join(f))
            .collect();
        files.push(lab.predictions_path());
        files
    }

    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.wb.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    fn header(&self) {
        let lab = self.lab();
        println!(
            "{} {} · {}",
            "watching lab".bold(),
            lab.meta.number.bold(),
            lab.meta.title
        );
        let files: Vec<String> = self.files().iter().map(|f| self.shown(f)).collect();
        println!("  files: {}", files.join(", "));
        if self.terminal {
            println!("  keys:  {KEYS}");
        } else {
            println!("  keys (a letter, then Enter): {KEYS}");
        }
    }

    /// Shows the current lab, remembers its files as they are, and checks it.
    fn open_lab(&mut self) {
        self.stamps = stamps(&self.files());
        self.header();
        self.predictions_state();
        self.start_check("first check");
    }

    fn serve(&mut self, rx: &Receiver<Event>) -> Outcome {
        loop {
            match rx.recv_timeout(POLL) {
                Ok(Event::Key(key)) => match key.to_ascii_lowercase() {
                    // Ctrl-C and Ctrl-D arrive as bytes in single-key mode.
                    'q' | '\u{3}' | '\u{4}' => return Ok(()),
                    'h' => self.act(commands::hint(self.wb, self.lab())),
                    'r' => self.act(commands::run(self.wb, self.lab(), false)),
                    'c' => {
                        self.fresh_screen();
                        self.start_check("check requested");
                    }
                    'n' => self.next_lab(),
                    k if k.is_ascii_alphanumeric() => {
                        println!("unknown key `{k}`; keys: {KEYS}");
                    }
                    _ => {}
                },
                Ok(Event::InputClosed) | Err(RecvTimeoutError::Disconnected) => return Ok(()),
                Ok(Event::Checked { id, finished }) => {
                    if self.running.as_ref().is_some_and(|r| r.id == id) {
                        self.running = None;
                        self.verdict(id, finished);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            self.poll_files();
        }
    }

    /// Prints what a command run from a key said when it failed; watching goes on.
    fn act(&self, outcome: Outcome) {
        if let Err(failure) = outcome {
            println!("{} {}", "error:".red().bold(), failure.message);
        }
        println!("keys: {KEYS}");
    }

    /// In a terminal, each new check starts on a clean screen under the header.
    fn fresh_screen(&self) {
        if self.terminal {
            print!("\x1b[2J\x1b[H");
            self.header();
        }
    }

    fn next_lab(&mut self) {
        if self.index + 1 >= self.wb.labs.len() {
            println!("lab {} is the last lab", self.lab().meta.number);
            return;
        }
        self.stop_running();
        self.index += 1;
        if self.terminal {
            print!("\x1b[2J\x1b[H");
        }
        self.open_lab();
    }

    fn poll_files(&mut self) {
        let now = stamps(&self.files());
        if now == self.stamps {
            return;
        }
        let changed: Vec<PathBuf> = now
            .iter()
            .zip(&self.stamps)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| a.0.clone())
            .collect();
        self.stamps = now;
        let predictions = self.lab().predictions_path();
        let names: Vec<String> = changed.iter().map(|f| self.shown(f)).collect();
        if changed.iter().all(|f| *f == predictions) {
            println!("\n{} {}", "changed:".cyan().bold(), names.join(", "));
            self.predictions_state();
        } else {
            self.fresh_screen();
            self.start_check(&format!("changed: {}", names.join(", ")));
        }
    }

    /// One line on the predictions, and what to do about them.
    fn predictions_state(&self) {
        let lab = self.lab();
        let n = &lab.meta.number;
        let total = lab.prediction_count();
        match read_predictions(lab) {
            Ok(Some(p)) if p.answered() > 0 => {
                let sealed = match &p.seal {
                    Some(_) if p.revised_after_seal() => ", sealed, revised after the seal",
                    Some(_) => ", sealed",
                    None => " (r runs the lab and seals them)",
                };
                println!("  predictions: {}/{total} answered{sealed}", p.answered());
            }
            Ok(_) => println!(
                "  predictions: none yet. Predict first (`cargo labs predict {n}` in another terminal, or edit {}), then r",
                self.shown(&lab.predictions_path())
            ),
            Err(failure) => println!("  {} {}", "predictions:".red().bold(), failure.message),
        }
    }

    /// Cancels the running check, if any, without waiting for it.
    fn stop_running(&mut self) {
        if let Some(running) = self.running.take() {
            running.cancel.store(true, Ordering::SeqCst);
        }
    }

    /// Cancels the running check and waits until its processes are gone.
    fn stop_check(&mut self, rx: &Receiver<Event>) {
        let Some(running) = self.running.take() else {
            return;
        };
        running.cancel.store(true, Ordering::SeqCst);
        while let Ok(event) = rx.recv_timeout(Duration::from_secs(10)) {
            if matches!(event, Event::Checked { id, .. } if id == running.id) {
                return;
            }
        }
    }

    fn start_check(&mut self, why: &str) {
        self.stop_running();
        self.checks += 1;
        let id = self.checks;
        let lab = self.lab();
        println!("\n[{id}] {why} → checking lab {} …", lab.meta.number);
        let _ = std::io::stdout().flush();
        let mut command = cargo();
        command.args([
            "test",
            "-p",
            &lab.meta.package,
            "--test",
            "graded",
            "--",
            "--color",
            "never",
        ]);
        if std::env::var_os("TMPDIR").is_none() && Path::new(FAST_TMP).is_dir() {
            command.env("TMPDIR", FAST_TMP);
        }
        let root = self.wb.root.clone();
        let limit = Duration::from_secs(lab.meta.time_limit_secs);
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let tx = self.tx.clone();
        thread::spawn(move || {
            let finished = run_cancellable(command, &root, limit, &flag);
            let _ = tx.send(Event::Checked { id, finished });
        });
        self.running = Some(Running { id, cancel });
    }

    /// Prints a finished check's verdict and the next step, and records the attempt.
    fn verdict(&self, id: u64, finished: std::io::Result<Finished>) {
        let lab = self.lab();
        let n = &lab.meta.number;
        let finished = match finished {
            Ok(f) => f,
            Err(e) => {
                println!("[{id}] verdict: ✗ cannot start cargo: {e}");
                return;
            }
        };
        let mut results = parse_libtest(&finished.stdout);
        results.sort_by(|a, b| a.name.cmp(&b.name));
        let seconds = finished.seconds;
        if finished.timed_out || (results.is_empty() && !finished.success()) {
            let failure = explain_failed_run(lab, &finished, "graded tests");
            self.record(0, 0, &failure.message);
            let why = if finished.timed_out {
                "hang"
            } else if finished.compile_error() {
                "does not compile"
            } else {
                "error"
            };
            println!(
                "[{id}] verdict: {} lab {n}: {why} ({seconds:.1} s)",
                "✗".red().bold()
            );
            println!("{}", failure.message);
            let next = if finished.timed_out {
                "look for a loop or a retry without a bound; save to check again, h for a hint"
            } else if finished.compile_error() {
                "fix what the compiler says above; saving checks again"
            } else {
                "read the error above; c checks again"
            };
            println!("{} {next}", "next:".bold());
            return;
        }
        let passed = results.iter().filter(|r| r.passed).count();
        let total = results.len();
        self.record(passed, total, "");
        let green = passed == total && total > 0;
        let mark = if green {
            "✓".green().bold()
        } else {
            "✗".red().bold()
        };
        println!("[{id}] verdict: {mark} {passed}/{total} graded tests pass ({seconds:.1} s)");
        let mut failing: Vec<&TestResult> = results.iter().filter(|r| !r.passed).collect();
        for r in &failing {
            println!("  {} {}", "✗".red(), r.name.replace('_', " "));
        }
        // The first failure shown is the first in the lab's own order (lab.toml's
        // `starter_fails`, which the hints follow), then by name.
        let rank = |r: &TestResult| {
            let known = lab.meta.starter_fails.iter().position(|n| *n == r.name);
            known.unwrap_or(usize::MAX)
        };
        failing.sort_by_key(|r| rank(r));
        if let Some(first) = failing.first() {
            println!("\n{} {}", "first failure:".red().bold(), first.name.bold());
            print_failure(&first.output, n);
            println!(
                "{} make `{}` pass (h for a hint); saving checks again",
                "next:".bold(),
                first.name
            );
        } else if green {
            match self.wb.labs.get(self.index + 1) {
                Some(next) => println!(
                    "{} lab {n} is complete. Read the chapter's acceptance criteria, then n for lab {}",
                    "next:".bold(),
                    next.meta.number
                ),
                None => println!(
                    "{} lab {n} is complete, and it is the last lab: `cargo labs grade`",
                    "next:".bold()
                ),
            }
        } else {
            println!("{} no graded test ran; c checks again", "next:".bold());
        }
        let _ = std::io::stdout().flush();
    }

    fn record(&self, passed: usize, total: usize, detail: &str) {
        if let Ok(progress) = self.wb.progress() {
            let _ = progress.record_attempt(
                &self.lab().meta.id,
                "check",
                &now_utc(),
                passed,
                total,
                detail,
            );
        }
    }
}

/// A failing test's output without the stack backtrace, at most `FAILURE_LINES` lines
/// (the end is kept: that is where a timeline explains itself and prints its replay line).
fn print_failure(output: &str, n: &str) {
    let mut lines = runner::clean_failure(output);
    if lines.len() > FAILURE_LINES {
        let skipped = lines.len() - FAILURE_LINES;
        println!("  … {skipped} lines above (all of it: `cargo labs check {n}`)");
        lines.drain(..skipped);
    }
    for line in lines {
        println!("  {line}");
    }
}

fn stamps(files: &[PathBuf]) -> Vec<(PathBuf, Option<(SystemTime, u64)>)> {
    files
        .iter()
        .map(|f| {
            let stamp = std::fs::metadata(f)
                .ok()
                .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()));
            (f.clone(), stamp)
        })
        .collect()
}

/// Reads keys in a thread: byte by byte in single-key mode, else a line at a time.
fn read_keys(tx: Sender<Event>, single: bool) {
    thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut stdin = stdin.lock();
        if single {
            let mut byte = [0u8; 1];
            while let Ok(1) = stdin.read(&mut byte) {
                if tx.send(Event::Key(char::from(byte[0]))).is_err() {
                    return;
                }
            }
        } else {
            for line in stdin.lines() {
                let Ok(line) = line else { break };
                if let Some(key) = line.trim().chars().next()
                    && tx.send(Event::Key(key)).is_err()
                {
                    return;
                }
            }
        }
        let _ = tx.send(Event::InputClosed);
    });
}

/// The terminal in single-key mode, restored when dropped.
struct Terminal {
    saved: String,
}

impl Terminal {
    /// Puts the terminal in non-canonical mode without echo (and without signals: Ctrl-C
    /// is a key), when stdin is a terminal and `stty` works; `None` means line mode.
    fn single_keys() -> Option<Terminal> {
        if !std::io::stdin().is_terminal() {
            return None;
        }
        let saved = stty(&["-g"])?;
        stty(&["-icanon", "-echo", "-isig", "min", "1", "time", "0"])?;
        Some(Terminal { saved })
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if stty(&[&self.saved]).is_none() {
            let _ = stty(&["sane"]);
        }
    }
}

/// Runs `stty ARGS < /dev/tty` and returns what it printed.
fn stty(args: &[&str]) -> Option<String> {
    let tty = std::fs::File::open("/dev/tty").ok()?;
    let out = Command::new("stty")
        .args(args)
        .stdin(tty)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}
