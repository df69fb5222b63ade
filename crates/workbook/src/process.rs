//! Child processes the CLI starts (cargo, a lab's binary, one graded test): each one runs
//! with a time limit, with its output capped, and never outlives the CLI.
//!
//! * **Unix.** The child runs under a *guard*: this same binary, started as
//!   `workbook __guard -- PROGRAM ARGS…`, which makes itself the leader of a new session
//!   (so of a new process group, with no controlling terminal). The guard starts PROGRAM
//!   in its group and holds a *lifeline*, its stdin, whose other end only
//!   the CLI holds. However the CLI ends — a normal exit, Ctrl-C, `kill`, even `kill -9` —
//!   the operating system closes that end, the guard reads end-of-file and kills its whole
//!   group: cargo, rustc, the test binary and anything they started. A time limit or a
//!   cancellation kills the group from the CLI side.
//! * **Windows.** At start the CLI puts itself in a job object that kills every process in
//!   it when its last handle closes — which happens however the CLI ends — and every
//!   child it starts (and theirs) belongs to that job. Each child also gets a job of its
//!   own, nested, so a time limit can end that child's tree alone.
//!
//! This is the CLI's code, not simulated code: threads and the wall clock are fine here.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// The argument that turns the CLI binary into a guard (see the module comment).
pub const GUARD_FLAG: &str = "__guard";

/// The guard program (the CLI's own binary), set once at startup on Unix. Without it
/// children still run in their own process group and are killed at a time limit, but a
/// CLI killed from outside would leave them running: only code linked into other
/// programs (the consistency gate's tests) runs without one.
static GUARD: OnceLock<PathBuf> = OnceLock::new();

/// Ties every child started from now on to this process's life: on Unix through guards
/// started from `program` (the CLI's own binary), on Windows through a job object.
pub fn tie_children_to_this_process(program: PathBuf) {
    let _ = GUARD.set(program);
    platform::tie_to_this_process();
}

/// How a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    /// Ended by a signal (Unix), whose number is given.
    Signalled(i32),
    /// Stopped by the CLI at the time limit.
    TimedOut,
    /// Stopped by the CLI because its result no longer mattered (watch mode).
    Cancelled,
    /// Stopped by the CLI because the job's watch said so (a folder grew past its cap).
    Watched,
}

impl Ending {
    pub fn success(self) -> bool {
        self == Ending::Exited(0)
    }

    /// In words, for a learner: "exited with code 101", "was ended by signal 11 (…)".
    pub fn describe(self) -> String {
        match self {
            // A sandbox (bubblewrap) or a shell between us and the test reports a signal
            // as 128 + its number.
            Ending::Exited(code @ 129..=159) if !graded::signal_meaning(code - 128).is_empty() => {
                format!(
                    "exited with code {code}, which a sandbox reports for signal {}{}",
                    code - 128,
                    graded::signal_meaning(code - 128)
                )
            }
            Ending::Exited(code) => format!("exited with code {code}"),
            Ending::Signalled(signal) => format!(
                "was ended by signal {signal}{}",
                graded::signal_meaning(signal)
            ),
            Ending::TimedOut => "was stopped at its time limit".into(),
            Ending::Cancelled => "was cancelled".into(),
            Ending::Watched => "was stopped by a cap".into(),
        }
    }
}

/// What a finished child left behind.
#[derive(Debug)]
pub struct Finished {
    pub ending: Ending,
    pub stdout: String,
    pub stderr: String,
    /// True when the child printed more than the cap; the rest was read and dropped.
    pub truncated: bool,
    pub seconds: f64,
}

impl Finished {
    pub fn success(&self) -> bool {
        self.ending.success()
    }
}

/// One child to run.
pub struct Job<'a> {
    pub command: Command,
    /// A line written to the child's stdin, after which stdin is closed (a graded
    /// child's nonce). `None`: stdin is empty.
    pub input: Option<String>,
    pub time_limit: Duration,
    /// The most bytes kept of stdout and of stderr, each.
    pub output_cap: usize,
    pub cancel: Option<&'a AtomicBool>,
    /// Resource limits for the child and everything it starts (Unix, under a guard).
    pub limits: Limits,
    /// Asked about once a second while the child runs: `true` stops it
    /// ([`Ending::Watched`]).
    pub watch: Option<&'a (dyn Fn() -> bool + Sync)>,
}

/// Resource limits a guard sets on itself before it starts the child, so that the child
/// and all it starts inherit them (`setrlimit`, Unix only; elsewhere they are not set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// The most address space one process may map (`RLIMIT_AS`): an allocation past it
    /// fails, and a Rust program aborts with "memory allocation of N bytes failed".
    pub memory_bytes: Option<u64>,
    /// The largest file one process may write (`RLIMIT_FSIZE`): a write past it fails.
    pub file_bytes: Option<u64>,
}

