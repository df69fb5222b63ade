//! Lab 01 — transaction boundaries and the outbox.
//!
//! * `observe`: the seed's SQLite lab, check for check, plus the misconceptions and the
//!   three prediction questions. Complete; run it with `cargo labs run 01`.
//! * `harness`: the world the build phase is graded in (an outbox database and a receiver
//!   database on disk, a network that loses responses, crash points). Complete.
//! * `relay`: **your part** — the relay and the receiver. Grade it with `cargo labs check 01`.

pub mod harness;
pub mod observe;
pub mod relay;
