//! Building labs with cargo, reading cargo's JSON messages: which package built which
//! executable, and which package did not compile and why. A lab that does not compile is
//! known from cargo's own report, never guessed from the wording of an error; a build
//! stopped by a cap (time, memory, disk) says which.

use super::model::Cap;
use crate::error::{Error, Result};
use crate::process::{self, Ending, Job, Limits};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What to build for each package.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Artifact {
    /// The graded suite's executable: the example `graded-PACKAGE` (`cargo build --examples`).
    GradedSuite,
    /// The lab's own binary (`cargo build --bins`), for runs, replays and figures.
    LabBinary,
}

/// Where and how a build runs.
#[derive(Default)]
pub struct BuildEnv<'a> {
    /// `CARGO_TARGET_DIR`, when not the workspace's own `target/`.
    pub target_dir: Option<PathBuf>,
    /// Extra environment for cargo.
    pub env: Vec<(String, String)>,
    /// Wraps the cargo command (a sandbox), when set.
    pub wrap: Option<&'a (dyn Fn(Command) -> Command + Sync)>,
    pub cancel: Option<&'a AtomicBool>,
    /// Memory and file-size limits for cargo and every compiler it starts.
    pub limits: Limits,
    /// A folder that may not grow past this many bytes while the build runs (the build
    /// folder of a class grading): past it, the build is stopped.
    pub growth_cap: Option<(PathBuf, u64)>,
}

/// What one build produced.
#[derive(Debug, Default)]
pub struct Built {
    /// Package name → the executable built for it.
    pub executables: BTreeMap<String, PathBuf>,
    /// Package name → the compiler's errors, as it rendered them.
    pub errors: BTreeMap<String, String>,
    /// When cargo failed and no package of ours has compiler errors: its last words.
    pub failure: Option<String>,
    pub ending: Option<Ending>,
    /// The cap the build hit, when it hit one.
    pub capped: Option<Cap>,
    /// Package name → its executable's bytes right after the build, when they were
    /// kept ([`Built::remember_executables`]): what every test is compared with.
    pub originals: BTreeMap<String, Vec<u8>>,
}

impl Built {
    /// Keeps every executable's bytes as they are now, so that a test that rewrites any
    /// of them (unsandboxed, nothing else stops it) is caught before the next test runs.
    pub fn remember_executables(&mut self) {
        self.originals = (self.executables.iter())
            .filter_map(|(package, exe)| Some((package.clone(), std::fs::read(exe).ok()?)))
            .collect();
    }

    /// Copies every executable into `dir` (one per package, named after it) and points
    /// at the copy: builds that share a build folder write their executables at the same
    /// paths, so only a copy taken right after the build stays this build's.
    pub fn keep_executables(&mut self, dir: &Path) -> std::io::Result<()> {
        for (package, exe) in &mut self.executables {
            let kept = dir.join(package);
            let fresh = dir.join(format!(".{package}.new"));
            std::fs::copy(&*exe, &fresh)?;
            // A rename replaces whatever stood there, even a file a test made read-only.
            std::fs::rename(&fresh, &kept)?;
            *exe = kept;
        }
        Ok(())
    }

    /// The executable of `package`, or why there is none.
    pub fn executable(&self, package: &str) -> std::result::Result<&Path, BuildProblem> {
        if let Some(exe) = self.executables.get(package) {
            return Ok(exe);
        }
        if let Some(errors) = self.errors.get(package) {
            return Err(BuildProblem::DoesNotCompile(errors.clone()));
        }
        let why = || {
            self.failure
                .clone()
                .unwrap_or_else(|| "cargo built no executable for it".into())
        };
        match (self.ending, self.capped) {
            (Some(Ending::Cancelled), _) => Err(BuildProblem::Cancelled),
            (_, Some(cap)) => Err(BuildProblem::Capped(cap, why())),
            _ => Err(BuildProblem::Failed(why())),
        }
    }
}

/// Why a package has no executable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildProblem {
    /// The compiler reported errors in the package's own code.
    DoesNotCompile(String),
    /// The build hit a cap; what cargo said.
    Capped(Cap, String),
    Cancelled,
    /// Anything else: cargo could not run, a dependency failed, the compiler crashed.
    Failed(String),
}

/// The cap a failed build hit, from how it ended and what it printed: the time limit,
/// the folder's growth, an allocation that failed under the memory limit, a file that
/// grew past the file-size limit (SIGXFSZ, signal 25).
fn cap_hit(ending: Ending, stderr: &str) -> Option<Cap> {
    let text = stderr.to_ascii_lowercase();
    match ending {
        Ending::TimedOut => Some(Cap::Time),
        Ending::Watched => Some(Cap::Disk),
        _ if text.contains("memory allocation of") || text.contains("out of memory") => {
            Some(Cap::Memory)
        }
        _ if text.contains("signal: 25") || text.contains("file size limit exceeded") => {
            Some(Cap::Disk)
        }
        _ => None,
    }
}

/// The total size of the files under `dir` (what a build folder holds).
pub fn folder_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => folder_bytes(&entry.path()),
            Ok(kind) if kind.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    package_id: String,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    executable: Option<PathBuf>,
    #[serde(default)]
    message: Option<Diagnostic>,
}

#[derive(Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
}

#[derive(Deserialize)]
struct Diagnostic {
    level: String,
    #[serde(default)]
    rendered: Option<String>,
}

