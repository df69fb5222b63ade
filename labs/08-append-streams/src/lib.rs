//! Lab 08 — append streams with offsets, and the crash-recovery journal.
//!
//! * `observe`: what the simulated Storage Write API does with retries, offsets, a new
//!   stream and corrupted rows. Complete; run it with `cargo labs run 08`.
//! * `harness`: the world the build phase is graded in (source partition P7, the journal
//!   database on disk, the simulated service, crash points, a stale owner). Complete.
//! * `ledger`: **your part** — the journal transitions, fenced by the owner epoch, and the
//!   writer that recovers from them. Grade it with `cargo labs check 08`.

pub mod harness;
pub mod ledger;
pub mod observe;
