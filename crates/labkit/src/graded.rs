//! The harness of every graded suite: its `main`, in place of libtest's.
//!
//! A graded suite names its tests once, with [`graded_suite!`](crate::graded_suite):
//!
//! ```text
//! labkit::graded_suite![a_retried_identity_is_recognised, exactly_once_under_two_faults];
//! ```
//!
//! Each test runs in a process of its own, so an abort, a stack overflow or an `exit` in
//! one test ends that test only. The binary speaks two ways:
//!
//! * `graded [FILTER…] [--exact] [--list]` — for `cargo test`: runs the selected tests,
//!   each in a child process, and prints libtest's familiar lines and summary (exit 101
//!   when one fails).
//! * `graded --graded-child NAME` — one test, for a parent that must trust the result (the
//!   `cargo labs` grader, and the `cargo test` mode above). Before any code under test
//!   exists in the process, the child reads one line from stdin: a 128-bit key only the
//!   parent knows, as 32 hex digits. It reads the line straight into a buffer of its own
//!   (not stdin's), keeps the key as bytes and wipes the digits. When the test returns
//!   without panicking the child prints `RESULT_TAG NAME passed PROOF`, where the proof is
//!   a SipHash MAC of the test's name under the key ([`proof`]); when it panics,
//!   `RESULT_TAG NAME failed` after the panic's message. An `exit`, an abort or a kill
//!   leaves no line, and a missing line is a failure.
//!
//! What this does not stop: the code under test runs in the same process as the key. Safe
//! Rust cannot read it, but a compiler soundness bug can (rust-lang/rust#25860 turns a
//! value into an arbitrary memory read without `unsafe`). Holding the key as bare bytes,
//! never as text, leaves nothing a memory scan can recognise; the workbook's integrity scan
//! notes the shapes those exploits take, for a reviewer.

use std::io::{Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::Instant;

/// Starts every result line a graded child prints.
pub const RESULT_TAG: &str = "<labkit-graded-result>";

/// The argument that runs one test as a child.
pub const CHILD_FLAG: &str = "--graded-child";

/// One test of a graded suite.
#[derive(Clone, Copy)]
pub struct GradedTest {
    pub name: &'static str,
    pub run: fn(),
}

/// Declares a graded suite: `labkit::graded_suite![test_a, test_b, …];` defines `main`.
#[macro_export]
macro_rules! graded_suite {
    ($($test:ident),+ $(,)?) => {
        fn main() -> ::std::process::ExitCode {
            $crate::graded::main(&[
                $($crate::graded::GradedTest { name: stringify!($test), run: $test }),+
            ])
        }
    };
}

/// What a parent concluded about one test run in a child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildVerdict {
    pub passed: bool,
    /// What the child printed, without result lines (a failure's message, a timeline).
    pub output: String,
    /// Result lines that were not this test's own proof (forged, duplicated, or another
    /// test's), each described in words.
    pub ignored_lines: Vec<String>,
    /// True when the child printed no result line of its own at all.
    pub unreported: bool,
}

/// A fresh 128-bit key, as 32 hex digits. `RandomState` is seeded by the operating
/// system for every process; two hashers give two independent 64-bit halves.
pub fn nonce() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let half = || {
        let mut h = RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.write_u32(std::process::id());
        h.finish()
    };
    format!("{:016x}{:016x}", half(), half())
}

/// The key a nonce's 32 hex digits spell, or `None` when they spell none.
pub fn nonce_key(nonce: &str) -> Option<[u8; 16]> {
    let digits = nonce.trim().as_bytes();
    if digits.len() != 32 {
        return None;
    }
    let mut key = [0u8; 16];
    for (i, pair) in digits.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).ok()?;
        key[i] = u8::from_str_radix(text, 16).ok()?;
    }
    Some(key)
}

/// The proof that test `name` passed, under `key`: 16 hex digits of SipHash-2-4.
pub fn proof(key: [u8; 16], name: &str) -> String {
    format!(
        "{:016x}",
        crate::hash::siphash24(key, format!("passed\n{name}").as_bytes())
    )
}

