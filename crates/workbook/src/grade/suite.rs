//! Running a graded suite the way a grader must: the list of tests comes from the suite's
//! source, each test runs in its own process with a fresh key (see the `graded` crate)
//! and its own time limit, and passes only when [`graded::judge`] — the one rule — says
//! so. A test that did not report (an abort, a stack overflow, an `exit`, a kill, its time
//! limit, the memory cap) failed, and says how. A hang costs its own limit and nothing
//! else: the other tests still run, within the lab's total budget.

use super::model::{Note, Severity, TestOutcome};
use crate::process::{self, Ending, Job, Limits};
use graded::{CHILD_FLAG, Ended, Key, Void, judge};
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// One graded test's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestRun {
    pub name: String,
    pub outcome: TestOutcome,
    /// What the test printed (a failure's timeline, explanation and replay command).
    pub output: String,
    /// When the test did not pass or fail on its own: how its process ended, or why its
    /// result does not count.
    pub detail: Option<String>,
}

impl TestRun {
    pub fn passed(&self) -> bool {
        self.outcome == TestOutcome::Passed
    }

    pub fn not_run(name: &str, why: &str) -> TestRun {
        TestRun {
            name: name.to_string(),
            outcome: TestOutcome::NotRun,
            output: String::new(),
            detail: Some(why.to_string()),
        }
    }
}

/// A whole suite's results, in the suite's order.
#[derive(Clone, Debug, Default)]
pub struct SuiteRun {
    pub tests: Vec<TestRun>,
    /// What the grader noticed: imitated result lines, output past the cap.
    pub notes: Vec<Note>,
}

impl SuiteRun {
    pub fn passed(&self) -> usize {
        self.tests.iter().filter(|t| t.passed()).count()
    }
}

/// How to run the tests.
pub struct SuiteEnv<'a> {
    /// Each test's own time limit.
    pub test_limit: Duration,
    /// The whole suite's: tests not started when it runs out are not run.
    pub suite_budget: Duration,
    pub output_cap: usize,
    /// Memory for each test process (Unix).
    pub limits: Limits,
    /// How many tests run at once.
    pub jobs: usize,
    pub env: Vec<(String, String)>,
    pub wrap: Option<&'a (dyn Fn(Command) -> Command + Sync)>,
    pub cancel: Option<&'a AtomicBool>,
    /// Check before every test that the executable still holds the bytes it held right
    /// after the build (see `Built::remember_executables`).
    pub verify_binary: bool,
    /// Start the tests longest first, by their times in the learner's last run (kept
    /// beside the executable). Only in a learner's own workbook: a class's submissions
    /// share a build folder, and one's times must not order another's tests.
    pub longest_first: bool,
}

impl SuiteEnv<'_> {
    /// One test at a time, the given limit for each, nothing else: what the gates use.
    pub fn simple(test_limit: Duration) -> SuiteEnv<'static> {
        SuiteEnv {
            test_limit,
            suite_budget: test_limit * 64,
            output_cap: graded::OUTPUT_CAP,
            limits: Limits::default(),
            jobs: 1,
            env: Vec::new(),
            wrap: None,
            cancel: None,
            verify_binary: false,
            longest_first: false,
        }
    }
}

/// One test's result and what the grader noticed while it ran.
type Ran = (TestRun, Vec<Note>);

/// Runs each of `expected` from the suite executable `exe`, one process each, up to
/// `env.jobs` at a time; the results come back in the suite's order. With `original`,
/// the executable must hold those bytes before every test.
pub fn run(
    exe: &Path,
    dir: &Path,
    expected: &[String],
    env: &SuiteEnv<'_>,
    original: Option<&[u8]>,
) -> SuiteRun {
    let started = Instant::now();
    let original = original.filter(|_| env.verify_binary);
    let timings = env.longest_first.then(|| Timings::beside(exe));
    let order = match &timings {
        Some(timings) => timings.start_order(expected),
        None => (0..expected.len()).collect(),
    };
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<Ran>>> = Mutex::new(vec![None; expected.len()]);
    let took: Mutex<Vec<Option<f64>>> = Mutex::new(vec![None; expected.len()]);
    let tampered = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..env.jobs.clamp(1, expected.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let turn = {
                        let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                        let turn = *n;
                        *n += 1;
                        turn
                    };
                    let Some(&i) = order.get(turn) else { break };
                    let began = Instant::now();
                    let done = one(exe, dir, &expected[i], env, started, original, &tampered);
                    let ran = done.0.outcome != TestOutcome::NotRun;
                    if ran {
                        took.lock().unwrap_or_else(|e| e.into_inner())[i] =
                            Some(began.elapsed().as_secs_f64());
                    }
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(done);
                }
            });
        }
    });
    if let Some(timings) = timings {
        timings.record(expected, &took.into_inner().unwrap_or_default());
    }
    let mut run = SuiteRun::default();
    // One note per test that printed result lines not its own, for the first few such
    // tests; then one for all the others, so that a flood of them buries nothing else.
    let mut imitating = 0;
    for (test, notes) in results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
    {
        run.tests.push(test);
        for note in notes {
            if note.severity == Severity::Serious && note.text.ends_with(" ignored") {
                imitating += 1;
                if imitating > SHOWN_IMITATIONS {
                    continue;
                }
            }
            run.notes.push(note);
        }
    }
    if imitating > SHOWN_IMITATIONS {
        run.notes.push(Note::new(
            Severity::Serious,
            format!(
                "{} more tests printed result lines that were not their own proof; all were ignored",
                imitating - SHOWN_IMITATIONS
            ),
        ));
    }
    run
}

