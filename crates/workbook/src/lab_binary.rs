//! A lab's own binary (its observe phase, replays, figures), built on demand, and the
//! words a build problem is told to a learner in.

use crate::error::{Error, Result};
use crate::grade::build::{self, Artifact, BuildEnv, BuildProblem};
use crate::meta::Lab;
use crate::workbook::Workbook;
use colored::Colorize;
use std::path::{Path, PathBuf};

/// ✓ or ✗.
pub fn check_mark(ok: bool) -> colored::ColoredString {
    if ok {
        "✓".green().bold()
    } else {
        "✗".red().bold()
    }
}

/// Builds `lab`'s own binary (observe, replay, figures) and returns its path.
pub fn lab_binary(wb: &Workbook, lab: &Lab) -> Result<PathBuf> {
    let limit = std::time::Duration::from_secs(wb.settings.limits.build_time_limit_secs);
    let built = build::build(
        &wb.root,
        &[&lab.meta.package],
        Artifact::LabBinary,
        &BuildEnv::default(),
        limit,
    )?;
    built
        .executable(&lab.meta.package)
        .map(Path::to_path_buf)
        .map_err(|problem| build_error(lab, problem))
}

/// A build problem, in words that name the lab and the way out.
pub fn build_error(lab: &Lab, problem: BuildProblem) -> Error {
    let n = &lab.meta.number;
    match problem {
        BuildProblem::DoesNotCompile(errors) => Error::lab(format!(
            "lab {n} does not compile. The compiler said:\n{}",
            crate::text::for_terminal(&crate::process::tail(&errors, 60))
        )),
        BuildProblem::Capped(cap, why) => Error::lab(format!(
            "lab {n}'s build was stopped by the {cap:?} limit ({why}); try again, or `cargo build -p {}` to see why",
            lab.meta.package
        )),
        BuildProblem::Cancelled => Error::Interrupted,
        BuildProblem::Failed(why) => Error::Environment(format!(
            "lab {n} could not be built, for a reason outside its code: {why}\nDoes `cargo build -p {}` work here?",
            lab.meta.package
        )),
    }
}