impl Limits {
    /// The guard's arguments that set these limits (a guard runs on Unix only).
    #[cfg(unix)]
    fn guard_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(bytes) = self.memory_bytes {
            args.extend(["--memory".to_string(), bytes.to_string()]);
        }
        if let Some(bytes) = self.file_bytes {
            args.extend(["--file-size".to_string(), bytes.to_string()]);
        }
        args
    }
}

impl<'a> Job<'a> {
    pub fn new(command: Command, time_limit: Duration) -> Job<'a> {
        Job {
            command,
            input: None,
            time_limit,
            output_cap: DEFAULT_OUTPUT_CAP,
            cancel: None,
            limits: Limits::default(),
            watch: None,
        }
    }
}

/// How often a job's watch is asked.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// The default cap on what one child may print (per stream).
pub const DEFAULT_OUTPUT_CAP: usize = 8 << 20;

/// How much of the end of a capped output is kept: a graded test's result line comes
/// last, after whatever it printed.
const TAIL_KEPT: usize = 8 * 1024;

/// Reads a pipe to its end, keeping the first `cap` bytes and the last few kilobytes;
/// what lies between is dropped and the drop is marked.
fn drain(mut pipe: impl Read + Send + 'static, cap: usize) -> thread::JoinHandle<(String, bool)> {
    thread::spawn(move || {
        let mut head = Vec::new();
        let mut tail = Vec::new();
        let mut dropped = 0usize;
        let mut buffer = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(head.len()).min(n);
                    head.extend_from_slice(&buffer[..room]);
                    tail.extend_from_slice(&buffer[room..n]);
                    if tail.len() > TAIL_KEPT {
                        let excess = tail.len() - TAIL_KEPT;
                        dropped += excess;
                        tail.drain(..excess);
                    }
                }
            }
        }
        let mut text = String::from_utf8_lossy(&head).into_owned();
        if dropped > 0 {
            text.push_str(&format!("\n[… {dropped} bytes of output dropped …]\n"));
        }
        text.push_str(&String::from_utf8_lossy(&tail));
        (text, dropped > 0)
    })
}

fn joined(handle: Option<thread::JoinHandle<(String, bool)>>) -> (String, bool) {
    handle
        .and_then(|h| h.join().ok())
        .unwrap_or_else(|| (String::new(), false))
}

/// Runs one child to its end, its time limit, or its cancellation.
pub fn run(mut job: Job<'_>, dir: &Path) -> std::io::Result<Finished> {
    job.command
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    platform::run(job)
}

/// Why a running child must stop now, if it must: a cancellation, its time limit, or
/// its watch (asked at most once every [`WATCH_EVERY`]).
fn stop_reason(
    cancel: Option<&AtomicBool>,
    started: Instant,
    time_limit: Duration,
    watch: Option<&(dyn Fn() -> bool + Sync)>,
    watched: &mut Instant,
) -> Option<Ending> {
    if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
        return Some(Ending::Cancelled);
    }
    if started.elapsed() >= time_limit {
        return Some(Ending::TimedOut);
    }
    if let Some(watch) = watch
        && watched.elapsed() >= WATCH_EVERY
    {
        *watched = Instant::now();
        if watch() {
            return Some(Ending::Watched);
        }
    }
    None
}

#[cfg(unix)]
mod platform {
    use super::*;
    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;
    use std::os::unix::process::{CommandExt, ExitStatusExt};