/// How long each test of a suite took when it last ran, kept beside the suite's
/// executable. Only the order in which tests start depends on it: the longest first, so
/// that the workers finish together (lab 08's two long explorations, started fifth and
/// eighth, had kept one worker busy alone for a third of the run).
struct Timings {
    path: std::path::PathBuf,
    seconds: std::collections::BTreeMap<String, f64>,
}

impl Timings {
    fn beside(exe: &Path) -> Timings {
        let mut path = exe.as_os_str().to_owned();
        path.push(".times.json");
        let path = std::path::PathBuf::from(path);
        let seconds = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Timings { path, seconds }
    }

    /// Indices of `expected` in the order to start them: tests never timed first, in the
    /// suite's order, then the timed ones, longest first.
    fn start_order(&self, expected: &[String]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..expected.len()).collect();
        let time = |i: &usize| self.seconds.get(&expected[*i]).copied();
        order.sort_by(|a, b| match (time(a), time(b)) {
            (None, None) => a.cmp(b),
            (None, Some(_)) => std::cmp::Ordering::Less,
            (Some(_), None) => std::cmp::Ordering::Greater,
            (Some(x), Some(y)) => y.total_cmp(&x).then(a.cmp(b)),
        });
        order
    }

    /// Keeps the times of the tests that ran (best effort: a folder that cannot be
    /// written only costs the order next time).
    fn record(mut self, expected: &[String], took: &[Option<f64>]) {
        for (name, seconds) in expected.iter().zip(took) {
            if let Some(seconds) = seconds {
                self.seconds.insert(name.clone(), *seconds);
            }
        }
        if let Ok(json) = serde_json::to_vec(&self.seconds) {
            let _ = std::fs::write(&self.path, json);
        }
    }
}

/// How many tests' imitated result lines are shown one by one.
const SHOWN_IMITATIONS: usize = 3;

/// Runs one test, or says why it was not run.
fn one(
    exe: &Path,
    dir: &Path,
    name: &str,
    env: &SuiteEnv<'_>,
    started: Instant,
    original: Option<&[u8]>,
    tampered: &AtomicBool,
) -> (TestRun, Vec<Note>) {
    use std::sync::atomic::Ordering;
    if let Some(original) = original
        && std::fs::read(exe).ok().as_deref() != Some(original)
    {
        let first = !tampered.swap(true, Ordering::SeqCst);
        let notes = first
            .then(|| Note::new(Severity::Serious, format!(
                "the suite's executable changed on disk before `{name}` ran: a test rewrote it; the tests not yet run were not run"
            )))
            .into_iter()
            .collect();
        return (
            TestRun::not_run(
                name,
                "not run: the suite's executable was rewritten by an earlier test",
            ),
            notes,
        );
    }
    let left = env.suite_budget.saturating_sub(started.elapsed());
    if left.is_zero() {
        let why = format!(
            "not run: the lab's total time of {} s ran out",
            env.suite_budget.as_secs()
        );
        return (TestRun::not_run(name, &why), Vec::new());
    }
    run_one(exe, dir, name, env, env.test_limit.min(left))
}

