//! Lab 05 — per-key ordering and redelivery.
//!
//! * `observe`: a bank's per-account ledger on the simulated Pub/Sub broker: one ordering
//!   key for the whole bank against one key per account (and the backlog each leaves),
//!   a redelivery that brings back later, acknowledged messages of its key, and a callback
//!   that starts asynchronous work and returns. Complete; run it with `cargo labs run 05`.
//! * `world`: what your consumer talks to: the ledger's effects, the SQLite ledger and the
//!   consumer process's steps (apply, commit, ack, nack). Complete.
//! * `scenarios` and `invariants`: the world the build phase is graded in (the broker,
//!   lost acknowledgements, a busy ledger, consumer crashes) and what it checks. Complete.
//! * `consumer`: **your part** — the consumer that applies each account's effects in
//!   sequence, exactly once. Grade it with `cargo labs check 05`.

pub mod consumer;
pub mod figures;
pub mod invariants;
pub mod observe;
pub mod scenarios;
pub mod world;