/// A package's name from cargo's package id: `path+file:///…/01-outbox#lab01-outbox@0.1.0`,
/// `path+file:///…/labkit#0.1.0` (the name is the folder's) or the old
/// `name 0.1.0 (path+file://…)`.
pub fn package_name(id: &str) -> String {
    if let Some((url, fragment)) = id.rsplit_once('#') {
        return match fragment.split_once('@') {
            Some((name, _)) => name.to_string(),
            None => url.rsplit('/').next().unwrap_or_default().to_string(),
        };
    }
    id.split_whitespace().next().unwrap_or_default().to_string()
}

/// Reads cargo's JSON messages into what was built.
pub fn read_messages(stdout: &str, artifact: Artifact) -> Built {
    let mut built = Built::default();
    for line in stdout.lines().filter(|l| l.starts_with('{')) {
        let Ok(message) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        let package = package_name(&message.package_id);
        match message.reason.as_str() {
            "compiler-artifact" => {
                let (Some(target), Some(exe)) = (message.target, message.executable) else {
                    continue;
                };
                let wanted = match artifact {
                    Artifact::GradedSuite => {
                        target.name == format!("graded-{package}")
                            && target.kind.iter().any(|k| k == "example")
                    }
                    Artifact::LabBinary => {
                        target.name == package && target.kind.iter().any(|k| k == "bin")
                    }
                };
                if wanted {
                    built.executables.insert(package, exe);
                }
            }
            "compiler-message" => {
                if let Some(diagnostic) = message.message
                    && diagnostic.level == "error"
                {
                    let text = built.errors.entry(package).or_default();
                    text.push_str(diagnostic.rendered.as_deref().unwrap_or("an error"));
                }
            }
            _ => {}
        }
    }
    built
}

/// Builds `artifact` for each of `packages` in the workspace at `root`, going on past a
/// package that does not compile so that it costs only itself.
pub fn build(
    root: &Path,
    packages: &[&str],
    artifact: Artifact,
    env: &BuildEnv<'_>,
    time_limit: Duration,
) -> Result<Built> {
    let mut command = process::cargo();
    command.args([
        "build",
        "--keep-going",
        "--message-format=json-diagnostic-rendered-ansi",
    ]);
    match artifact {
        // A lab crate's graded suite is its example `graded-` and the package's name.
        Artifact::GradedSuite => command.arg("--examples"),
        Artifact::LabBinary => command.arg("--bins"),
    };
    for package in packages {
        command.args(["-p", package]);
    }
    if let Some(dir) = &env.target_dir {
        command.env("CARGO_TARGET_DIR", dir);
    }
    for (key, value) in &env.env {
        command.env(key, value);
    }
    let command = match env.wrap {
        Some(wrap) => wrap(command),
        None => command,
    };
    let grown = env.growth_cap.as_ref().map(|(dir, cap)| {
        let before = folder_bytes(dir);
        move || folder_bytes(dir).saturating_sub(before) > *cap
    });
    let mut job = Job::new(command, time_limit);
    job.cancel = env.cancel;
    job.limits = env.limits;
    job.watch = grown.as_ref().map(|w| w as &(dyn Fn() -> bool + Sync));
    let finished = process::run(job, root)
        .map_err(|e| Error::io("cannot start cargo to build the labs", e))?;
    let mut built = read_messages(&finished.stdout, artifact);
    built.ending = Some(finished.ending);
    if !finished.success() {
        let stderr = crate::text::strip_ansi(&finished.stderr);
        built.capped = cap_hit(finished.ending, &stderr);
        built.failure = Some(match finished.ending {
            Ending::TimedOut => {
                format!("the build did not finish within {} s", time_limit.as_secs())
            }
            Ending::Watched => "the build folder grew past its cap".into(),
            _ => process::tail(&stderr, 25),
        });
    }
    // The compiler colours its messages; the CLI colours or strips them when it prints.
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_come_from_every_form_of_package_id() {
        assert_eq!(
            package_name("path+file:///w/labs/01-outbox#lab01-outbox@0.1.0"),
            "lab01-outbox"
        );
        assert_eq!(package_name("path+file:///w/crates/labkit#0.1.0"), "labkit");
        assert_eq!(
            package_name("lab01-outbox 0.1.0 (path+file:///w/labs/01-outbox)"),
            "lab01-outbox"
        );
    }

    #[test]
    fn executables_and_errors_are_read_per_package() {
        let stdout = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/labs/01-outbox#lab01-outbox@0.1.0","target":{"name":"graded-lab01-outbox","kind":["example"]},"executable":"/t/graded-1"}
{"reason":"compiler-artifact","package_id":"path+file:///w/labs/01-outbox#lab01-outbox@0.1.0","target":{"name":"lab01-outbox","kind":["bin"]},"executable":"/t/lab01-outbox"}
{"reason":"compiler-message","package_id":"path+file:///w/labs/02-x#lab02-x@0.1.0","message":{"level":"error","rendered":"error[E0308]: mismatched types\n"}}
{"reason":"compiler-message","package_id":"path+file:///w/labs/02-x#lab02-x@0.1.0","message":{"level":"warning","rendered":"warning: unused\n"}}
{"reason":"build-finished","success":false}"#;
        let suites = read_messages(stdout, Artifact::GradedSuite);
        assert_eq!(
            suites.executables["lab01-outbox"],
            PathBuf::from("/t/graded-1")
        );
        assert_eq!(suites.errors["lab02-x"], "error[E0308]: mismatched types\n");
        assert!(matches!(
            suites.executable("lab02-x"),
            Err(BuildProblem::DoesNotCompile(_))
        ));
        let bins = read_messages(stdout, Artifact::LabBinary);
        assert_eq!(
            bins.executables["lab01-outbox"],
            PathBuf::from("/t/lab01-outbox")
        );
    }
}
