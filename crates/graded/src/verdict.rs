//! The one rule that decides whether a graded test passed. `cargo test` (this crate's
//! parent mode) and every `cargo labs` command that grades (through the workbook's suite
//! runner) apply it, so they never disagree.

use crate::{Key, RESULT_TAG, proof};

/// How a test's process ended, as far as the rule cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ended {
    /// The process exited with status 0.
    pub exited_ok: bool,
    /// The process printed more than the reader keeps: what was dropped was never read.
    pub truncated: bool,
}

/// Why a test that printed its own pass line still did not pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Void {
    /// It printed no result line of its own at all (an `exit`, an abort, a kill).
    Unreported,
    /// It reported, then its process did not end cleanly.
    EndedBadly,
    /// It printed result lines that were not its own proof: guesses, copies, another
    /// test's lines. Believing the proof among them would let a test print guesses until
    /// one is right.
    Imitations,
    /// It printed more than the reader keeps; what was dropped could hold anything.
    Truncated,
}

/// What the rule concluded about one test run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub passed: bool,
    /// What the child printed, without result lines (a failure's message, a timeline).
    pub output: String,
    /// Result lines that were not this test's own, each described in words.
    pub ignored_lines: Vec<String>,
    /// Why the test did not pass although it did not report a failure: `None` when it
    /// passed or reported its own failure.
    pub void: Option<Void>,
}

fn shorten(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_string();
    }
    let cut: String = line.chars().take(max).collect();
    format!("{cut}…")
}

/// Judges what the child of test `name`, run with `key` (`None`: no key was sent, so
/// nothing can pass), printed on stdout, and how it ended. A pass needs the proof line,
/// exactly once, no failure line, no other result line, a clean exit and output within
/// the cap.
pub fn judge(name: &str, key: Option<&Key>, stdout: &str, ended: Ended) -> Verdict {
    let pass_line = key.map(|key| format!("{RESULT_TAG} {name} passed {}", proof(key, name)));
    let own_failure = format!("{RESULT_TAG} {name} failed");
    let (mut output, mut ignored_lines) = (String::new(), Vec::new());
    let (mut proven, mut failed) = (false, false);
    for line in stdout.lines() {
        if !line.starts_with(RESULT_TAG) {
            output.push_str(line);
            output.push('\n');
        } else if Some(line) == pass_line.as_deref() && !proven {
            proven = true;
        } else if line == own_failure && !failed {
            failed = true;
        } else {
            let what = if Some(line) == pass_line.as_deref() {
                "a second copy of the pass line"
            } else if line.starts_with(&format!("{RESULT_TAG} {name} passed")) {
                "a pass line without the grader's proof"
            } else {
                "a result line for something else"
            };
            ignored_lines.push(format!("{what}: `{}`", shorten(line, 80)));
        }
    }
    let void = if failed {
        None
    } else if !proven {
        Some(Void::Unreported)
    } else if !ended.exited_ok {
        Some(Void::EndedBadly)
    } else if !ignored_lines.is_empty() {
        Some(Void::Imitations)
    } else if ended.truncated {
        Some(Void::Truncated)
    } else {
        None
    };
    Verdict {
        passed: proven && !failed && void.is_none(),
        output,
        ignored_lines,
        void,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: Ended = Ended {
        exited_ok: true,
        truncated: false,
    };

    fn pass(key: &Key, name: &str) -> String {
        format!("{RESULT_TAG} {name} passed {}", proof(key, name))
    }

    #[test]
    fn a_pass_needs_the_key_a_clean_exit_and_output_within_the_cap() {
        let key = Key::new();
        let ok = format!("setup\n{}\n", pass(&key, "t"));
        assert!(judge("t", Some(&key), &ok, CLEAN).passed);
        let crashed = Ended {
            exited_ok: false,
            ..CLEAN
        };
        assert_eq!(
            judge("t", Some(&key), &ok, crashed).void,
            Some(Void::EndedBadly)
        );
        let flooded = Ended {
            truncated: true,
            ..CLEAN
        };
        assert_eq!(
            judge("t", Some(&key), &ok, flooded).void,
            Some(Void::Truncated)
        );
        assert_eq!(judge("t", None, &ok, CLEAN).void, Some(Void::Unreported));
        let forged = format!("{RESULT_TAG} t passed 0000000000000000\n");
        let verdict = judge("t", Some(&key), &forged, CLEAN);
        assert_eq!(verdict.void, Some(Void::Unreported));
        assert!(verdict.ignored_lines[0].contains("without the grader's proof"));
        let the_key_itself = format!("{RESULT_TAG} t passed {}\n", key.hex());
        assert!(!judge("t", Some(&key), &the_key_itself, CLEAN).passed);
    }

    #[test]
    fn a_failure_line_beside_a_proof_fails_in_either_order() {
        let key = Key::new();
        for text in [
            format!("{}\n{RESULT_TAG} t failed\n", pass(&key, "t")),
            format!("{RESULT_TAG} t failed\n{}\n", pass(&key, "t")),
        ] {
            let verdict = judge("t", Some(&key), &text, CLEAN);
            assert!(!verdict.passed && verdict.void.is_none(), "{text}");
        }
    }

    #[test]
    fn copies_guesses_and_other_tests_lines_void_the_pass() {
        let key = Key::new();
        let text = format!(
            "{}\n{}\n{}\n",
            pass(&key, "t"),
            pass(&key, "t"),
            pass(&key, "u")
        );
        let verdict = judge("t", Some(&key), &text, CLEAN);
        assert_eq!(verdict.void, Some(Void::Imitations));
        assert_eq!(
            verdict.ignored_lines.len(),
            2,
            "{:?}",
            verdict.ignored_lines
        );
        assert!(verdict.ignored_lines[0].contains("second copy"));
        assert!(verdict.ignored_lines[1].contains("something else"));
        let guesses = format!(
            "{RESULT_TAG} t passed 0123456789abcdef\n{}\n",
            pass(&key, "t")
        );
        assert_eq!(
            judge("t", Some(&key), &guesses, CLEAN).void,
            Some(Void::Imitations)
        );
    }

    #[test]
    fn libtest_lines_printed_by_the_code_prove_nothing() {
        let verdict = judge(
            "t",
            Some(&Key::new()),
            "test t ... ok\ntest result: ok\n",
            CLEAN,
        );
        assert!(!verdict.passed);
        assert_eq!(verdict.void, Some(Void::Unreported));
    }
}
