//! Where a graded child keeps its key while the code under test runs.
//!
//! Safe code cannot read the key; code that uses a compiler soundness bug can read any
//! memory, and an exploit is tuned at home on the learner's own build: "the key is N bytes
//! above my frame". So no fixed offset leads to the key. The key lies at a random place in
//! a block of random size and random contents, drawn afresh for every run, masked by a
//! salt; the place itself is stored masked; a salted number of blocks is allocated before
//! it; and the frames between `main` and the harness and between the harness and the test
//! are padded by salted sizes (`layout.rs`). The salt (build.rs) is 0 in a learner's build
//! and fresh in every grading.

use crate::Key;
use crate::key::random_u64;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

mod salt {
    // SALT itself is only read by the tests: the crate works from what it draws.
    #![allow(dead_code)]
    include!(concat!(env!("OUT_DIR"), "/salt.rs"));
}

pub(crate) use salt::{PAD_0, PAD_1, PAD_2, PAD_3};

/// Random bytes from a fresh OS-seeded hasher.
fn noise(len: usize) -> Vec<u8> {
    let state = RandomState::new();
    let mut bytes = Vec::with_capacity(len + 8);
    let mut i = 0u64;
    while bytes.len() < len {
        bytes.extend_from_slice(&state.hash_one(i).to_le_bytes());
        i += 1;
    }
    bytes.truncate(len);
    bytes
}

/// The key, hidden. Dropping it leaves the bytes behind, but by then the test is over.
pub(crate) struct Vault {
    /// Allocated first, so the vault's own block lands somewhere else in every build.
    _spare: Vec<Vec<u8>>,
    cells: Vec<u8>,
    /// The key's place in `cells`, masked.
    at: usize,
}

impl Vault {
    pub fn seal(key: Key) -> Vault {
        let spare = (0..salt::SPARE)
            .map(|i| noise(64 + (random_u64(i as u64) % 4096) as usize))
            .collect();
        let len = 4096 + (random_u64(100) % 61_440) as usize;
        let mut cells = noise(len);
        let at = (random_u64(200) as usize) % (len - 16);
        for (i, byte) in key.0.iter().enumerate() {
            cells[at + i] = byte ^ salt::KEY_MASK[i];
        }
        Vault {
            _spare: spare,
            cells,
            at: at ^ salt::AT_MASK,
        }
    }

    pub fn open(&self) -> Key {
        let at = self.at ^ salt::AT_MASK;
        let mut key = [0u8; 16];
        for (i, byte) in key.iter_mut().enumerate() {
            *byte = self.cells[at + i] ^ salt::KEY_MASK[i];
        }
        Key(key)
    }
}

/// Runs `f` below a frame of `N` bytes, so that the distance between the harness's
/// frames and the test's depends on the salt.
#[inline(never)]
pub(crate) fn padded<const N: usize, R>(f: impl FnOnce() -> R) -> R {
    let pad = [0u8; N];
    std::hint::black_box(&pad);
    let result = f();
    std::hint::black_box(&pad);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_key_opens_to_itself_and_lies_elsewhere_every_time() {
        let key = Key::new();
        let (a, b) = (Vault::seal(key), Vault::seal(key));
        assert_eq!(a.open(), key);
        assert_eq!(b.open(), key);
        assert!(
            a.cells.len() != b.cells.len() || a.at != b.at,
            "two runs put the key at the same place of the same-sized block"
        );
        let plain = a.cells.windows(16).any(|w| w == key.0);
        assert!(!plain || salt::KEY_MASK == [0; 16], "the key lies unmasked");
    }

    #[test]
    fn the_built_constants_are_the_salts_layout() {
        let built = crate::layout::Layout::of(salt::SALT);
        assert_eq!(built.pads, [PAD_0, PAD_1, PAD_2, PAD_3]);
        assert_eq!(built.key_mask, salt::KEY_MASK);
        assert_eq!(built.at_mask, salt::AT_MASK);
        assert_eq!(built.spare, salt::SPARE);
    }

    /// What an exploit calibrated on a learner's own build (salt 0) knows, and what two
    /// gradings (two fresh salts) change of it: the distance from the test's frame to the
    /// frame that holds the vault, the distance from `main`'s frame to it, and the masks
    /// that turn the vault's bytes into the key and its place.
    #[test]
    fn two_gradings_lay_the_key_out_apart_from_a_learners_build() {
        use crate::layout::Layout;
        let below = |l: &Layout| l.pads[..3].iter().sum::<usize>();
        let home = Layout::of(0);
        for salt in [0x9e37_79b9_7f4a_7c15_u64, 0x2545_f491_4f6c_dd1d] {
            let graded = Layout::of(salt);
            assert_ne!(
                below(&home),
                below(&graded),
                "salt {salt:#x}: the test's frame"
            );
            assert_ne!(home.pads[3], graded.pads[3], "salt {salt:#x}: main's frame");
            assert_ne!(home.key_mask, graded.key_mask, "salt {salt:#x}");
            assert_ne!(home.at_mask, graded.at_mask, "salt {salt:#x}");
        }
        // Over many salts, the frame distances spread wide and the masks never repeat.
        let many: Vec<Layout> = (1..=1000u64)
            .map(|i| Layout::of(i.wrapping_mul(0x9e37_79b9)))
            .collect();
        let distances: std::collections::BTreeSet<usize> = many.iter().map(below).collect();
        assert!(
            distances.len() > 300,
            "{} distinct distances",
            distances.len()
        );
        let masks: std::collections::BTreeSet<[u8; 16]> = many.iter().map(|l| l.key_mask).collect();
        assert_eq!(masks.len(), many.len());
    }
}