/// Reads what a graded child printed for test `name` run with `nonce`, and whether it
/// exited successfully. A pass needs both the success and the child's proof line.
pub fn judge(name: &str, nonce: &str, stdout: &str, exited_ok: bool) -> ChildVerdict {
    let proof = match nonce_key(nonce) {
        Some(key) => format!("{RESULT_TAG} {name} passed {}", proof(key, name)),
        // No key, no proof: nothing the child prints can pass.
        None => format!("{RESULT_TAG} {name} passed \u{0}"),
    };
    let own_failure = format!("{RESULT_TAG} {name} failed");
    let mut output = String::new();
    let mut ignored_lines = Vec::new();
    let mut proven = false;
    let mut failed = false;
    let mut reported = false;
    for line in stdout.lines() {
        if !line.starts_with(RESULT_TAG) {
            output.push_str(line);
            output.push('\n');
            continue;
        }
        if line == proof && !proven {
            proven = true;
            reported = true;
        } else if line == own_failure && !failed {
            failed = true;
            reported = true;
        } else {
            let what = if line == proof {
                "a second copy of the pass line"
            } else if line.starts_with(&format!("{RESULT_TAG} {name} passed")) {
                "a pass line without the grader's proof"
            } else {
                "a result line for something else"
            };
            ignored_lines.push(format!("{what}: `{}`", shorten(line, 80)));
        }
    }
    ChildVerdict {
        // A failure line beside a proof means the proof did not come from the harness
        // alone: the test failed. So does any other result line: an honest test prints
        // none, and believing the proof among imitations would let a test print guesses
        // until one is right.
        passed: proven && !failed && exited_ok && ignored_lines.is_empty(),
        output,
        ignored_lines,
        unreported: !reported,
    }
}

fn shorten(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        line.to_string()
    } else {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// The `main` of a graded suite.
pub fn main(tests: &[GradedTest]) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == CHILD_FLAG) {
        return match args.get(i + 1) {
            Some(name) => run_child(tests, name),
            None => {
                eprintln!("{CHILD_FLAG} needs a test name");
                ExitCode::from(2)
            }
        };
    }
    let options = match Options::parse(&args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let selected: Vec<&GradedTest> = tests.iter().filter(|t| options.selects(t.name)).collect();
    if options.list {
        for test in &selected {
            println!("{}: test", test.name);
        }
        if !options.terse {
            println!("\n{} tests, 0 benchmarks", selected.len());
        }
        return ExitCode::SUCCESS;
    }
    run_parent(&selected, tests.len() - selected.len(), options.quiet)
}

/// The libtest flags a graded suite understands (others are accepted and ignored, so
/// `cargo test -- --color never` and friends keep working).
#[derive(Default)]
struct Options {
    filters: Vec<String>,
    exact: bool,
    list: bool,
    terse: bool,
    quiet: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options::default();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--exact" => options.exact = true,
                "--list" => options.list = true,
                "-q" | "--quiet" => options.quiet = true,
                "--format" => options.terse = args.next().is_some_and(|f| f == "terse"),
                "--color" | "--test-threads" | "--skip" | "--logfile" | "-Z" | "--shuffle-seed" => {
                    args.next();
                }
                flag if flag.starts_with("--") || flag.starts_with('-') => {}
                filter => options.filters.push(filter.to_string()),
            }
        }
        Ok(options)
    }

    fn selects(&self, name: &str) -> bool {
        self.filters.is_empty()
            || self.filters.iter().any(|f| {
                if self.exact {
                    name == f
                } else {
                    name.contains(f.as_str())
                }
            })
    }
}

/// The last panic's message, kept by the child's panic hook.
static PANIC_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

fn run_child(tests: &[GradedTest], name: &str) -> ExitCode {
    // The key first, before any code under test exists in this process.
    let key = read_key();
    let Some(test) = tests.iter().find(|t| t.name == name) else {
        println!("this graded suite has no test `{name}`");
        return ExitCode::from(2);
    };
    // Panics inside explorations are caught and turned into violations; keep only the
    // last message, quietly, and print it if the test itself fails.
    panic::set_hook(Box::new(|info| {
        let text = panic_text(info.payload());
        if let Ok(mut slot) = PANIC_MESSAGE.lock() {
            *slot = Some(text);
        }
    }));
    let outcome = panic::catch_unwind(AssertUnwindSafe(test.run));
    let mut stdout = std::io::stdout().lock();
    let written = match outcome {
        Ok(()) => match key {
            Some(key) => writeln!(stdout, "\n{RESULT_TAG} {name} passed {}", proof(key, name)),
            None => writeln!(
                stdout,
                "\nno key was given on stdin: nothing to prove a pass with"
            ),
        },
        Err(payload) => {
            let message = PANIC_MESSAGE
                .lock()
                .ok()
                .and_then(|mut m| m.take())
                .unwrap_or_else(|| panic_text(payload.as_ref()));
            writeln!(stdout, "{message}\n{RESULT_TAG} {name} failed")
        }
    };
    let _ = written.and_then(|()| stdout.flush());
    ExitCode::SUCCESS
}

