//! The harness of every graded suite: its `main`, in place of libtest's, and the one rule
//! that decides whether a graded test passed.
//!
//! A graded suite names its tests once:
//!
//! ```text
//! graded::suite![a_retried_identity_is_recognised, exactly_once_under_two_faults];
//! ```
//!
//! Each test runs in a process of its own, so an abort, a stack overflow or an `exit` in
//! one test ends that test only. The binary speaks two ways:
//!
//! * `graded [FILTER…] [--exact] [--list]` — for a person at a terminal (`cargo run
//!   --example graded-PACKAGE`) or `cargo test`: runs the selected tests,
//!   each in a child process, and prints libtest's familiar lines and summary (exit 101
//!   when one fails).
//! * `graded --graded-child NAME` — one test, for a parent that must trust the result (the
//!   `cargo labs` grader, and the `cargo test` mode above). Before any code under test
//!   runs, the child reads one line from stdin: a 128-bit key only the parent knows
//!   ([`Key`]). When the test returns without panicking the child prints
//!   `RESULT_TAG NAME passed PROOF`, where the proof is a SipHash MAC of the test's name
//!   under the key; when it panics, `RESULT_TAG NAME failed`. An `exit`, an abort or a
//!   kill leaves no line, and a missing line is a failure. [`judge`] is the rule both
//!   parents apply.
//!
//! This crate is a dev-dependency of the labs: the graded suite links it. The learner's
//! file is a module of the suite's crate (one crate, so that an edit compiles once), so it
//! can name this crate: nothing public here holds, shows or locates the key, its masks or
//! its salt.
//!
//! What this does not stop: the code under test runs in the same process as the key. Safe
//! Rust cannot read it, but a compiler soundness bug can (rust-lang/rust#25860,
//! rust-lang/rust#57893 turn a value into an arbitrary memory read without `unsafe`). So
//! the child keeps the key where no fixed offset finds it ([`vault`]): masked, at a random
//! place of a random-sized block, behind frames whose sizes and masks the grader's build
//! salts afresh for every grading. Code tuned at home to read the key reads elsewhere in
//! the grader's build; the workbook's integrity scan notes the shapes such code takes.

mod child;
mod key;
// The build script draws the layout from the salt (src/layout.rs); the crate itself
// only tests that it agrees.
#[cfg(test)]
mod layout;
mod parent;
mod vault;
mod verdict;

pub use key::{Key, proof};
// Nothing public tells where or how the key is kept: the learner's file is a module of
// the graded suite's crate, which names this one.
pub use verdict::{Ended, Verdict, Void, judge};

/// Starts every result line a graded child prints.
pub const RESULT_TAG: &str = "<labkit-graded-result>";

/// The argument that runs one test as a child.
pub const CHILD_FLAG: &str = "--graded-child";

/// The most a graded test may print per stream before its result is void, unless the
/// grader's settings say otherwise (`grading.toml`'s `max_test_output_bytes`).
pub const OUTPUT_CAP: usize = 1 << 20;

/// One test of a graded suite.
#[derive(Clone, Copy)]
pub struct GradedTest {
    pub name: &'static str,
    pub run: fn(),
}

/// Declares a graded suite: `graded::suite![test_a, test_b, …];` defines `main`.
#[macro_export]
macro_rules! suite {
    ($($test:ident),+ $(,)?) => {
        pub fn main() -> ::std::process::ExitCode {
            $crate::main(&[
                $($crate::GradedTest { name: stringify!($test), run: $test }),+
            ])
        }
    };
}

/// The environment every test process gets, whoever starts it (`cargo labs check`,
/// `grade`, `watch` and `grade-class`, or the suite's own `main` under `cargo test`).
///
/// glibc's malloc gives freed memory back to the kernel once 128 KiB lie free at the top
/// of the heap, and the next allocation faults it in again. An exploration builds and
/// drops thousands of small worlds (SQLite databases among them), so a test spent up to
/// half its time in page faults (lab 08's stale-owner exploration: 42,000 faults, 0.24 s;
/// with this, 430 faults and 0.10 s). A test process lives a second or so: it keeps
/// what it frees. Other C libraries ignore the variable.
pub fn test_process_env() -> [(&'static str, String); 1] {
    const KEEP_FREED_MEMORY: &str = "glibc.malloc.trim_threshold=268435456";
    let tunables = match std::env::var("GLIBC_TUNABLES") {
        Ok(set) if !set.is_empty() => format!("{set}:{KEEP_FREED_MEMORY}"),
        _ => KEEP_FREED_MEMORY.to_string(),
    };
    [("GLIBC_TUNABLES", tunables)]
}

/// The `main` of a graded suite.
pub fn main(tests: &[GradedTest]) -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == CHILD_FLAG) {
        return match args.get(i + 1) {
            // Below a salted frame: how far the vault lies from `main`'s frame depends
            // on the grading too.
            Some(name) => vault::padded::<{ vault::PAD_3 }, _>(|| child::run(tests, name)),
            None => {
                eprintln!("{CHILD_FLAG} needs a test name");
                std::process::ExitCode::from(2)
            }
        };
    }
    parent::main(tests, &args)
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
