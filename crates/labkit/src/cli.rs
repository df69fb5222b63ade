//! The command line every lab binary shares:
//!
//! ```text
//! <lab>                           run the observe phase, print the checks and a summary
//! <lab> observe --json            the same, as the JSON report the CLI reads
//! <lab> replay SCENARIO TOKEN     replay one schedule and print its timeline
//! <lab> scenarios                 list the scenarios that can be replayed
//! <lab> figures DIR [--check]     write the lab's figures for the book (or check them)
//! ```

use crate::Report;
use crate::fault::{Replay, Token};
use std::process::ExitCode;

/// Replays one schedule of a named scenario.
pub type ReplayFn = fn(&Token) -> Replay;

/// What a lab binary offers.
pub struct LabBinary {
    pub observe: fn() -> Report,
    pub scenarios: &'static [(&'static str, ReplayFn)],
    /// The SVG figures the book includes: (file name, content).
    pub figures: fn() -> Vec<(&'static str, String)>,
}

/// Runs the lab binary's command line.
pub fn lab_main(lab: LabBinary) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] | ["observe"] => {
            let report = (lab.observe)();
            for (i, check) in report.checks.iter().enumerate() {
                let verdict = if check.holds {
                    "holds"
                } else {
                    "does not hold"
                };
                println!("{:>3}. {:<55} {verdict}", i + 1, check.claim);
            }
            for q in &report.questions {
                println!("  {}: ({}) {}", q.id, q.answer, q.evidence);
            }
            println!("{}", serde_json::to_string_pretty(&report.summary).unwrap());
            ExitCode::SUCCESS
        }
        ["observe", "--json"] => {
            println!("{}", serde_json::to_string(&(lab.observe)()).unwrap());
            ExitCode::SUCCESS
        }
        ["figures", dir, rest @ ..] if rest.is_empty() || rest == ["--check"] => {
            let check = rest == ["--check"];
            match crate::figure::write_or_check(std::path::Path::new(dir), &(lab.figures)(), check)
            {
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
        ["replay", scenario, token] => {
            let Some((_, replay)) = lab.scenarios.iter().find(|(name, _)| name == scenario) else {
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
            let replayed = replay(&token);
            print!("{}", replayed.timeline());
            if replayed.diverged {
                println!(
                    "note: this token asks for choices the code no longer offers (stale token)"
                );
            }
            match replayed.verdict {
                Ok(()) => {
                    println!("\nevery invariant held on schedule {token}");
                    ExitCode::SUCCESS
                }
                Err(violation) => {
                    println!("\ninvariant violated: {}", violation.invariant);
                    for line in violation.explanation {
                        println!("  {line}");
                    }
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!(
                "usage: observe [--json] | scenarios | replay SCENARIO TOKEN | figures DIR [--check]"
            );
            ExitCode::from(2)
        }
    }
}
