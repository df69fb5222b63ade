//! Lab 03 — one decision, one transaction; snapshots.
//!
//! * `world`: what your code talks to: the SQLite database file (WAL mode), one
//!   connection per request, and the [`world::Session`] every statement goes through.
//! * `reserve`: **your part** — the reservation and the reconciliation report. Grade it
//!   with `cargo labs check 03`.
//! * `scenarios`, `invariants`: the graded worlds (up to three requests whose
//!   interleavings the fault core enumerates) and what they check.
//! * `observe`: a reservation and a report on two connections, interleaved by an explicit
//!   schedule, then reads at a timestamp on the simulated Spanner database; run it with
//!   `cargo labs run 03`.
//! * `figures`: the chapter's figures.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod reserve;
pub mod scenarios;
pub mod world;
