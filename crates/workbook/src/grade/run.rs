//! The one path from a workbook tree to graded runs, used by every command that grades
//! (`check`, `grade`, `grade-class`, `watch`) and by the gates: build the graded suites
//! of the chosen packages in one cargo run (going on past a package that does not
//! compile, so it costs only itself), then run each suite's tests, each in its own
//! process (`suite`), judged by the one rule (`graded::judge`).

use super::build::{self, Artifact, BuildEnv, BuildProblem, Built};
use super::model::Cap;
pub use super::suite::{SuiteEnv, SuiteRun, TestRun};
use crate::meta::{Lab, graded_test_names};
use crate::process::Limits;
use crate::settings::Settings;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How a lab's graded run went.
#[derive(Clone, Debug)]
pub enum LabRun {
    Ran(SuiteRun),
    /// The compiler reported errors in the lab's own code.
    DidNotCompile(String),
    /// The lab's build hit a cap of the grader's settings.
    BuildCapped {
        cap: Cap,
        detail: String,
    },
    /// Something outside the learner's code failed: cargo could not run, a dependency
    /// could not be had, the machine is out of disk. The grader must say what to fix.
    GraderFault(String),
    /// The submission is not a workbook.
    NotAWorkbook(String),
}

/// One graded suite to run: a package, the tests its suite names, and each test's limit.
#[derive(Clone, Debug)]
pub struct GradedSuite {
    pub package: String,
    /// Names the suite in messages ("lab 01").
    pub label: String,
    pub expected: Vec<String>,
    pub test_limit: Duration,
}

impl GradedSuite {
    /// `lab`'s suite in the workbook at `tree`, whose suite source names the tests.
    pub fn of(lab: &Lab, tree: &Path, settings: &Settings) -> GradedSuite {
        GradedSuite::for_package(lab, &lab.meta.package, tree, settings)
    }

    /// The suite of `lab` compiled into another package (its solution, a catalogue entry).
    pub fn for_package(lab: &Lab, package: &str, tree: &Path, settings: &Settings) -> GradedSuite {
        let source = std::fs::read_to_string(tree.join(&lab.meta.graded_suite)).unwrap_or_default();
        GradedSuite {
            package: package.to_string(),
            label: format!("lab {}", lab.meta.number),
            expected: graded_test_names(&source),
            test_limit: settings.time_limit(lab.meta.time_limit_secs),
        }
    }
}

/// Where and how a tree's suites are built and run.
pub struct RunEnv<'a> {
    pub target_dir: Option<PathBuf>,
    /// Extra environment for cargo's build.
    pub build_env: Vec<(String, String)>,
    pub build_wrap: Option<&'a (dyn Fn(Command) -> Command + Sync)>,
    pub build_limits: Limits,
    pub build_time: Duration,
    /// How much the build folder may grow in one build.
    pub growth_cap: Option<u64>,
    pub cancel: Option<&'a AtomicBool>,
    /// How the tests run (its `test_limit` is replaced by each suite's own).
    pub tests: SuiteEnv<'a>,
}

impl<'a> RunEnv<'a> {
    /// The learner's own workbook: no sandbox, the learner's settings, tests two at a
    /// time where there are cores for it.
    pub fn learner(
        settings: &Settings,
        cancel: Option<&'a AtomicBool>,
        test_env: Vec<(String, String)>,
    ) -> RunEnv<'a> {
        let limits = &settings.limits;
        RunEnv {
            target_dir: None,
            build_env: Vec::new(),
            build_wrap: None,
            build_limits: Limits::default(),
            build_time: Duration::from_secs(limits.build_time_limit_secs),
            growth_cap: None,
            cancel,
            tests: SuiteEnv {
                test_limit: Duration::ZERO,
                suite_budget: Duration::from_secs(limits.max_lab_time_secs),
                output_cap: limits.max_test_output_bytes as usize,
                limits: Limits::default(),
                jobs: cores(),
                env: test_env,
                wrap: None,
                cancel,
                verify_binary: false,
                longest_first: true,
            },
        }
    }
}

impl RunEnv<'static> {
    /// What the gates run with: the given build folder (the workspace's own by default),
    /// tests as many at a time as there are cores, no cap but time.
    pub fn gate(target_dir: Option<PathBuf>) -> RunEnv<'static> {
        RunEnv {
            target_dir,
            build_env: Vec::new(),
            build_wrap: None,
            build_limits: Limits::default(),
            build_time: Duration::from_secs(1800),
            growth_cap: None,
            cancel: None,
            tests: SuiteEnv {
                jobs: cores(),
                ..SuiteEnv::simple(Duration::from_secs(600))
            },
        }
    }
}

