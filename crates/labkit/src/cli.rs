//! The command line every lab binary shares:
//!
//! ```text
//! <lab>                           run the observe phase, print its answers and a summary
//! <lab> observe --json            the same, as the JSON report the CLI reads
//! <lab> replay SCENARIO TOKEN     replay one schedule and print its timeline (exit 1 when
//!                                 it breaks an invariant, 3 when the token does not fit)
//! <lab> scenarios                 list the scenarios that can be replayed
//! <lab> figures DIR [--check]     write the lab's figures for the book (or check them)
//! ```

use crate::Report;
use crate::fault::{Fit, Replay, Token, output_width, wrap_indented};
use std::process::ExitCode;

/// The exit code of `replay` for a token the code no longer fits (the `cargo labs` CLI
/// turns it into its own message and exit code 1). Usage errors exit with 2.
pub const STALE_TOKEN_EXIT: u8 = 3;

/// The one paragraph `replay` prints on stderr for a token that does not fit.
fn stale_token_message(scenario: &str, token: &Token, reason: &str) -> String {
    format!(
        "stale token: {token} does not fit scenario `{scenario}` of this code: {reason}. A token names one schedule of the code it was made on; after a change to the scenario, or to your code, the same choices lead to another schedule, so it is not replayed. Run `cargo labs check` again and replay the token on its `replay:` line."
    )
}

/// Replays one schedule of a named scenario, running the learner's code `L`.
pub type ReplayFn<L> = fn(L, &Token) -> Replay;

/// What a lab binary offers. `L` is the learner's code as the lab's harness takes it (a
/// struct of the learner's functions): the binary hands it to every replay and figure.
pub struct LabBinary<L: Copy + 'static> {
    /// The learner's code, handed to every replay and figure.
    pub learner: L,
    /// Runs the lab's observe phase and returns its report.
    pub observe: fn() -> Report,
    /// The scenarios `replay` can run, each under the name the failure reports print.
    pub scenarios: &'static [(&'static str, ReplayFn<L>)],
    /// The SVG figures the book includes: (file name, content).
    pub figures: fn(L) -> Vec<(&'static str, String)>,
}

/// Runs the lab binary's command line.
pub fn lab_main<L: Copy + 'static>(lab: LabBinary<L>) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] | ["observe"] => {
            print_observation(&(lab.observe)());
            ExitCode::SUCCESS
        }
        ["observe", "--json"] => {
            println!("{}", serde_json::to_string(&(lab.observe)()).unwrap());
            ExitCode::SUCCESS
        }
        ["figures", dir, rest @ ..] if rest.is_empty() || rest == ["--check"] => {
            let check = rest == ["--check"];
            match crate::figure::write_or_check(
                std::path::Path::new(dir),
                &(lab.figures)(lab.learner),
                check,
            ) {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("{message}");
                    ExitCode::FAILURE
                }
            }
        }
        ["scenarios"] => {
            for (name, _) in lab.scenarios {
                println!("{name}");
            }
            ExitCode::SUCCESS
        }
        ["replay", scenario, token] => replay(&lab, scenario, token),
        _ => {
            eprintln!(
                "usage: observe [--json] | scenarios | replay SCENARIO TOKEN | figures DIR [--check]"
            );
            ExitCode::from(2)
        }
    }
}

/// The observe phase's answers, numbered as `cargo labs predict` numbers the items (the
/// questions about the run first, then the multiple-choice ones), and its summary.
fn print_observation(report: &Report) {
    for (i, check) in report.checks.iter().enumerate() {
        let answer = if check.yes { "yes" } else { "no" };
        println!("q{:02} {answer:<3} {}", i + 1, check.ask);
    }
    let asked = report.checks.len();
    for (i, q) in report.questions.iter().enumerate() {
        println!("q{:02} ({}) {}", asked + i + 1, q.answer, q.prompt);
        println!("        {}", q.evidence);
    }
    println!("{}", serde_json::to_string_pretty(&report.summary).unwrap());
}

/// `replay SCENARIO TOKEN`: the schedule's timeline and verdict.
fn replay<L: Copy + 'static>(lab: &LabBinary<L>, scenario: &str, token: &str) -> ExitCode {
    let Some((_, replay)) = lab.scenarios.iter().find(|(name, _)| *name == scenario) else {
        let names: Vec<&str> = lab.scenarios.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "no scenario `{scenario}`; this lab has: {}",
            names.join(", ")
        );
        return ExitCode::from(2);
    };
    let token = match Token::parse(token) {
        Ok(token) => token,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let replayed = replay(lab.learner, &token);
    if let Fit::Stale(reason) = &replayed.fit {
        eprintln!("{}", stale_token_message(scenario, &token, reason));
        return ExitCode::from(STALE_TOKEN_EXIT);
    }
    if replayed.fit == Fit::Unverified {
        let note = format!(
            "{token} names no choice sites (tokens printed before `v2:` did not), so nothing proves this is the schedule it was made on; in this code it is {}",
            replayed.ran
        );
        print!(
            "{}",
            wrap_indented(&note, output_width(), "note: ", "      ")
        );
    }
    print!("{}", replayed.timeline_width(output_width()));
    match replayed.verdict {
        Ok(()) => {
            println!("\nevery invariant held on schedule {token}");
            ExitCode::SUCCESS
        }
        Err(violation) => {
            println!("\ninvariant violated: {}", violation.invariant);
            for line in violation.explanation {
                print!("{}", wrap_indented(&line, output_width(), "  ", "    "));
            }
            ExitCode::FAILURE
        }
    }
}
