//! The graded suite, `tests/02_uncertain_outcomes.rs`, with the reference `settlement.rs` compiled into it as
//! a module: one crate, so that an edit compiles once before the verdict. Complete
//! code: read it, do not change it.

mod settlement;
include!("../../../tests/02_uncertain_outcomes.rs");
