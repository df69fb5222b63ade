//! Lab 05 — per-key ordering and redelivery.
//!
//! * `observe`: a bank's per-account ledger on the simulated Pub/Sub broker: one ordering
//!   key for the whole bank against one key per account (and the backlog each leaves),
//!   redeliveries, a callback that starts asynchronous work and returns, exactly-once
//!   delivery, a failed publish, an effect that arrives twice. Complete; run it with
//!   `cargo labs run 05`.
//! * `world`: what your consumer talks to: the ledger's effects, the SQLite ledger and the
//!   consumer process's steps (apply, commit, ack, nack). Complete.
//! * `scenarios` and `invariants`: the worlds the build phase is graded in, one per kind
//!   of fault (crashes, lost acks, a busy ledger, a stalled consumer, an effect published
//!   twice) and all of them together, and what they check. Complete.
//! * `consumer`: **your part** — the consumer that applies each account's effects in
//!   sequence, exactly once. Grade it with `cargo labs check 05`.

pub mod consumer;
pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;