fn run_one(
    exe: &Path,
    dir: &Path,
    name: &str,
    env: &SuiteEnv<'_>,
    limit: Duration,
) -> (TestRun, Vec<Note>) {
    let mut command = Command::new(exe);
    command.args([CHILD_FLAG, name]);
    // The timeline and the explanation say what went wrong; a stack trace says nothing
    // more to a learner, even where RUST_BACKTRACE is set.
    command.env("RUST_BACKTRACE", "0");
    command.envs(graded::test_process_env());
    for (key, value) in &env.env {
        command.env(key, value);
    }
    let command = match env.wrap {
        Some(wrap) => wrap(command),
        None => command,
    };
    let key = Key::new();
    let mut job = Job::new(command, limit);
    job.input = Some(key.hex());
    job.output_cap = env.output_cap;
    job.cancel = env.cancel;
    job.limits = env.limits;
    let finished = match process::run(job, dir) {
        Ok(finished) => finished,
        Err(e) => {
            let test = TestRun {
                name: name.to_string(),
                outcome: TestOutcome::Crashed,
                output: String::new(),
                detail: Some(format!("its process could not start: {e}")),
            };
            return (test, Vec::new());
        }
    };
    let ended = Ended {
        exited_ok: finished.success(),
        truncated: finished.truncated,
    };
    let verdict = judge(name, Some(&key), &finished.stdout, ended);
    let notes = imitation_notes(
        name,
        &verdict.ignored_lines,
        finished.truncated,
        env.output_cap,
    );
    let (outcome, detail) = classify(&verdict, &finished, limit, env);
    let mut output = verdict.output;
    if outcome != TestOutcome::Passed && !finished.stderr.trim().is_empty() {
        output.push_str(&finished.stderr);
    }
    let test = TestRun {
        name: name.to_string(),
        outcome,
        output,
        detail,
    };
    (test, notes)
}

/// What the grader tells a reviewer about a test's printing: one note for the result
/// lines that were not its own proof (the first of them quoted), one if it printed past
/// the cap.
fn imitation_notes(name: &str, ignored: &[String], truncated: bool, cap: usize) -> Vec<Note> {
    let mut notes = Vec::new();
    match ignored {
        [] => {}
        [line] => notes.push(Note::new(
            Severity::Serious,
            format!("`{name}` printed {line}; it was ignored"),
        )),
        [first, ..] => notes.push(Note::new(
            Severity::Serious,
            format!(
                "`{name}` printed {} result lines that were not its own proof, the first {first}; all were ignored",
                ignored.len()
            ),
        )),
    }
    if truncated {
        notes.push(Note::new(
            Severity::Info,
            format!(
                "`{name}` printed more than {} KiB; the rest was dropped",
                cap / 1024
            ),
        ));
    }
    notes
}

/// The outcome of a judged test, and in words how it ended when that is not plain.
fn classify(
    verdict: &graded::Verdict,
    finished: &process::Finished,
    limit: Duration,
    env: &SuiteEnv<'_>,
) -> (TestOutcome, Option<String>) {
    let over_memory = finished.stderr.contains("memory allocation of");
    match verdict.void {
        None if verdict.passed => (TestOutcome::Passed, None),
        None => (TestOutcome::Failed, None),
        Some(Void::Unreported) => match finished.ending {
            Ending::TimedOut => (
                TestOutcome::TimedOut,
                Some(format!(
                    "it did not finish within its time limit of {} s (a hang: an endless loop or retry?); the other tests still ran",
                    limit.as_secs()
                )),
            ),
            _ if over_memory => (
                TestOutcome::OverMemory,
                Some(format!(
                    "it asked for more memory than the grader's cap of {} MiB",
                    env.limits.memory_bytes.unwrap_or(0) >> 20
                )),
            ),
            ending => (
                TestOutcome::Crashed,
                Some(format!(
                    "its process {} without reporting a result",
                    ending.describe()
                )),
            ),
        },
        Some(Void::EndedBadly) => (
            TestOutcome::Void,
            Some(format!(
                "its process {} after it reported",
                finished.ending.describe()
            )),
        ),
        // An honest test prints no result line of its own. Ignoring the imitations and
        // believing the rest would let a test print guesses until one is right.
        Some(Void::Imitations) => (
            TestOutcome::Void,
            Some(
                "its own result line is void: it also printed result lines that were not its own"
                    .into(),
            ),
        ),
        // What was dropped was not read: it could hold anything, guesses included.
        Some(Void::Truncated) => (
            TestOutcome::Void,
            Some(format!(
                "its result line is void: it printed more than the {} KiB the grader reads",
                env.output_cap / 1024
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::Timings;

    #[test]
    fn tests_start_longest_first_after_those_never_timed() {
        let dir = std::env::temp_dir().join(format!("boundary-suite-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("graded-lab99");
        let names: Vec<String> = ["short", "long", "new", "middle"].map(String::from).into();
        let fresh = Timings::beside(&exe);
        assert_eq!(
            fresh.start_order(&names),
            [0, 1, 2, 3],
            "no times: the suite's order"
        );
        fresh.record(&names, &[Some(0.01), Some(0.4), None, Some(0.1)]);
        let kept = Timings::beside(&exe);
        assert_eq!(kept.start_order(&names), [2, 1, 3, 0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