    /// Wraps `command` in a guard when one is set: the same program, arguments,
    /// environment and folder, behind `GUARD -- `.
    fn guarded(command: Command, limits: &Limits) -> Command {
        let Some(guard) = GUARD.get() else {
            return command;
        };
        let mut wrapped = Command::new(guard);
        wrapped.arg(GUARD_FLAG).args(limits.guard_args());
        wrapped.arg("--").arg(command.get_program());
        wrapped.args(command.get_args());
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => wrapped.env(key, value),
                None => wrapped.env_remove(key),
            };
        }
        if let Some(dir) = command.get_current_dir() {
            wrapped.current_dir(dir);
        }
        wrapped
    }

    /// Nothing to do at start on Unix: each child's guard holds its lifeline.
    pub fn tie_to_this_process() {}

    /// The guard's own flags, before `--`.
    fn parse_limits(args: &[String]) -> (Limits, &[String]) {
        let mut limits = Limits::default();
        let mut rest = args;
        while let [flag, value, tail @ ..] = rest {
            let bytes = value.parse::<u64>().ok();
            match flag.as_str() {
                "--memory" => limits.memory_bytes = bytes,
                "--file-size" => limits.file_bytes = bytes,
                _ => break,
            }
            rest = tail;
        }
        (limits, rest)
    }

    /// Sets the limits on the guard itself; the child and all it starts inherit them.
    fn set_limits(limits: &Limits) {
        use nix::sys::resource::{Resource, setrlimit};
        if let Some(bytes) = limits.memory_bytes {
            let _ = setrlimit(Resource::RLIMIT_AS, bytes, bytes);
        }
        if let Some(bytes) = limits.file_bytes {
            let _ = setrlimit(Resource::RLIMIT_FSIZE, bytes, bytes);
        }
    }

    fn kill_group(leader: u32) {
        if let Ok(pid) = i32::try_from(leader) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }

    pub fn run(job: Job<'_>) -> std::io::Result<Finished> {
        let Job {
            command,
            input,
            time_limit,
            output_cap,
            cancel,
            limits,
            watch,
        } = job;
        let guard = GUARD.get().is_some();
        let mut command = guarded(command, &limits);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if !guard {
            // A guard makes itself the leader of a new session (and group); without one,
            // the child leads a new group so that a time limit can end all of it.
            command.process_group(0);
        }
        let started = Instant::now();
        let mut child = command.spawn()?;
        let stdout = child.stdout.take().map(|p| drain(p, output_cap));
        let stderr = child.stderr.take().map(|p| drain(p, output_cap));
        // Under a guard, stdin is the lifeline: its first line is the child's input, and
        // it stays open until the guard has ended.
        let mut lifeline = child.stdin.take();
        if let Some(pipe) = lifeline.as_mut() {
            let line = input.unwrap_or_default();
            let _ = writeln!(pipe, "{}", line.trim_end());
            let _ = pipe.flush();
        }
        if !guard {
            drop(lifeline.take());
        }
        let mut watched = Instant::now();
        let ending = loop {
            if let Some(status) = child.try_wait()? {
                break match (status.code(), status.signal()) {
                    (Some(code), _) => Ending::Exited(code),
                    (None, Some(signal)) => Ending::Signalled(signal),
                    (None, None) => Ending::Exited(-1),
                };
            }
            if let Some(stop) = stop_reason(cancel, started, time_limit, watch, &mut watched) {
                kill_group(child.id());
                let _ = child.wait();
                break stop;
            }
            thread::sleep(Duration::from_millis(5));
        };
        // Whatever the child left behind in its group goes too, so the pipes close.
        kill_group(child.id());
        drop(lifeline);
        let (stdout, cut_out) = joined(stdout);
        let (stderr, cut_err) = joined(stderr);
        Ok(Finished {
            ending,
            stdout,
            stderr,
            truncated: cut_out || cut_err,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// `workbook __guard -- PROGRAM ARGS…`: see the module comment. Returns the exit
    /// code to end with; a child ended by a signal ends the guard by the same signal.
    pub fn guard_main(args: &[String]) -> std::process::ExitCode {
        let (limits, args) = parse_limits(args);
        let args = args.strip_prefix(&["--".to_string()]).unwrap_or(args);
        let Some((program, rest)) = args.split_first() else {
            eprintln!(
                "usage: workbook {GUARD_FLAG} [--memory BYTES] [--file-size BYTES] -- PROGRAM [ARGS…]"
            );
            return std::process::ExitCode::from(2);
        };
        set_limits(&limits);
        // A session of its own: one group for everything below (the CLI kills it by the
        // guard's pid), and no controlling terminal, so nothing below can open /dev/tty to
        // type into the learner's or the teacher's shell.
        let _ = nix::unistd::setsid();
        // Linux: whatever leaves the session (`setsid`, a double fork) and loses its parent
        // becomes this guard's child instead of init's, so the guard can end it too.
        #[cfg(target_os = "linux")]
        let _ = nix::sys::prctl::set_child_subreaper(true);
        let mut first = String::new();
        let _ = std::io::stdin().read_line(&mut first);
        let input = first.trim_end_matches(['\n', '\r']).to_string();
        let mut command = Command::new(program);
        command.args(rest);
        command.stdin(if input.is_empty() {
            Stdio::null()
        } else {
            Stdio::piped()
        });
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                eprintln!("cannot start {program}: {e}");
                return std::process::ExitCode::from(127);
            }
        };
        if let Some(mut stdin) = child.stdin.take() {
            let _ = writeln!(stdin, "{input}");
        }
        let child_pid = Pid::from_raw(child.id() as i32);
        static CUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        thread::spawn(move || {
            // The lifeline: end-of-file means the CLI is gone, so everything goes: the
            // child first (in case it left the group), whatever it orphaned, then the
            // group, the guard with it. The guard lives until then (see below): were it
            // to end first, what the child orphaned would go to init, out of reach.
            let mut rest = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut rest);
            CUT.store(true, std::sync::atomic::Ordering::SeqCst);
            let _ = nix::sys::signal::kill(child_pid, Signal::SIGKILL);
            end_escaped_descendants();
            let _ = killpg(nix::unistd::getpgrp(), Signal::SIGKILL);
        });
        let status = child.wait();
        if CUT.load(std::sync::atomic::Ordering::SeqCst) {
            // The lifeline thread is ending everything, this guard last; the child may
            // have been reaped there (then `wait` failed), and its orphans are still to
            // be ended.
            loop {
                thread::park();
            }
        }
        let status = match status {
            Ok(status) => status,
            Err(_) => return std::process::ExitCode::from(125),
        };
        end_escaped_descendants();
        if let Some(signal) = status.signal().and_then(|s| Signal::try_from(s).ok()) {
            let _ = nix::sys::signal::raise(signal);
        }
        std::process::ExitCode::from(status.code().unwrap_or(1).clamp(0, 255) as u8)
    }
}

