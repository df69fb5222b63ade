//! The graded suite, `tests/04_hotspots.rs`, with the reference `keys.rs` compiled into it as
//! a module: one crate, so that an edit compiles once before the verdict. Complete
//! code: read it, do not change it.

mod keys;
include!("../../../tests/04_hotspots.rs");
