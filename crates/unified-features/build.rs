//! Nothing to build: the build-dependencies in Cargo.toml exist for their features.
//!
//! Rerun only when this file changes: without the line below, cargo would rerun it when
//! any file of the package looks newer, and the catalogue's scratch workspace, which
//! reaches this crate through a link, lists the package's files otherwise than the
//! workbook does; each build would then undo the other's, and everything above this crate
//! would be compiled again.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
}
