//! Lab 04 — keys and hotspots.
//!
//! * `observe`: key designs fed the same orders on a simulated range-partitioned store
//!   (`sim-ranges`, modelled on Spanner's splits), with variations. Complete; run it with
//!   `cargo labs run 04`.
//! * `world`: what your key design talks to: the order, a stable hash, the key types.
//! * `keys`: **your part** — the physical key of an order and the key ranges of the
//!   time-range query. Grade it with `cargo labs check 04`.
//! * `scenarios`, `invariants`, `figures`: the workload and the measurement, what the
//!   graded suite demands of them and how a violation is explained, the chapter's figures.

pub mod figures;
pub mod invariants;
pub mod keys;
pub mod observe;
pub mod scenarios;
pub mod world;