/// Kills every process that still has the guard as its parent — on Linux, where the guard
/// is a subreaper, that is everything below it that left its group and was orphaned —
/// round after round, since a killed process's own children are orphaned in turn.
#[cfg(target_os = "linux")]
fn end_escaped_descendants() {
    use nix::sys::signal::{Signal, kill};
    use nix::sys::wait::{WaitPidFlag, waitpid};
    use nix::unistd::Pid;
    let me = std::process::id();
    for _round in 0..64 {
        let children = children_of(me);
        if children.is_empty() {
            break;
        }
        for pid in &children {
            let _ = kill(Pid::from_raw(*pid as i32), Signal::SIGKILL);
        }
        for pid in &children {
            let _ = waitpid(Pid::from_raw(*pid as i32), None);
        }
        // Reap anything else that ended meanwhile.
        while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            if status == nix::sys::wait::WaitStatus::StillAlive {
                break;
            }
        }
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn end_escaped_descendants() {
    // No subreaper here: a process that left the guard's group is out of its reach.
}

/// The processes whose parent is `parent`, from `/proc/PID/stat` (the field after the
/// command name, which may itself hold spaces and parentheses).
#[cfg(target_os = "linux")]
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let after_name = &stat[stat.rfind(')')? + 1..];
            let ppid: u32 = after_name.split_whitespace().nth(1)?.parse().ok()?;
            (ppid == parent).then_some(pid)
        })
        .collect()
}

#[cfg(windows)]
mod platform {
    use super::*;
    use process_wrap::std::{CommandWrap, JobObject};

    /// The job this process and all it starts belong to; its handle closes only when the
    /// process ends, and then every process in it is killed.
    static JOB: OnceLock<Option<win32job::Job>> = OnceLock::new();

    pub fn tie_to_this_process() {
        JOB.get_or_init(|| {
            let mut limits = win32job::ExtendedLimitInfo::new();
            limits.limit_kill_on_job_close();
            let job = win32job::Job::create_with_limit_info(&limits).ok()?;
            job.assign_current_process().ok()?;
            Some(job)
        });
    }

    pub fn run(job: Job<'_>) -> std::io::Result<Finished> {
        let Job {
            command,
            input,
            time_limit,
            output_cap,
            cancel,
            limits: _,
            watch,
        } = job;
        let started = Instant::now();
        // The child's own job: a time limit ends its whole tree.
        let mut child = CommandWrap::from(command).wrap(JobObject).spawn()?;
        let stdout = child.stdout().take().map(|p| drain(p, output_cap));
        let stderr = child.stderr().take().map(|p| drain(p, output_cap));
        if let (Some(mut pipe), Some(line)) = (child.stdin().take(), input) {
            let _ = writeln!(pipe, "{}", line.trim_end());
        }
        let mut watched = Instant::now();
        let ending = loop {
            if let Some(status) = child.try_wait()? {
                break Ending::Exited(status.code().unwrap_or(-1));
            }
            if let Some(stop) = stop_reason(cancel, started, time_limit, watch, &mut watched) {
                let _ = child.start_kill();
                let _ = child.wait();
                break stop;
            }
            thread::sleep(Duration::from_millis(5));
        };
        // Whatever the child left running in its job goes too, so the pipes close.
        let _ = child.start_kill();
        drop(child);
        let (stdout, cut_out) = joined(stdout);
        let (stderr, cut_err) = joined(stderr);
        Ok(Finished {
            ending,
            stdout,
            stderr,
            truncated: cut_out || cut_err,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Windows needs no guard (the job object does its work); the flag is refused.
    pub fn guard_main(_args: &[String]) -> std::process::ExitCode {
        eprintln!("{GUARD_FLAG} is only used on Unix");
        std::process::ExitCode::from(2)
    }
}

pub use platform::guard_main;

/// The cargo that runs us (cargo sets `CARGO` for `cargo run`), or `cargo` on the PATH.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The last lines of a long text, for error messages.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
