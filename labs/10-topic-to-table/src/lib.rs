//! Lab 10 — exactly-once from topic to table, under chaos and lock conflicts.
//!
//! * `world`: what your code talks to — the simulated YDB database (`sim-topic`), the
//!   producer and the consumer, the message codec, the hot-row bump.
//! * `pipeline`: **your part** — the producer's transaction, the consumer's transaction,
//!   and how the consumer settles a commit whose outcome is unknown. Grade it with
//!   `cargo labs check 10`.
//! * `scenarios`: the graded worlds (the pipeline under the deterministic scheduler and
//!   the SDK's retry loop, the explorations, the seeded chaos run). Complete.
//! * `invariants`: what the graded runs check, and the audit of the sink. Complete.
//! * `observe`: the observe phase; run it with `cargo labs run 10`. Complete.
//! * `figures`: the book's figures. Complete.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod pipeline;
pub mod scenarios;
pub mod world;