/// Reads the key line from stdin into a buffer of this function's own: a read this large
/// goes past stdin's internal buffer, so the digits never sit there. The digits are wiped
/// once decoded; only the 16 bytes stay, which nothing in memory marks as a key.
fn read_key() -> Option<[u8; 16]> {
    // Larger than std's 8 KiB stdin buffer at every read, so each read bypasses it.
    let mut buffer = vec![0u8; 64 * 1024];
    let mut filled = 0;
    let mut stdin = std::io::stdin().lock();
    while filled < 33 && !buffer[..filled].contains(&b'\n') {
        match stdin.read(&mut buffer[filled..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    let line = buffer[..filled]
        .split(|b| *b == b'\n')
        .next()
        .unwrap_or(&[]);
    let key = std::str::from_utf8(line).ok().and_then(nonce_key);
    buffer.fill(0);
    std::hint::black_box(&buffer);
    key
}

/// Runs one test in a child of this same binary and judges it.
fn spawn_and_judge(exe: &Path, name: &str) -> ChildVerdict {
    let nonce = nonce();
    let child = Command::new(exe)
        .args([CHILD_FLAG, name])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            return ChildVerdict {
                passed: false,
                output: format!("cannot start the test process: {e}"),
                ignored_lines: Vec::new(),
                unreported: true,
            };
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = writeln!(stdin, "{nonce}");
    }
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    let status = child.wait();
    let exited_ok = status.as_ref().is_ok_and(|s| s.success());
    let mut verdict = judge(name, &nonce, &stdout, exited_ok);
    if verdict.unreported {
        let how = match &status {
            Ok(s) => describe_exit(s),
            Err(e) => format!("could not be waited for ({e})"),
        };
        verdict
            .output
            .push_str(&format!("the test did not report a result: it {how}\n"));
    }
    if !verdict.passed && !stderr.trim().is_empty() {
        verdict.output.push_str(&stderr);
    }
    verdict
}

/// What a signal that ended a test usually means, for a learner: " (SIGABRT: …)".
pub fn signal_meaning(signal: i32) -> &'static str {
    match signal {
        6 => " (SIGABRT: an abort, or a stack overflow)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV: often a stack overflow)",
        15 => " (SIGTERM)",
        _ => "",
    }
}

/// Says how a process ended, in words a learner can act on.
pub fn describe_exit(status: &std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code} before the test finished");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was ended by signal {signal}{}", signal_meaning(signal));
        }
    }
    "ended without an exit code".into()
}

