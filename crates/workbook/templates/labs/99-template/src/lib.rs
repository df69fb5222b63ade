//! Lab 99 — Template lab.
//!
//! The lab's harness (package `harness99-template`): everything but your file, compiled
//! once.
//!
//! * `observe`: the scenario the learner predicts, then runs. Complete; run it with
//!   `cargo labs run 99`.
//! * `world`: what the build phase talks to: deliveries, the receiver's ledger, and a
//!   sender that retries after a lost response. Complete.
//! * `scenarios`, `invariants`, `figures`: the graded worlds and explorations, the
//!   invariants they check and how a violation is explained, the chapter's figures.
//!
//! Your part, `receiver.rs` (the receiver that applies each message), is a module
//! (`receiver`) of the lab's binary and of its graded suite, and uses this one's `world`;
//! the lab's binary and its graded suite hand it to the scenarios with [`learner!`].
//! Grade it with `cargo labs check 99`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `receiver.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            receive: crate::receiver::receive,
        }
    };
}

/// The lab binary's command line, running `yours` in the graded worlds.
pub fn main(yours: Protocol) -> std::process::ExitCode {
    labkit::lab_main(labkit::LabBinary {
        learner: yours,
        observe: observe::run,
        scenarios: scenarios::SCENARIOS,
        figures: |_| figures::figures(),
    })
}
