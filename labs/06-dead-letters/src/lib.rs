//! Lab 06 — dead letters and replay.
//!
//! The lab's harness (package `harness06-dead-letters`): everything but your files,
//! compiled once.
//!
//! * `observe`: a poison message and the dead-letter policy (how many attempts, whose
//!   permissions, what becomes of a forwarded message), retention and seek (what a seek
//!   replays, what it does not undo, how soon it takes effect), and five reminder e-mails
//!   counted by delivery attempts. Complete; run it with `cargo labs run 06`.
//! * `world`: what your code talks to: the billing consumer's and the operator's view,
//!   the reminder process's view, the mail provider. Complete.
//! * `scenarios` and `invariants`: the worlds the build phase is graded in (a billing
//!   consumer whose incident left work partly done, replayed while new payments arrive;
//!   overdue invoices that must get exactly five reminder e-mails each), one per kind of
//!   fault and the faults together, and what they check. Complete.
//!
//! Your parts, `replay.rs` (the replay procedure: interval, consumer version, completion
//! criteria, which tells recovery from duplication) and `reminders.rs` (exactly five
//! reminders per overdue invoice, whatever the broker does), are modules of the lab's
//! binary and of its graded suite, and use this one's `world`; the lab's binary and its
//! graded suite hand their functions to the scenarios with [`learner!`]. Grade both with
//! `cargo labs check 06`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;

pub use scenarios::Protocol;

/// Your functions in `replay.rs` and `reminders.rs`, as the scenarios take them.
#[macro_export]
// `crate::`, not `$crate::`: the learner's module is in the crate that calls the macro.
#[allow(clippy::crate_in_macro_def)]
macro_rules! learner {
    () => {
        $crate::Protocol {
            start_replay: crate::replay::start_replay,
            on_payment: crate::replay::on_payment,
            replay_complete: crate::replay::replay_complete,
            on_reminder: crate::reminders::on_reminder,
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
