//! The teacher's gates live in this crate's `tests/`: what the root `cargo test` proves of
//! the whole workbook beyond each crate's own tests (see the README). The crate has no
//! code of its own; it is a crate so that the student edition can leave every gate out
//! by leaving out one folder.
