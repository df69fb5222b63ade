//! Lab 10 — exactly-once from topic to table, under chaos and lock conflicts.
//!
//! The lab's harness (package `harness10-topic-to-table`): everything but your file,
//! compiled once.
//!
//! * `world`: what your code talks to — the simulated YDB database (`sim-topic`), the
//!   producer and the consumer, the message codec, the hot-row bump.
//! * `scenarios`: the graded worlds (the pipeline under the deterministic scheduler and
//!   the SDK's retry loop, the explorations, the seeded chaos run). Complete.
//! * `invariants`: what the graded runs check, and the audit of the sink. Complete.
//! * `observe`: the observe phase; run it with `cargo labs run 10`. Complete.
//! * `figures`: the book's figures. Complete.
//!
//! Your part, `pipeline.rs` (the producer's transaction, the consumer's transaction, and
//! how the consumer settles a commit whose outcome is unknown), is a module (`pipeline`)
//! of the lab's binary and of its graded suite, and uses this one's `world`; the lab's
//! binary and its graded suite hand it to the scenarios with [`learner!`]. Grade it with
//! `cargo labs check 10`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `pipeline.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            produce: crate::pipeline::produce,
            produced: crate::pipeline::produced,
            consume: crate::pipeline::consume,
            applied: crate::pipeline::commit_was_applied,
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
