//! The layout salt of a graded child (see `src/vault.rs` and `src/layout.rs`).
//!
//! `BOUNDARY_GRADED_SALT` is set by the grader (`cargo labs grade-class`) to a fresh random
//! number for every grading: it decides the padding of the frames between the harness and
//! the test, the masks the key and its place are kept under, and how many allocations come
//! before the vault. A learner's own build (no salt) gets salt 0, so code tuned on it to
//! find the key in memory reads somewhere else in the grader's build.

#[path = "src/layout.rs"]
mod layout;

fn main() {
    println!("cargo::rerun-if-env-changed=BOUNDARY_GRADED_SALT");
    let salt = std::env::var("BOUNDARY_GRADED_SALT")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let path = std::path::Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("salt.rs");
    std::fs::write(&path, layout::Layout::of(salt).source())
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
