//! The graded suite, `tests/06_dead_letters.rs`, with your `replay.rs` and `reminders.rs` compiled into it as
//! modules: one crate, so that an edit compiles once before the verdict. Complete
//! code: read it, do not change it.

mod reminders;
mod replay;
include!("../../../tests/06_dead_letters.rs");
