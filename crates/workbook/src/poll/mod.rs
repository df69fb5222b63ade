//! The live poll of peer instruction: each learner answers a lab's items alone and sends
//! them (round 1), the class discusses, each answers again (round 2), and the teacher's
//! page shows both distributions side by side.
//!
//! The server is a crate of the teacher's edition (`crates/poll`, package
//! `boundary-poll`), which the student edition leaves out, so a learner's build never
//! compiles an HTTP server. What lives here is what both editions need: the types on the
//! wire, the learner's client (`cargo labs predict N --send`), the database's schema and
//! its reader for the grader, and `cargo labs poll serve`, which builds and starts the
//! server where the teacher's edition has it.

pub mod db;
pub mod http;
pub mod send;
pub mod wire;

pub use send::{SendOptions, send};

use crate::error::{Error, Result};
use crate::grade::build::{self as compile, Artifact, BuildEnv};
use crate::workbook::Workbook;

/// The server's package, in the teacher's edition's workspace.
pub const SERVER_PACKAGE: &str = "boundary-poll";

/// `cargo labs poll serve [OPTIONS]`: builds the teacher's poll server (once; then cargo
/// finds it current) and replaces this process with it, so that Ctrl-C, or a test's kill,
/// reaches the server itself. The options are the server's, passed on as given.
pub fn launch(wb: &Workbook, args: &[&str]) -> Result<()> {
    if args.first() != Some(&"serve") {
        return Err(Error::input(
            "usage: cargo labs poll serve [--labs N,…] [--listen ADDR:PORT] [--db FILE] [--roster FILE.csv] [--rate N] [--remote-teacher]",
        ));
    }
    if !wb.root.join("crates/poll/Cargo.toml").is_file() {
        return Err(Error::input(
            "the live poll's server comes with the teacher's edition only; a learner sends to it with `cargo labs predict N --send URL --code CODE`",
        ));
    }
    let limit = std::time::Duration::from_secs(wb.settings.limits.build_time_limit_secs);
    // Said only when the build takes a while (the first one): a built server starts at once.
    let (built_tx, built_rx) = std::sync::mpsc::channel::<()>();
    let notice = std::thread::spawn(move || {
        if built_rx
            .recv_timeout(std::time::Duration::from_secs(1))
            .is_err()
        {
            eprintln!("building the poll server (the first time takes a minute or two)…");
        }
    });
    let built = compile::build(
        &wb.root,
        &[SERVER_PACKAGE],
        Artifact::LabBinary,
        &BuildEnv::default(),
        limit,
    );
    let _ = built_tx.send(());
    let _ = notice.join();
    let built = built?;
    let exe = built.executable(SERVER_PACKAGE).map_err(build_problem)?;
    let mut command = std::process::Command::new(exe);
    command.args(args).arg("--root").arg(&wb.root);
    run_in_place(command)
}

/// Why the server has no executable, in words that say what to do.
fn build_problem(problem: compile::BuildProblem) -> Error {
    use compile::BuildProblem::*;
    match problem {
        DoesNotCompile(errors) => Error::lab(format!(
            "the poll server does not compile:\n{}",
            crate::process::tail(&crate::text::strip_ansi(&errors), 40)
        )),
        Capped(cap, why) => Error::lab(format!(
            "the poll server's build was stopped by the {cap:?} limit ({why}); `cargo build -p {SERVER_PACKAGE}` shows why"
        )),
        Cancelled => Error::Interrupted,
        Failed(why) => Error::lab(format!("the poll server could not be built: {why}")),
    }
}

#[cfg(unix)]
fn run_in_place(mut command: std::process::Command) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let error = command.exec();
    Err(Error::io("cannot start the poll server", error))
}

#[cfg(not(unix))]
fn run_in_place(mut command: std::process::Command) -> Result<()> {
    let status = command
        .status()
        .map_err(|e| Error::io("cannot start the poll server", e))?;
    match status.code() {
        Some(0) => Ok(()),
        code => Err(Error::lab(format!("the poll server ended ({code:?})"))),
    }
}
