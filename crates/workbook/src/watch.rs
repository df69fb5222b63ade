//! `cargo labs watch [N]`: re-runs a lab's graded tests each time the learner saves one of
//! its files, and prints the verdict and the next step. Keys: `h` hint, `r` run (observe),
//! `c` check now, `n` next lab, `q` quit.
//!
//! The files are polled (modification time and size, every 50 ms). In a terminal, keys
//! act at once: crossterm puts the terminal in raw mode, where Ctrl-C arrives as a key
//! and quits through the same path as `q`; output is printed with the terminal back in its
//! usual mode, and the terminal is restored on the way out whatever happens. When stdin is
//! not a terminal, keys are read a line at a time (the first letter counts) and the end
//! of input quits.
//!
//! A check runs in its own thread: a new save cancels the running check (its processes
//! are killed) and starts a new one, and `q` never waits for a check. This is CLI code,
//! not simulated code: threads and the wall clock are fine here.
//!
//! Nothing that could answer a prediction is shown before the lab's predictions are
//! sealed: no check runs (a failure's explanation says what the run would show) and no
//! hint is given; watch says to predict, or seal, first, and starts checking as soon as
//! predictions.txt carries a seal.

use crate::error::{Error, Result};
use crate::grade::run::learner_run;
use crate::grade::{SuiteRun, TestRun};
use crate::meta::Lab;
use crate::progress::now_utc;
use crate::workbook::{Workbook, read_predictions};
use colored::Colorize;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

/// How often the lab's files are looked at.
const POLL: Duration = Duration::from_millis(50);
const KEYS: &str = "h hint · r run (observe) · c check now · n next lab · q quit";
/// The most lines of one failing test's output shown under a verdict.
const FAILURE_LINES: usize = 30;

enum Event {
    Key(char),
    InputClosed,
    Checked {
        id: u64,
        result: Result<SuiteRun>,
        seconds: f64,
    },
}

/// The terminal in raw mode while keys are awaited, back to normal while printing and
/// when dropped.
struct Terminal {
    /// Held while printing, so two printers never toggle the mode at once.
    printing: Mutex<()>,
}

impl Terminal {
    /// Raw mode, when stdin is a terminal; `None` means line mode.
    fn single_keys() -> Option<Terminal> {
        if !std::io::stdin().is_terminal() {
            return None;
        }
        crossterm::terminal::enable_raw_mode().ok()?;
        Some(Terminal {
            printing: Mutex::new(()),
        })
    }

