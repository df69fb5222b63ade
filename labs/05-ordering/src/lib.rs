//! Lab 05 — per-key ordering and redelivery.
//!
//! * `observe`: a bank's per-account ledger on the simulated Pub/Sub broker: one ordering
//!   key for the whole bank against one key per account (and the backlog each leaves),
//!   a redelivery that brings back later, acknowledged messages of its key, and a callback
//!   that starts asynchronous work and returns. Complete; run it with `cargo labs run 05`.
//! * `harness`: the world the build phase is graded in (the broker, an SQLite ledger,
//!   lost acknowledgements, a busy ledger, consumer crashes). Complete.
//! * `consumer`: **your part** — the consumer that applies each account's effects in
//!   sequence, exactly once. Grade it with `cargo labs check 05`.

pub mod consumer;
pub mod harness;
pub mod observe;
