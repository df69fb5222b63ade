//! Lab 01 — transaction boundaries and the outbox.
//!
//! * `observe`: the seed's SQLite lab, check for check, with variations. Complete; run it
//!   with `cargo labs run 01`.
//! * `world`: what the build phase talks to: the relay's steps over `outbox.db`, the
//!   network and the receiver's types. Complete.
//! * `relay`: **your part** — the relay and the receiver. Grade it with `cargo labs check 01`.
//! * `scenarios`, `invariants`, `figures`: the graded worlds and explorations, the
//!   invariants they check and how a violation is explained, the chapter's figures.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod relay;
pub mod scenarios;
pub mod world;
