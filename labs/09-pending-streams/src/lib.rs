//! Lab 09 — pending-stream commits.
//!
//! The lab's harness (package `harness09-pending-streams`): everything but your file,
//! compiled once.
//!
//! * `observe`: what the simulated Storage Write API does with pending streams: invisible
//!   rows, finalize, an atomic batch commit, stream errors, unanswered commits, the time
//!   limits. Complete; run it with `cargo labs run 09`.
//! * `world`: what the coordinator talks to (the batch, the service, `coordinator.db`).
//! * `scenarios`, `invariants`: the graded runs of your coordinator and what must hold
//!   after each; `figures`: the chapter's figures. Complete.
//!
//! Your part, `coordinator.rs` (drive the workers' pending streams to one atomic commit,
//! exactly once), is a module (`coordinator`) of the lab's binary and of its graded
//! suite, and uses this one's `world`; the lab's binary and its graded suite hand it to
//! the scenarios with [`learner!`]. Grade it with `cargo labs check 09`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `coordinator.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            run_coordinator: crate::coordinator::run_coordinator,
        }
    };
}

/// The lab binary's command line, running `yours` in the graded worlds and figures.
pub fn main(yours: Protocol) -> std::process::ExitCode {
    labkit::lab_main(labkit::LabBinary {
        learner: yours,
        observe: observe::run,
        scenarios: scenarios::SCENARIOS,
        figures: figures::figures,
    })
}
