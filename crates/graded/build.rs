//! The layout salt of a graded child (see `src/vault.rs`).
//!
//! `BOUNDARY_GRADED_SALT` is set by the grader (`cargo labs grade-class`) to a fresh random
//! number for every grading: it decides the padding of the frames between the harness and
//! the test, the masks the key and its place are kept under, and how many allocations come
//! before the vault. A learner's own build (no salt) gets salt 0, so code tuned on it to
//! find the key in memory reads somewhere else in the grader's build.

use std::fmt::Write as _;

/// SplitMix64: a fixed, well-spread sequence from one seed.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn main() {
    println!("cargo::rerun-if-env-changed=BOUNDARY_GRADED_SALT");
    let salt = std::env::var("BOUNDARY_GRADED_SALT")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let mut state = salt;
    let mut out = String::new();
    let pads: Vec<u64> = (0..3)
        .map(|_| 64 + (next(&mut state) % 4000) / 16 * 16)
        .collect();
    let _ = writeln!(out, "/// The salt this harness was built with.");
    let _ = writeln!(out, "pub const SALT: u64 = {salt};");
    for (i, pad) in pads.iter().enumerate() {
        let _ = writeln!(out, "pub const PAD_{i}: usize = {pad};");
    }
    let mask: Vec<String> = (0..16)
        .map(|_| format!("{:#04x}", next(&mut state) as u8))
        .collect();
    let _ = writeln!(out, "pub const KEY_MASK: [u8; 16] = [{}];", mask.join(", "));
    let _ = writeln!(
        out,
        "pub const AT_MASK: usize = {:#x};",
        next(&mut state) as u32
    );
    let _ = writeln!(
        out,
        "pub const SPARE: usize = {};",
        1 + next(&mut state) % 24
    );
    let path = std::path::Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("salt.rs");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
