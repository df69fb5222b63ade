//! `cargo test`'s view of a graded suite: the selected tests, each in a child process
//! judged by [`crate::judge`], reported in libtest's familiar lines.

use crate::{CHILD_FLAG, Ended, GradedTest, Key, OUTPUT_CAP, Verdict, judge};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Mutex, mpsc};
use std::time::Instant;

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
    fn parse(args: &[String]) -> Options {
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
                flag if flag.starts_with('-') => {}
                filter => options.filters.push(filter.to_string()),
            }
        }
        options
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

/// Says how a process ended, in words a learner can act on.
fn describe_exit(status: &std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code} before the test finished");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!(
                "was ended by signal {signal}{}",
                crate::signal_meaning(signal)
            );
        }
    }
    "ended without an exit code".into()
}

/// Runs one test in a child of this same binary and judges it.
fn spawn_and_judge(exe: &Path, name: &str) -> Verdict {
    let key = Key::new();
    let spawned = Command::new(exe)
        .args([CHILD_FLAG, name])
        .envs(crate::test_process_env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            let mut verdict = judge(
                name,
                None,
                "",
                Ended {
                    exited_ok: false,
                    truncated: false,
                },
            );
            verdict.output = format!("cannot start the test process: {e}\n");
            return verdict;
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = writeln!(stdin, "{}", key.hex());
    }
    let stderr_pipe = child.stderr.take();
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = stderr_pipe {
            let _ = pipe.read_to_string(&mut text);
        }
        text
    });
    let mut stdout = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    let stderr = stderr_reader.join().unwrap_or_default();
    let status = child.wait();
    let ended = Ended {
        exited_ok: status.as_ref().is_ok_and(|s| s.success()),
        truncated: stdout.len() > OUTPUT_CAP || stderr.len() > OUTPUT_CAP,
    };
    let mut verdict = judge(name, Some(&key), &stdout, ended);
    if let Some(void) = verdict.void {
        let how = match (&status, void) {
            (Ok(s), crate::Void::Unreported) => format!("it {}", describe_exit(s)),
            (_, void) => format!("{void:?}"),
        };
        verdict
            .output
            .push_str(&format!("the test did not report a result: {how}\n"));
    }
    if !verdict.passed && !stderr.trim().is_empty() {
        verdict.output.push_str(&stderr);
    }
    verdict
}

/// The `cargo test` mode: runs the selected tests, a few at a time.
pub fn main(tests: &[GradedTest], args: &[String]) -> ExitCode {
    let options = Options::parse(args);
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
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("cannot find this test binary: {e}");
            return ExitCode::from(101);
        }
    };
    let started = Instant::now();
    let plural = if selected.len() == 1 { "" } else { "s" };
    println!("\nrunning {} test{plural}", selected.len());
    let results = run_all(&exe, &selected, options.quiet);
    summarise(&results, tests.len() - selected.len(), started)
}

fn run_all(exe: &Path, selected: &[&GradedTest], quiet: bool) -> Vec<(&'static str, Verdict)> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let queue: Mutex<Vec<&'static str>> =
        Mutex::new(selected.iter().rev().map(|t| t.name).collect());
    let (tx, rx) = mpsc::channel::<(&'static str, Verdict)>();
    let mut results = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..workers.min(selected.len().max(1)) {
            let (tx, queue) = (tx.clone(), &queue);
            scope.spawn(move || {
                while let Some(name) = queue.lock().ok().and_then(|mut q| q.pop()) {
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
                let word = if verdict.passed { "ok" } else { "FAILED" };
                println!("test {name} ... {word}");
            }
            let _ = std::io::stdout().flush();
            results.push((name, verdict));
        }
    });
    if quiet {
        println!();
    }
    results
}

fn summarise(results: &[(&str, Verdict)], filtered_out: usize, started: Instant) -> ExitCode {
    let failed: Vec<&(&str, Verdict)> = results.iter().filter(|(_, v)| !v.passed).collect();
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
    fn filters_select_by_substring_or_exact_name() {
        let options = Options::parse(&["retried".into(), "--color".into(), "never".into()]);
        assert!(options.selects("a_retried_identity"));
        assert!(!options.selects("other"));
        let exact = Options::parse(&["--exact".into(), "a".into()]);
        assert!(exact.selects("a") && !exact.selects("ab"));
    }
}
