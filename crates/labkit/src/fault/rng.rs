//! The one pseudo-random generator of the fault core.
//!
//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
//! OOPSLA 2014), written out here so that a seed printed today replays the same run on
//! every future version of the workbook. Do not change these constants: every replay
//! token and seed a learner has saved depends on them.
//!
//! ```text
//! state  = state + 0x9E37_79B9_7F4A_7C15           (wrapping)
//! z      = state
//! z      = (z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9  (wrapping)
//! z      = (z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB  (wrapping)
//! output = z ^ (z >> 31)
//! ```

/// The increment added to the state before each output (the golden ratio in 64 bits).
pub(crate) const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
const MIX_1: u64 = 0xBF58_476D_1CE4_E5B9;
const MIX_2: u64 = 0x94D0_49BB_1331_11EB;

/// A seeded SplitMix64 generator. Seeds are printed as 16 hex digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator that starts from `seed`; the same seed gives the same numbers forever.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// The next 64 random bits: one SplitMix64 step.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(MIX_1);
        z = (z ^ (z >> 27)).wrapping_mul(MIX_2);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0). Uses the widening multiply (Lemire), which is
    /// deterministic and needs no rejection loop; the bias is below 2^-32 for the small
    /// `n` the labs use.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// True with probability `num / den`: an integer ratio, never a float, so the same
    /// seed gives the same answer on every platform.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        assert!(den > 0 && num <= den, "Rng::chance({num}, {den})");
        self.below(den) < num
    }
}

/// Formats a seed the way every report prints it.
pub fn seed_hex(seed: u64) -> String {
    format!("{seed:016x}")
}

/// Parses a seed printed by [`seed_hex`] (an optional `0x` prefix is accepted).
pub fn parse_seed(text: &str) -> Option<u64> {
    let digits = text.trim().trim_start_matches("0x");
    u64::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_published_reference_values() {
        // Reference outputs for seed 0 from the SplitMix64 reference implementation
        // (Vigna, prng.di.unimi.it/splitmix64.c).
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn below_and_chance_stay_in_range() {
        let mut rng = Rng::new(0x5EED);
        for n in 1..50 {
            assert!(rng.below(n) < n);
        }
        let hits = (0..10_000).filter(|_| rng.chance(1, 4)).count();
        assert!(
            (2_000..3_000).contains(&hits),
            "1/4 chance hit {hits} of 10000"
        );
        assert!(!rng.chance(0, 7));
    }

    #[test]
    fn seeds_round_trip_through_hex() {
        assert_eq!(seed_hex(0xABC), "0000000000000abc");
        assert_eq!(parse_seed("0x0000000000000abc"), Some(0xABC));
        assert_eq!(parse_seed("zz"), None);
    }
}
