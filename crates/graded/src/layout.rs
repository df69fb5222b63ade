//! The layout a salt gives a graded child (see `vault.rs`): the padding of the frames
//! between `main` and the vault and between the vault and the test, the masks the key and its place are kept
//! under, and how many blocks are allocated before the vault. The build script writes
//! these constants for the salt of the build; the crate's tests compare salts.
//!
//! This file is shared by `build.rs` (`#[path]`) and the crate, so it uses std only.

/// What one salt decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub salt: u64,
    /// The sizes of the padded frames, in bytes: three between the frame that holds the
    /// vault and the test's, one between `main`'s and the vault's.
    pub pads: [usize; 4],
    pub key_mask: [u8; 16],
    pub at_mask: usize,
    /// How many blocks are allocated before the vault.
    pub spare: usize,
}

/// SplitMix64: a fixed, well-spread sequence from one seed.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Layout {
    pub fn of(salt: u64) -> Layout {
        let mut state = salt;
        let mut pads = [0usize; 4];
        for pad in &mut pads[..3] {
            *pad = 64 + (next(&mut state) % 4000) as usize / 16 * 16;
        }
        let mut key_mask = [0u8; 16];
        for byte in &mut key_mask {
            *byte = next(&mut state) as u8;
        }
        let at_mask = next(&mut state) as u32 as usize;
        let spare = 1 + (next(&mut state) % 24) as usize;
        // Drawn last, so the first salts' other constants stay what they were.
        pads[3] = 64 + (next(&mut state) % 4000) as usize / 16 * 16;
        Layout {
            salt,
            pads,
            key_mask,
            at_mask,
            spare,
        }
    }

    /// The constants, as Rust source.
    // The build script writes it; the crate's tests only draw layouts.
    #[allow(dead_code)]
    pub fn source(&self) -> String {
        let mask: Vec<String> = self.key_mask.iter().map(|b| format!("{b:#04x}")).collect();
        format!(
            "/// The salt this harness was built with.\npub const SALT: u64 = {};\n\
             pub const PAD_0: usize = {};\npub const PAD_1: usize = {};\npub const PAD_2: usize = {};\n\
             pub const PAD_3: usize = {};\n\
             pub const KEY_MASK: [u8; 16] = [{}];\npub const AT_MASK: usize = {:#x};\n\
             pub const SPARE: usize = {};\n",
            self.salt,
            self.pads[0],
            self.pads[1],
            self.pads[2],
            self.pads[3],
            mask.join(", "),
            self.at_mask,
            self.spare
        )
    }
}
