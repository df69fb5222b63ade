//! Lab 05 — per-key ordering and redelivery.
//!
//! The lab's harness (package `harness05-ordering`): everything but your file, compiled
//! once.
//!
//! * `observe`: a bank's per-account ledger on the simulated Pub/Sub broker: one ordering
//!   key for the whole bank against one key per account (and the backlog each leaves),
//!   redeliveries, a callback that starts asynchronous work and returns, exactly-once
//!   delivery, a failed publish, an effect that arrives twice. Complete; run it with
//!   `cargo labs run 05`.
//! * `world`: what your consumer talks to: the ledger's effects, the SQLite ledger and the
//!   consumer process's steps (apply, commit, ack, nack). Complete.
//! * `scenarios` and `invariants`: the worlds the build phase is graded in, one per kind
//!   of fault (crashes, lost acks, a busy ledger, a stalled consumer, an effect published
//!   twice) and all of them together, and what they check. Complete.
//!
//! Your part, `consumer.rs` (the consumer that applies each account's effects in
//! sequence, exactly once), is a module (`consumer`) of the lab's binary and of its
//! graded suite, and uses this one's `world`; the lab's binary and its graded suite hand
//! it to the scenarios with [`learner!`]. Grade it with `cargo labs check 05`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `consumer.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            handle: crate::consumer::handle,
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
