//! Lab 10 — exactly-once from topic to table, under chaos and lock conflicts.
//!
//! * `observe`: producers and a consumer around a transactional topic (the `sim-topic`
//!   crate, modelled on YDB topics with transactions), under seeded chaos and lock
//!   conflicts on a few hot rows: a producer that writes outside its transaction, a
//!   consumer that commits its offset when it reads, and both done in one transaction.
//!   Complete; run it with `cargo labs run 10`.
//! * `harness`: the world the build phase is graded in (the database, the deterministic
//!   scheduler, the SDK's retry loop, the validator and the audit). Complete.
//! * `pipeline`: **your part** — the producer transaction and the consumer transaction.
//!   Grade it with `cargo labs check 10`.

pub mod harness;
pub mod observe;
pub mod pipeline;
