//! Lab 99 — Template lab.
//!
//! * `observe`: the scenario the learner predicts, then runs. Complete; run it with
//!   `cargo labs run 99`.
//! * `world`: what the build phase talks to: deliveries, the receiver's ledger, and a
//!   sender that retries after a lost response. Complete.
//! * `receiver`: **your part** — the receiver that applies each message. Grade it with
//!   `cargo labs check 99`.
//! * `scenarios`, `invariants`, `figures`: the graded worlds and explorations, the
//!   invariants they check and how a violation is explained, the chapter's figures.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod receiver;
pub mod scenarios;
pub mod world;
