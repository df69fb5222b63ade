//! Lab 03 — one decision, one transaction; snapshots.
//!
//! * `observe`: a reservation and a reconciliation report on a real SQLite file database
//!   in WAL mode, with two connections standing for two concurrent requests, interleaved
//!   by an explicit schedule; then reads at a timestamp (strong, stale, read-only
//!   transaction, past and future timestamps) on the simulated Spanner database.
//!   Complete; run it with `cargo labs run 03`.
//! * `harness`: the graded world: the same database, up to three requests whose
//!   interleavings the fault core enumerates, the invariants. Complete.
//! * `reserve`: **your part** — the reservation and the reconciliation report. Grade it
//!   with `cargo labs check 03`.

pub mod harness;
pub mod observe;
pub mod reserve;