/// The cores there are to run tests on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `run` on each job, as many at once as there are cores; the results come in the
/// jobs' order.
pub fn in_parallel<T: Sync, R: Send>(jobs: &[T], run: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = cores();
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break mine };
                        mine.push((i, run(job)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a runner thread"))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Builds the suites of `packages` in the workspace at `tree`. (A caller that verifies
/// executables before every test keeps their bytes: [`Built::remember_executables`].)
pub fn build_suites(
    tree: &Path,
    packages: &[&str],
    env: &RunEnv<'_>,
) -> crate::error::Result<Built> {
    let build_env = BuildEnv {
        target_dir: env.target_dir.clone(),
        env: env.build_env.clone(),
        wrap: env.build_wrap,
        cancel: env.cancel,
        limits: env.build_limits,
        growth_cap: env.growth_cap.map(|cap| {
            let dir = env
                .target_dir
                .clone()
                .unwrap_or_else(|| tree.join("target"));
            (dir, cap)
        }),
    };
    build::build(
        tree,
        packages,
        Artifact::GradedSuite,
        &build_env,
        env.build_time,
    )
}

/// Runs `suite` from what `built` holds.
pub fn run_built(built: &Built, tree: &Path, suite: &GradedSuite, env: &RunEnv<'_>) -> LabRun {
    let exe = match built.executable(&suite.package) {
        Ok(exe) => exe,
        Err(BuildProblem::DoesNotCompile(errors)) => return LabRun::DidNotCompile(errors),
        Err(BuildProblem::Capped(cap, detail)) => return LabRun::BuildCapped { cap, detail },
        Err(BuildProblem::Cancelled) => {
            return LabRun::GraderFault("the build was cancelled".into());
        }
        Err(BuildProblem::Failed(why)) => {
            return LabRun::GraderFault(format!("{} could not be built: {why}", suite.label));
        }
    };
    if suite.expected.is_empty() {
        return LabRun::GraderFault(format!(
            "{}'s graded suite names no test (no `graded::suite![…]`)",
            suite.label
        ));
    }
    let tests = SuiteEnv {
        test_limit: suite.test_limit,
        wrap: env.tests.wrap,
        env: env.tests.env.clone(),
        ..env.tests
    };
    let original = built.originals.get(&suite.package).map(Vec::as_slice);
    LabRun::Ran(super::suite::run(
        exe,
        tree,
        &suite.expected,
        &tests,
        original,
    ))
}

/// Builds every suite in one cargo run and runs each.
pub fn build_and_run(tree: &Path, suites: &[GradedSuite], env: &RunEnv<'_>) -> Vec<LabRun> {
    let packages: Vec<&str> = suites.iter().map(|s| s.package.as_str()).collect();
    let built = match build_suites(tree, &packages, env) {
        Ok(built) => built,
        Err(e) => Built {
            failure: Some(e.to_string()),
            ..Built::default()
        },
    };
    suites
        .iter()
        .map(|suite| run_built(&built, tree, suite, env))
        .collect()
}

/// `COLUMNS` for a lab's child process when this CLI prints to a terminal: the width its
/// timelines and failure reports wrap to (the child's output is captured, so it cannot
/// ask the terminal itself). Elsewhere the child uses the book's width.
pub fn terminal_columns() -> Vec<(String, String)> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return Vec::new();
    }
    match crossterm::terminal::size() {
        Ok((columns, _)) if columns > 0 => vec![("COLUMNS".into(), columns.to_string())],
        _ => Vec::new(),
    }
}

/// Where graded tests put their scratch databases: a memory file system when there is one
/// and `TMPDIR` is not set (SQLite's fsyncs cost nothing there; the results are the same).
pub fn fast_tmp() -> Vec<(String, String)> {
    const FAST_TMP: &str = "/dev/shm";
    if std::env::var_os("TMPDIR").is_none() && Path::new(FAST_TMP).is_dir() {
        vec![("TMPDIR".into(), FAST_TMP.into())]
    } else {
        Vec::new()
    }
}

/// Builds and runs one lab's graded suite in the learner's own workbook: the path
/// `check`, `watch` and `grade` share.
pub fn learner_run(
    wb: &crate::workbook::Workbook,
    lab: &Lab,
    cancel: Option<&AtomicBool>,
) -> crate::error::Result<SuiteRun> {
    let env = RunEnv::learner(
        &wb.settings,
        cancel,
        [fast_tmp(), terminal_columns()].concat(),
    );
    let suite = GradedSuite::of(lab, &wb.root, &wb.settings);
    match build_and_run(&wb.root, std::slice::from_ref(&suite), &env).remove(0) {
        LabRun::Ran(run) => Ok(run),
        LabRun::DidNotCompile(errors) => Err(crate::lab_binary::build_error(
            lab,
            BuildProblem::DoesNotCompile(errors),
        )),
        LabRun::BuildCapped { cap, detail } => Err(crate::lab_binary::build_error(
            lab,
            BuildProblem::Capped(cap, detail),
        )),
        LabRun::GraderFault(why)
            if env
                .cancel
                .is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst)) =>
        {
            let _ = why;
            Err(crate::error::Error::Interrupted)
        }
        LabRun::GraderFault(why) | LabRun::NotAWorkbook(why) => {
            Err(crate::error::Error::Environment(why))
        }
    }
}
