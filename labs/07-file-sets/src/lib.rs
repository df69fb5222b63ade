//! Lab 07 — versioned file sets.
//!
//! * `observe`: generations and preconditions, unpinned ranged reads, a consumer that
//!   mixes two runs, a stale public cache, IAM on replacement. Complete; run it with
//!   `cargo labs run 07`.
//! * `world`: what your code talks to — a simulated Cloud Storage origin, the dataset
//!   and manifest formats, the `Gcs` handle every request goes through. Complete.
//! * `scenarios` and `invariants`: the graded worlds (a publisher that crashes after its
//!   writes, a consumer and an analyst that can run between any two requests) and what
//!   every schedule is checked against. Complete.
//! * `figures`: the chapter's figures.
//! * `publication`: **your part** — the IAM bindings, the publisher, `abandon` and the
//!   consumer. Grade it with `cargo labs check 07`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod publication;
pub mod scenarios;
pub mod world;
