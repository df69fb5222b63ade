//! Lab 01 — transaction boundaries and the outbox: the lab's harness, everything but your
//! file, compiled once (package `harness01-outbox`).
//!
//! * `observe`: the seed's SQLite lab, check for check, with variations. Complete; run it
//!   with `cargo labs run 01`.
//! * `world`: what the build phase talks to: the relay's steps over `outbox.db`, the
//!   network and the receiver's types. Complete.
//! * `scenarios`, `invariants`, `figures`: the graded worlds and explorations, the
//!   invariants they check and how a violation is explained, the chapter's figures.
//!
//! Your part, `relay.rs` (the relay and the receiver), is a module (`relay`) of the lab's
//! binary and of its graded suite, and uses this one's `world`; the lab's binary and its
//! graded suite hand its functions to the scenarios with [`learner!`]. Grade it with
//! `cargo labs check 01`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `relay.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            relay_outbox: crate::relay::relay_outbox,
            apply_effect: crate::relay::apply_effect,
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
