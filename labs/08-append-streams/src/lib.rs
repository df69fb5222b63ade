//! Lab 08 — append streams with offsets, and the crash-recovery journal.
//!
//! * `observe`: what the simulated Storage Write API does with retries, offsets, a new
//!   stream and corrupted rows. Complete; run it with `cargo labs run 08`.
//! * `world`: what the writer talks to (source partition P7, `journal.db`, the service,
//!   writer processes that crash or, as a stale owner, pause).
//! * `ledger`: **your part** — the journal transitions, fenced by the owner epoch, and
//!   the writer that recovers from them. Grade it with `cargo labs check 08`.
//! * `scenarios`, `invariants`: the graded runs of your writer and what must hold after
//!   each; `figures`: the chapter's figures. Complete.

pub mod figures;
pub mod invariants;
pub mod ledger;
pub mod observe;
pub mod scenarios;
pub mod world;
