//! The graded suite, `tests/01_outbox.rs`, with your `relay.rs` compiled into it as
//! a module: one crate, so that an edit compiles once before the verdict. Complete
//! code: read it, do not change it.

mod relay;
include!("../../../tests/01_outbox.rs");
