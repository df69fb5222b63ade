//! Lab 02 — uncertain outcomes and retried callbacks.
//!
//! The lab's harness (package `harness02-uncertain-outcomes`): everything but your file,
//! compiled once.
//!
//! * `world`: what your code talks to: a simulated Spanner database, a payment
//!   processor outside it, and the application process's handle on both ([`world::App`]).
//! * `scenarios`, `invariants`: the graded worlds that call your code, and what they check.
//! * `observe`: a naive settlement inside a read-write transaction callback, run on every
//!   schedule with one fault; run it with `cargo labs run 02`.
//! * `figures`: the chapter's figures.
//!
//! Your part, `settlement.rs` (settle each intent exactly once, and reconcile every
//! receipt), is a module (`settlement`) of the lab's binary and of its graded suite, and
//! uses this one's `world`; the lab's binary and its graded suite hand its functions to
//! the scenarios with [`learner!`]. Grade it with `cargo labs check 02`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `settlement.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            settle: crate::settlement::settle,
            reconcile: crate::settlement::reconcile,
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
