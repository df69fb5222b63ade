//! The graded suite, `tests/99_template.rs`, with your `receiver.rs` compiled into it as
//! a module: one crate, so that an edit compiles once before the verdict. Complete
//! code: read it, do not change it.

mod receiver;
include!("../../../tests/99_template.rs");
