//! `cargo labs replay N SCENARIO TOKEN`: one schedule's timeline, against the learner's code.

use super::{Command, Section};
use crate::error::{Error, Result};
use crate::lab_binary::lab_binary;
use crate::meta::Lab;
use crate::process::{self, Ending, Job};
use crate::workbook::Workbook;
use std::process::Command as Process;

pub const COMMAND: Command = Command {
    name: "replay",
    section: Section::Learner,
    usage: "cargo labs replay N SCENARIO TOKEN",
    about: "replay one schedule against your code and print its timeline",
    run: |wb, args| {
        let usage = args.usage();
        match args.positional()?.as_slice() {
            [lab, scenario, token] => replay(wb, wb.lab(lab)?, scenario, token),
            _ => Err(usage),
        }
    },
};

/// The exit code with which a lab binary refuses a token that does not fit its code.
pub const STALE_TOKEN_EXIT: i32 = labkit::STALE_TOKEN_EXIT as i32;

/// `cargo labs replay N SCENARIO TOKEN`: a schedule's timeline, from the learner's code.
pub fn replay(wb: &Workbook, lab: &Lab, scenario: &str, token: &str) -> Result<()> {
    let exe = lab_binary(wb, lab)?;
    let mut command = Process::new(exe);
    command.args(["replay", scenario, token]);
    command.envs(crate::grade::run::terminal_columns());
    let job = Job::new(command, wb.settings.time_limit(lab.meta.time_limit_secs));
    let finished = process::run(job, &wb.root).map_err(|e| Error::io("cannot start the lab", e))?;
    print!("{}", finished.stdout);
    match finished.ending {
        Ending::Exited(0) => Ok(()),
        // The lab binary's usage errors: an unknown scenario or a malformed token.
        Ending::Exited(2) => Err(Error::input(finished.stderr.trim().to_string())),
        Ending::Exited(STALE_TOKEN_EXIT) => Err(Error::lab(finished.stderr.trim().to_string())),
        Ending::Exited(1) => Err(Error::lab(
            "the replayed schedule violates an invariant (see above)",
        )),
        ending => Err(Error::lab(format!(
            "the replay {}:\n{}",
            ending.describe(),
            process::tail(&finished.stderr, 20)
        ))),
    }
}
