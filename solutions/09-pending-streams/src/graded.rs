//! The graded suite, `tests/09_pending_streams.rs`, with the reference `coordinator.rs` compiled into it as
//! a module: one crate, so that an edit compiles once before the verdict. Complete
//! code: read it, do not change it.

mod coordinator;
include!("../../../tests/09_pending_streams.rs");
