//! Lab 04 — keys and hotspots.
//!
//! * `observe`: five key designs fed the same orders on a simulated range-partitioned
//!   store (`sim-ranges`, modelled on Spanner's splits); the checks and questions.
//!   Complete; run it with `cargo labs run 04`.
//! * `harness`: the workload, the measurement (writes per range, the time-range query's
//!   fan-out) and the graded scenarios. Complete.
//! * `keys`: **your part** — the physical key of an order and the key ranges of the
//!   time-range query. Grade it with `cargo labs check 04`.

pub mod harness;
pub mod keys;
pub mod observe;
