//! Lab 06 — dead letters and replay.
//!
//! * `observe`: a poison message and the dead-letter policy (how many attempts, whose
//!   permissions, what becomes of a forwarded message), retention and seek (what a seek
//!   replays, what it does not undo, how soon it takes effect), and five reminder e-mails
//!   counted by delivery attempts. Complete; run it with `cargo labs run 06`.
//! * `world`: what your code talks to: the billing consumer's and the operator's view,
//!   the reminder process's view, the mail provider. Complete.
//! * `scenarios` and `invariants`: the worlds the build phase is graded in (a billing
//!   consumer whose incident left work partly done, replayed while new payments arrive;
//!   overdue invoices that must get exactly five reminder e-mails each), one per kind of
//!   fault and the faults together, and what they check. Complete.
//! * `replay`: **your part** — the replay procedure (interval, consumer version,
//!   completion criteria) that tells recovery from duplication.
//! * `reminders`: **your part** — exactly five reminders per overdue invoice, whatever
//!   the broker does. Grade both with `cargo labs check 06`.

pub mod figures;
pub mod invariants;
pub mod observe;
pub mod reminders;
pub mod replay;
pub mod scenarios;
pub mod world;