    /// Runs `print` with the terminal in its usual mode (raw mode does not turn `\n` into
    /// a new line), then goes back to raw mode.
    fn cooked<T>(&self, print: impl FnOnce() -> T) -> T {
        let _guard = self.printing.lock().unwrap_or_else(|e| e.into_inner());
        let _ = crossterm::terminal::disable_raw_mode();
        let value = print();
        let _ = std::io::stdout().flush();
        let _ = crossterm::terminal::enable_raw_mode();
        value
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

/// `cargo labs watch [N]`. Without N, the first lab not yet graded green.
pub fn watch(wb: &Workbook, wanted: Option<&Lab>) -> Result<()> {
    // Open the store first, so a note about it comes before the header.
    drop(wb.progress()?);
    if wb.labs.labs.is_empty() {
        return Err(Error::input("there is no lab to watch"));
    }
    let index = match wanted {
        Some(lab) => wb
            .labs
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
        terminal,
        sealed_seen: false,
    };
    // What the files are now, before anything is printed: a save made as soon as the
    // learner sees the header is a change.
    session.stamps = stamps(&session.files(), &[]);
    session.say(|s| s.open_lab_text());
    session.check_when_sealed("first check");
    let result = session.serve(&rx);
    session.stop_check(&rx);
    drop(session.terminal.take());
    println!("watch ended");
    result
}

/// The index of the first lab whose last graded run was not green (or the last lab).
fn first_unfinished(wb: &Workbook) -> Result<usize> {
    let progress = wb.progress()?;
    Ok(wb
        .labs
        .labs
        .iter()
        .position(|lab| {
            !progress
                .last(&lab.meta.id, "check")
                .is_some_and(|g| g.total > 0 && g.passed == g.total)
        })
        .unwrap_or(wb.labs.labs.len().saturating_sub(1)))
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
    /// Each watched file as last seen (`None`: it did not exist).
    stamps: Vec<(PathBuf, Option<Seen>)>,
    terminal: Option<Terminal>,
    /// Whether the current lab's predictions were sealed when last looked at.
    sealed_seen: bool,
}

impl Session<'_> {
    fn lab(&self) -> &Lab {
        &self.wb.labs.labs[self.index]
    }

    /// Prints through the terminal's usual mode when in raw mode.
    fn say<T>(&self, print: impl FnOnce(&Self) -> T) -> T {
        match &self.terminal {
            Some(terminal) => terminal.cooked(|| print(self)),
            None => {
                let value = print(self);
                let _ = std::io::stdout().flush();
                value
            }
        }
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

    fn header(&self) {
        let lab = self.lab();
        println!(
            "{} {} · {}",
            "watching lab".bold(),
            lab.meta.number.bold(),
            lab.meta.title
        );
        let files: Vec<String> = self.files().iter().map(|f| self.wb.shown(f)).collect();
        println!("  files: {}", files.join(", "));
        if self.terminal.is_some() {
            println!("  keys:  {KEYS}");
        } else {
            println!("  keys (a letter, then Enter): {KEYS}");
        }
    }

    /// Shows the current lab and remembers its files as they are.
    fn open_lab_text(&self) {
        self.header();
        self.predictions_state();
    }

    fn serve(&mut self, rx: &Receiver<Event>) -> Result<()> {
        loop {
            match rx.recv_timeout(POLL) {
                Ok(Event::Key(key)) => match key.to_ascii_lowercase() {
                    // Ctrl-C and Ctrl-D arrive as keys in raw mode.
                    'q' | '\u{3}' | '\u{4}' => return Ok(()),
                    'h' if !self.sealed() => self.say(|s| s.predict_first()),
                    'h' => self.act(crate::cli::hint),
                    'r' => {
                        let unsealed = !self.sealed();
                        self.act(|wb, lab| crate::cli::run(wb, lab, false, false));
                        if unsealed {
                            self.check_when_sealed("predictions sealed by the run");
                        }
                    }
                    'c' => {
                        self.fresh_screen();
                        self.check_when_sealed("check requested");
                    }
                    'n' => self.next_lab(),
                    k if k.is_ascii_alphanumeric() => {
                        self.say(|_| println!("unknown key `{k}`; keys: {KEYS}"));
                    }
                    _ => {}
                },
                Ok(Event::InputClosed) | Err(RecvTimeoutError::Disconnected) => return Ok(()),
                Ok(Event::Checked {
                    id,
                    result,
                    seconds,
                }) => {
                    if self.running.as_ref().is_some_and(|r| r.id == id) {
                        self.running = None;
                        self.say(|s| s.verdict(id, result, seconds));
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            self.poll_files();
        }
    }

    /// Runs a command from a key and prints what it said when it failed; watching goes on.
    fn act(&self, command: impl FnOnce(&Workbook, &Lab) -> Result<()>) {
        self.say(|s| {
            if let Err(error) = command(s.wb, s.lab()) {
                println!("{} {error}", "error:".red().bold());
            }
            println!("keys: {KEYS}");
        });
    }

    /// In a terminal, each new check starts on a clean screen under the header.
    fn fresh_screen(&self) {
        if self.terminal.is_some() {
            self.say(|s| {
                print!("\x1b[2J\x1b[H");
                s.header();
            });
        }
    }

    fn next_lab(&mut self) {
        if self.index + 1 >= self.wb.labs.labs.len() {
            self.say(|s| println!("lab {} is the last lab", s.lab().meta.number));
            return;
        }
        self.stop_running();
        self.index += 1;
        self.stamps = stamps(&self.files(), &[]);
        self.say(|s| {
            if s.terminal.is_some() {
                print!("\x1b[2J\x1b[H");
            }
            s.open_lab_text();
        });
        self.check_when_sealed("first check");
    }

    fn poll_files(&mut self) {
        let now = stamps(&self.files(), &self.stamps);
        let changed: Vec<PathBuf> = now
            .iter()
            .filter(|(file, seen)| {
                let before = self.stamps.iter().find(|(f, _)| f == file);
                let bytes = |s: &Option<Seen>| s.as_ref().map(|s| s.digest);
                before.is_none_or(|(_, b)| bytes(b) != bytes(seen))
            })
            .map(|(file, _)| file.clone())
            .collect();
        self.stamps = now;
        if changed.is_empty() {
            return;
        }
        let predictions = self.lab().predictions_path();
        let names: Vec<String> = changed.iter().map(|f| self.wb.shown(f)).collect();
        if changed.iter().all(|f| *f == predictions) {
            let was_sealed = self.sealed_seen;
            self.say(|s| {
                println!("\n{} {}", "changed:".cyan().bold(), names.join(", "));
                s.predictions_state();
            });
            if !was_sealed && self.sealed() {
                self.check_when_sealed("predictions sealed");
            }
        } else {
            self.fresh_screen();
            self.check_when_sealed(&format!("changed: {}", names.join(", ")));
        }
    }

    /// One line on the predictions, and what to do about them.
    fn predictions_state(&self) {
        let lab = self.lab();
        let n = &lab.meta.number;
        let total = lab.prediction_count();
        match read_predictions(lab) {
            Ok(Some(p)) if p.answered() > 0 || p.seal.is_some() => {
                let revised = p.revised(lab).len();
                let sealed = match &p.seal {
                    Some(_) if revised > 0 => format!(", sealed, {revised} revised after the seal"),
                    Some(_) => ", sealed".into(),
                    None => " (r runs the lab and seals them)".into(),
                };
                println!("  predictions: {}/{total} answered{sealed}", p.answered());
            }
            Ok(_) => println!(
                "  predictions: none yet. Predict first (`cargo labs predict {n}` in another terminal, or edit {}), then r",
                self.wb.shown(&lab.predictions_path())
            ),
            Err(error) => println!("  {} {error}", "predictions:".red().bold()),
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

    /// Whether the current lab's predictions are sealed (in predictions.txt, or by the
    /// progress store's record of the first seal).
    fn sealed(&mut self) -> bool {
        let lab = self.lab();
        let in_file = read_predictions(lab).is_ok_and(|p| p.is_some_and(|p| p.seal.is_some()));
        let recorded =
            (self.wb.progress().ok()).is_some_and(|p| p.first_seal(&lab.meta.id).is_some());
        self.sealed_seen = in_file || recorded;
        self.sealed_seen
    }

    /// What watch says instead of a check or a hint before the predictions are sealed.
    fn predict_first(&self) {
        let n = &self.lab().meta.number;
        println!(
            "{} lab {n}'s predictions are not sealed, and a check or a hint could answer them. Predict first (`cargo labs predict {n}` in another terminal), then r runs the lab and seals them (or `cargo labs predict {n} --seal` seals them without the run); checking starts once they are sealed.",
            "not yet:".yellow().bold()
        );
    }

    /// Starts a check when the predictions are sealed; says to predict first otherwise.
    fn check_when_sealed(&mut self, why: &str) {
        if self.sealed() {
            self.start_check(why);
        } else {
            self.stop_running();
            self.say(|s| {
                println!("\n{why}: not checked");
                s.predict_first();
            });
        }
    }

    fn start_check(&mut self, why: &str) {
        self.stop_running();
        self.checks += 1;
        let id = self.checks;
        let n = self.lab().meta.number.clone();
        self.say(|_| println!("\n[{id}] {why} → checking lab {n} …"));
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let tx = self.tx.clone();
        let root = self.wb.root.clone();
        let lab_id = self.lab().meta.id.clone();
        thread::spawn(move || {
            let started = Instant::now();
            // A thread of its own owns a workbook of its own: nothing is shared but the
            // cancel flag.
            let result = Workbook::load(root).and_then(|wb| {
                let lab = wb.lab(&lab_id)?;
                learner_run(&wb, lab, Some(&flag))
            });
            let seconds = started.elapsed().as_secs_f64();
            let _ = tx.send(Event::Checked {
                id,
                result,
                seconds,
            });
        });
        self.running = Some(Running { id, cancel });
    }

    /// Prints a finished check's verdict and the next step, and records the attempt.
    fn verdict(&self, id: u64, result: Result<SuiteRun>, seconds: f64) {
        let lab = self.lab();
        let n = &lab.meta.number;
        let run = match result {
            Ok(run) => run,
            Err(Error::Interrupted) => return,
            Err(error) => {
                self.record(0, 0, &error.to_string());
                let text = error.to_string();
                let why = if text.contains("does not compile") {
                    "does not compile"
                } else {
                    "error"
                };
                println!(
                    "[{id}] verdict: {} lab {n}: {why} ({seconds:.1} s)",
                    "✗".red().bold()
                );
                println!("{text}");
                let next = if why == "does not compile" {
                    "fix what the compiler says above; saving checks again"
                } else {
                    "read the error above; c checks again"
                };
                println!("{} {next}", "next:".bold());
                return;
            }
        };
        let passed = run.passed();
        let total = run.tests.len();
        self.record(passed, total, "");
        let green = passed == total && total > 0;
        let mark = if green {
            "✓".green().bold()
        } else {
            "✗".red().bold()
        };
        let hang = if run
            .tests
            .iter()
            .any(|t| t.outcome == crate::grade::TestOutcome::TimedOut)
        {
            " — a hang"
        } else {
            ""
        };
        println!(
            "[{id}] verdict: {mark} {passed}/{total} graded tests pass ({seconds:.1} s){hang}"
        );
        let mut failing: Vec<&TestRun> = run.tests.iter().filter(|t| !t.passed()).collect();
        for t in &failing {
            println!("  {} {}", "✗".red(), t.name.replace('_', " "));
        }
        // The first failure shown is the one `check` shows first: of the earliest step
        // with a failing test (tests outside the steps after them), then in the lab's
        // own order (lab.toml's `starter_fails`, which the hints follow).
        let rank = |t: &TestRun| {
            let step = lab.meta.step_of(&t.name).unwrap_or(lab.meta.steps.len());
            let known = lab.meta.starter_fails.iter().position(|n| *n == t.name);
            (step, known.unwrap_or(usize::MAX))
        };
        failing.sort_by_key(|t| rank(t));
        if let Some(first) = failing.first() {
            println!("\n{} {}", "first failure:".red().bold(), first.name.bold());
            if let Some(how) = &first.detail {
                println!("  the test did not report a result: {how}");
            }
            print_failure(&first.output, n);
            println!(
                "{} make `{}` pass (h for a hint); saving checks again",
                "next:".bold(),
                first.name
            );
        } else if green {
            match self.wb.labs.labs.get(self.index + 1) {
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

/// A failing test's output without the panic noise, at most `FAILURE_LINES` lines (the
/// end is kept: that is where a timeline explains itself and prints its replay line).
fn print_failure(output: &str, n: &str) {
    let mut lines = crate::text::clean_failure(output);
    if lines.len() > FAILURE_LINES {
        let skipped = lines.len() - FAILURE_LINES;
        println!("  … {skipped} lines above (all of it: `cargo labs check {n}`)");
        lines.drain(..skipped);
    }
    for line in lines {
        println!("  {}", crate::text::for_terminal(line));
    }
}

/// A watched file as last seen. A change is a change of its bytes: an editor may touch a
/// file without changing it, and a file system may report a second modification time for
/// one write, so the time and size only say when to read the bytes again.
#[derive(Clone, PartialEq)]
struct Seen {
    modified: SystemTime,
    len: u64,
    digest: u64,
}

/// Each file as it is now; a file whose time and size are as `before` saw them keeps its
/// digest unread.
fn stamps(files: &[PathBuf], before: &[(PathBuf, Option<Seen>)]) -> Vec<(PathBuf, Option<Seen>)> {
    files
        .iter()
        .map(|f| {
            let seen = std::fs::metadata(f).ok().and_then(|m| {
                let modified = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                let len = m.len();
                let known = before
                    .iter()
                    .find(|(b, _)| b == f)
                    .and_then(|(_, s)| s.as_ref());
                let digest = match known {
                    Some(k) if k.modified == modified && k.len == len => k.digest,
                    _ => digest(&std::fs::read(f).ok()?),
                };
                Some(Seen {
                    modified,
                    len,
                    digest,
                })
            });
            (f.clone(), seen)
        })
        .collect()
}

fn digest(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

/// Reads keys in a thread: crossterm's key events in a terminal, else a line at a time.
fn read_keys(tx: Sender<Event>, single: bool) {
    thread::spawn(move || {
        if single {
            use crossterm::event::{self, KeyCode, KeyEventKind, KeyModifiers};
            while let Ok(event) = event::read() {
                let event::Event::Key(key) = event else {
                    continue;
                };
                if key.kind != KeyEventKind::Press {
                    continue;
                }
                let control = key.modifiers.contains(KeyModifiers::CONTROL);
                let c = match key.code {
                    KeyCode::Char('c') | KeyCode::Char('d') if control => 'q',
                    KeyCode::Char(c) => c,
                    KeyCode::Esc => 'q',
                    _ => continue,
                };
                if tx.send(Event::Key(c)).is_err() {
                    return;
                }
            }
        } else {
            for line in std::io::stdin().lock().lines() {
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

#[cfg(test)]
mod tests {
    use super::stamps;
    use std::time::{Duration, SystemTime};

    #[test]
    fn a_touch_is_not_a_change_and_new_bytes_are() {
        let dir = std::env::temp_dir().join(format!("boundary-watch-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("relay.rs");
        std::fs::write(&file, "fn main() {}\n").unwrap();
        let files = [file.clone()];
        let first = stamps(&files, &[]);
        let later = SystemTime::now() + Duration::from_secs(60);
        let handle = std::fs::File::options().write(true).open(&file).unwrap();
        handle.set_modified(later).unwrap();
        drop(handle);
        let touched = stamps(&files, &first);
        let digest = |s: &[(std::path::PathBuf, Option<super::Seen>)]| {
            s[0].1.as_ref().map(|seen| seen.digest)
        };
        assert_ne!(
            touched[0].1.as_ref().unwrap().modified,
            first[0].1.as_ref().unwrap().modified
        );
        assert_eq!(
            digest(&touched),
            digest(&first),
            "a new time alone is no change"
        );
        std::fs::write(&file, "fn main() { }\n").unwrap();
        let saved = stamps(&files, &touched);
        assert_ne!(digest(&saved), digest(&touched), "new bytes are a change");
        std::fs::remove_file(&file).unwrap();
        assert_eq!(
            digest(&stamps(&files, &saved)),
            None,
            "a removed file is seen as gone"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
