//! Lab 03 — one decision, one transaction; snapshots.
//!
//! The lab's harness (package `harness03-snapshots`): everything but your file, compiled
//! once.
//!
//! * `world`: what your code talks to: the SQLite database file (WAL mode), one
//!   connection per request, and the [`world::Session`] every statement goes through.
//! * `scenarios`, `invariants`: the graded worlds (up to three requests whose
//!   interleavings the fault core enumerates) and what they check.
//! * `observe`: a reservation and a report on two connections, interleaved by an explicit
//!   schedule, then reads at a timestamp on the simulated Spanner database; run it with
//!   `cargo labs run 03`.
//! * `figures`: the chapter's figures.
//!
//! Your part, `reserve.rs` (the reservation and the reconciliation report), is a crate of
//! its own, `reserve`, that uses this one's `world`; the lab's binary and its graded suite
//! hand its functions to the scenarios with [`learner!`]. Grade it with
//! `cargo labs check 03`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `reserve.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            reserve: crate::reserve::reserve,
            reconcile: crate::reserve::reconcile,
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
