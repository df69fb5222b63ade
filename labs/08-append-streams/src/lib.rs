//! Lab 08 — append streams with offsets, and the crash-recovery journal.
//!
//! The lab's harness (package `harness08-append-streams`): everything but your file,
//! compiled once.
//!
//! * `observe`: what the simulated Storage Write API does with retries, offsets, a new
//!   stream and corrupted rows. Complete; run it with `cargo labs run 08`.
//! * `world`: what the writer talks to (source partition P7, `journal.db`, the service,
//!   writer processes that crash or, as a stale owner, pause).
//! * `scenarios`, `invariants`: the graded runs of your writer and what must hold after
//!   each; `figures`: the chapter's figures. Complete.
//!
//! Your part, `ledger.rs` (the journal transitions, fenced by the owner epoch, and the
//! writer that recovers from them), is a module (`ledger`) of the lab's binary and of its
//! graded suite, and uses this one's `world`; the lab's binary and its graded suite hand
//! it to the scenarios with [`learner!`]. Grade it with `cargo labs check 08`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `ledger.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            run_writer: crate::ledger::run_writer,
            acquire_lease: crate::ledger::acquire_lease,
            transition: crate::ledger::transition,
            advance_checkpoint: crate::ledger::advance_checkpoint,
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
