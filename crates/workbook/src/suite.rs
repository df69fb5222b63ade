//! Running a graded suite the way a grader must: the list of tests comes from the suite's
//! source, each test runs in its own process with a fresh nonce (see `labkit::graded`),
//! and a test passes only when its own process proves it. A test that did not report —
//! an abort, a stack overflow, an `exit`, a kill, the time limit — failed, and says how.

use crate::process::{self, Ending, Job};
use labkit::graded::{CHILD_FLAG, judge, nonce};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// One graded test's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestRun {
    pub name: String,
    pub passed: bool,
    /// What the test printed (a failure's timeline, explanation and replay command).
    pub output: String,
    /// When the test did not report a result: how its process ended.
    pub unreported: Option<String>,
}

/// A whole suite's results, in the suite's order.
#[derive(Clone, Debug, Default)]
pub struct SuiteRun {
    pub tests: Vec<TestRun>,
    /// What the grader noticed: forged or duplicated result lines, truncated output.
    pub notes: Vec<String>,
    /// True when the lab's time limit ran out before every test had run.
    pub timed_out: bool,
}

impl SuiteRun {
    pub fn passed(&self) -> usize {
        self.tests.iter().filter(|t| t.passed).count()
    }
}

/// How to run the tests.
pub struct SuiteEnv<'a> {
    /// For the whole suite.
    pub time_limit: Duration,
    pub output_cap: usize,
    pub env: Vec<(String, String)>,
    pub wrap: Option<&'a dyn Fn(Command) -> Command>,
    pub cancel: Option<&'a AtomicBool>,
    /// Check before every test that `exe` still holds the bytes it held at the start.
    pub verify_binary: bool,
}

/// Runs each of `expected` from the suite executable `exe`, one process each.
pub fn run(exe: &Path, dir: &Path, expected: &[String], env: &SuiteEnv<'_>) -> SuiteRun {
    let started = Instant::now();
    let mut run = SuiteRun::default();
    let original = if env.verify_binary {
        std::fs::read(exe).ok()
    } else {
        None
    };
    let mut tampered = false;
    for name in expected {
        if let Some(original) = &original
            && !tampered
            && std::fs::read(exe).ok().as_ref() != Some(original)
        {
            tampered = true;
            run.notes.push(format!(
                "the suite's executable changed on disk before `{name}` ran: a test rewrote it; this test and the ones after it were not run"
            ));
        }
        if tampered {
            run.tests.push(TestRun {
                name: name.clone(),
                passed: false,
                output: String::new(),
                unreported: Some(
                    "not run: the suite's executable was rewritten by an earlier test".into(),
                ),
            });
            continue;
        }
        let left = env.time_limit.saturating_sub(started.elapsed());
        if left.is_zero() || run.timed_out {
            run.timed_out = true;
            run.tests.push(TestRun {
                name: name.clone(),
                passed: false,
                output: String::new(),
                unreported: Some(format!(
                    "not run: the lab's time limit of {} s ran out",
                    env.time_limit.as_secs()
                )),
            });
            continue;
        }
        let mut command = Command::new(exe);
        command.args([CHILD_FLAG, name]);
        // The timeline and the explanation say what went wrong; a stack trace says
        // nothing more to a learner, even where RUST_BACKTRACE is set.
        command.env("RUST_BACKTRACE", "0");
        for (key, value) in &env.env {
            command.env(key, value);
        }
        let command = match env.wrap {
            Some(wrap) => wrap(command),
            None => command,
        };
        let secret = nonce();
        let job = Job {
            command,
            input: Some(secret.clone()),
            time_limit: left,
            output_cap: env.output_cap,
            cancel: env.cancel,
        };
        let finished = match process::run(job, dir) {
            Ok(finished) => finished,
            Err(e) => {
                run.tests.push(TestRun {
                    name: name.clone(),
                    passed: false,
                    output: String::new(),
                    unreported: Some(format!("its process could not start: {e}")),
                });
                continue;
            }
        };
        if finished.truncated {
            run.notes.push(format!(
                "`{name}` printed more than {} KiB; the rest was dropped",
                env.output_cap / 1024
            ));
        }
        let verdict = judge(name, &secret, &finished.stdout, finished.success());
        // A few say what was printed; a flood is counted, not copied.
        for line in verdict.ignored_lines.iter().take(3) {
            run.notes
                .push(format!("`{name}` printed {line}; it was ignored"));
        }
        if verdict.ignored_lines.len() > 3 {
            run.notes.push(format!(
                "`{name}` printed {} more result lines that were not its own proof; all were ignored",
                verdict.ignored_lines.len() - 3
            ));
        }
        let unreported = if verdict.unreported {
            Some(match finished.ending {
                Ending::TimedOut => {
                    run.timed_out = true;
                    format!(
                        "it did not finish within the lab's time limit of {} s (a hang: an endless loop or retry?)",
                        env.time_limit.as_secs()
                    )
                }
                ending => format!(
                    "its process {} without reporting a result",
                    ending.describe()
                ),
            })
        } else if !finished.success() {
            // It reported, then its process did not end cleanly: no pass counts.
            Some(format!(
                "its process {} after it reported",
                finished.ending.describe()
            ))
        } else if !verdict.ignored_lines.is_empty() {
            // An honest test prints no result line of its own. Ignoring the imitations
            // and believing the rest would let a test print guesses until one is right.
            Some(
                "its own result line is void: it also printed result lines that were not its own"
                    .into(),
            )
        } else if finished.truncated {
            // What was dropped was not read: it could hold anything, guesses included.
            Some(format!(
                "its result line is void: it printed more than the {} KiB the grader reads",
                env.output_cap / 1024
            ))
        } else {
            None
        };
        let mut output = verdict.output;
        if !verdict.passed && !finished.stderr.trim().is_empty() {
            output.push_str(&finished.stderr);
        }
        run.tests.push(TestRun {
            name: name.clone(),
            passed: verdict.passed && unreported.is_none(),
            output,
            unreported,
        });
    }
    run
}
