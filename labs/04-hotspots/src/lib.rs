//! Lab 04 — keys and hotspots.
//!
//! The lab's harness (package `harness04-hotspots`): everything but your file, compiled
//! once.
//!
//! * `observe`: key designs fed the same orders on a simulated range-partitioned store
//!   (`sim-ranges`, modelled on Spanner's splits), with variations. Complete; run it with
//!   `cargo labs run 04`.
//! * `world`: what your key design talks to: the order, a stable hash, the key types.
//! * `scenarios`, `invariants`, `figures`: the workload and the measurement, what the
//!   graded suite demands of them and how a violation is explained, the chapter's figures.
//!
//! Your part, `keys.rs` (the physical key of an order and the key ranges of the time-
//! range query), is a module (`keys`) of the lab's binary and of its graded suite, and
//! uses this one's `world`; the lab's binary and its graded suite hand its functions to
//! the scenarios with [`learner!`]. Grade it with `cargo labs check 04`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Design;

/// Your functions in `keys.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Design {
            physical_key: crate::keys::physical_key,
            time_window: crate::keys::time_window,
        }
    };
}

/// The lab binary's command line, running `yours` in the graded worlds and figures.
pub fn main(yours: Design) -> std::process::ExitCode {
    labkit::lab_main(labkit::LabBinary {
        learner: yours,
        observe: observe::run,
        scenarios: scenarios::SCENARIOS,
        figures: figures::figures,
    })
}
