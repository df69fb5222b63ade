//! Lab 07 — versioned file sets.
//!
//! The lab's harness (package `harness07-file-sets`): everything but your file, compiled
//! once.
//!
//! * `observe`: generations and preconditions, unpinned ranged reads, a consumer that
//!   mixes two runs, a stale public cache, IAM on replacement. Complete; run it with
//!   `cargo labs run 07`.
//! * `world`: what your code talks to — a simulated Cloud Storage origin, the dataset
//!   and manifest formats, the `Gcs` handle every request goes through. Complete.
//! * `scenarios` and `invariants`: the graded worlds (a publisher that crashes after its
//!   writes, a consumer and an analyst that can run between any two requests) and what
//!   every schedule is checked against. Complete.
//! * `figures`: the chapter's figures.
//!
//! Your part, `publication.rs` (the IAM bindings, the publisher, `abandon` and the
//! consumer), is a module (`publication`) of the lab's binary and of its graded suite,
//! and uses this one's `world`; the lab's binary and its graded suite hand it to the
//! scenarios with [`learner!`]. Grade it with `cargo labs check 07`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `publication.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            access: crate::publication::ACCESS,
            publish: crate::publication::publish,
            abandon: crate::publication::abandon,
            consume: crate::publication::consume,
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