fn run_parent(selected: &[&GradedTest], filtered_out: usize, quiet: bool) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("cannot find this test binary: {e}");
            return ExitCode::from(101);
        }
    };
    let started = Instant::now();
    println!(
        "\nrunning {} test{}",
        selected.len(),
        if selected.len() == 1 { "" } else { "s" }
    );
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 4);
    let queue: Mutex<Vec<&'static str>> =
        Mutex::new(selected.iter().rev().map(|t| t.name).collect());
    let (tx, rx) = mpsc::channel::<(&'static str, ChildVerdict)>();
    let mut results: Vec<(&'static str, ChildVerdict)> = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..workers.min(selected.len().max(1)) {
            let tx = tx.clone();
            let (queue, exe) = (&queue, &exe);
            scope.spawn(move || {
                loop {
                    let next = queue.lock().ok().and_then(|mut q| q.pop());
                    let Some(name) = next else { break };
                    if tx.send((name, spawn_and_judge(exe, name))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (name, verdict) in rx {
            if quiet {
                print!("{}", if verdict.passed { '.' } else { 'F' });
            } else {
                println!(
                    "test {name} ... {}",
                    if verdict.passed { "ok" } else { "FAILED" }
                );
            }
            let _ = std::io::stdout().flush();
            results.push((name, verdict));
        }
    });
    if quiet {
        println!();
    }
    let failed: Vec<&(&str, ChildVerdict)> = results.iter().filter(|(_, v)| !v.passed).collect();
    if !failed.is_empty() {
        println!("\nfailures:\n");
        for (name, verdict) in &failed {
            println!("---- {name} stdout ----\n{}", verdict.output.trim_end());
            for line in &verdict.ignored_lines {
                println!("(ignored {line})");
            }
            println!();
        }
        println!("failures:");
        for (name, _) in &failed {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; {filtered_out} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        results.len() - failed.len(),
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(101)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_needs_the_nonce_and_a_clean_exit() {
        let nonce = "0123456789abcdef0123456789abcdef";
        let key = nonce_key(nonce).unwrap();
        let ok = format!("setup\n{RESULT_TAG} t passed {}\n", proof(key, "t"));
        assert!(judge("t", nonce, &ok, true).passed);
        assert!(
            !judge("t", nonce, &ok, false).passed,
            "a non-zero exit fails"
        );
        let forged = format!("{RESULT_TAG} t passed 00000000000000000000000000000000\n");
        let verdict = judge("t", nonce, &forged, true);
        assert!(!verdict.passed && verdict.unreported);
        assert!(verdict.ignored_lines[0].contains("without the grader's proof"));
        let nonce_itself = format!("{RESULT_TAG} t passed {nonce}\n");
        assert!(
            !judge("t", nonce, &nonce_itself, true).passed,
            "the key itself is not the proof"
        );
    }

    #[test]
    fn a_failure_line_beside_a_proof_fails() {
        let nonce = nonce();
        let pass = format!(
            "{RESULT_TAG} t passed {}",
            proof(nonce_key(&nonce).unwrap(), "t")
        );
        for text in [
            format!("{pass}\n{RESULT_TAG} t failed\n"),
            format!("{RESULT_TAG} t failed\n{pass}\n"),
        ] {
            let verdict = judge("t", &nonce, &text, true);
            assert!(!verdict.passed && !verdict.unreported, "{text}");
        }
    }

    #[test]
    fn duplicates_guesses_and_other_tests_lines_are_noted_and_void_the_pass() {
        let nonce = &nonce();
        let key = nonce_key(nonce).unwrap();
        let (t, u) = (proof(key, "t"), proof(key, "u"));
        let text = format!(
            "{RESULT_TAG} t passed {t}\n{RESULT_TAG} t passed {t}\n{RESULT_TAG} u passed {u}\n"
        );
        let verdict = judge("t", nonce, &text, true);
        assert!(
            !verdict.passed,
            "a pass among other result lines is not believed"
        );
        assert!(!verdict.unreported);
        // Guesses printed before the real proof void it too: otherwise a test that can
        // read memory it should not could print every candidate key's proof.
        let guesses =
            format!("{RESULT_TAG} t passed 0123456789abcdef\n{RESULT_TAG} t passed {t}\n");
        let guessed = judge("t", nonce, &guesses, true);
        assert!(!guessed.passed);
        assert!(guessed.ignored_lines[0].contains("without the grader's proof"));
        assert_eq!(
            verdict.ignored_lines.len(),
            2,
            "{:?}",
            verdict.ignored_lines
        );
        assert!(verdict.ignored_lines[0].contains("second copy"));
        assert!(verdict.ignored_lines[1].contains("something else"));
    }

    #[test]
    fn libtest_lines_printed_by_the_code_prove_nothing() {
        let verdict = judge("t", "n", "test t ... ok\ntest result: ok. 1 passed\n", true);
        assert!(!verdict.passed && verdict.unreported);
    }

    #[test]
    fn filters_select_by_substring_or_exact_name() {
        let options =
            Options::parse(&["retried".into(), "--color".into(), "never".into()]).unwrap();
        assert!(options.selects("a_retried_identity"));
        assert!(!options.selects("other"));
        let exact = Options::parse(&["--exact".into(), "a".into()]).unwrap();
        assert!(exact.selects("a") && !exact.selects("ab"));
    }

    #[test]
    fn nonces_differ() {
        assert_ne!(nonce(), nonce());
        assert_eq!(nonce().len(), 32);
        assert!(nonce_key(&nonce()).is_some());
        assert_eq!(nonce_key("not hex at all, but 32 chars lon"), None);
        let key = nonce_key(&nonce()).unwrap();
        assert_ne!(proof(key, "a"), proof(key, "b"), "a proof names its test");
    }
}
