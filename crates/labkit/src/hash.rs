//! Small, stable hashes, the same on every platform and Rust version (unlike `std`'s
//! `DefaultHasher`): FNV-1a for event fingerprints, SipHash-2-4 for keyed checksums such
//! as a prediction seal.

/// A 64-bit FNV-1a hasher: small, and the same on every platform, so fingerprints
/// can be compared across machines.
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    /// A hasher in FNV-1a's initial state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Hashes `bytes` into the state.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The hash of everything written so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// The FNV-1a hash of `bytes`, as 16 hex digits.
pub fn fnv64_hex(bytes: &[u8]) -> String {
    let mut h = Fnv64::new();
    h.write(bytes);
    format!("{:016x}", h.finish())
}

/// SipHash-2-4 of `message` under the 128-bit `key` (Aumasson and Bernstein, 2012).
pub fn siphash24(key: [u8; 16], message: &[u8]) -> u64 {
    let k0 = u64::from_le_bytes(key[..8].try_into().unwrap_or_default());
    let k1 = u64::from_le_bytes(key[8..].try_into().unwrap_or_default());
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    fn round(v: &mut [u64; 4]) {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    }
    let compress = |m: u64, v: &mut [u64; 4]| {
        v[3] ^= m;
        round(v);
        round(v);
        v[0] ^= m;
    };
    let chunks = message.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        compress(
            u64::from_le_bytes(chunk.try_into().unwrap_or_default()),
            &mut v,
        );
    }
    let mut last = [0u8; 8];
    last[..rest.len()].copy_from_slice(rest);
    last[7] = message.len() as u8;
    compress(u64::from_le_bytes(last), &mut v);
    v[2] ^= 0xff;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

#[cfg(test)]
mod tests {
    #[test]
    fn siphash_matches_the_reference_vectors() {
        // The paper's appendix A: key 00..0f, message 00..0e.
        let key: [u8; 16] = std::array::from_fn(|i| i as u8);
        let message: Vec<u8> = (0u8..15).collect();
        assert_eq!(super::siphash24(key, &message), 0xa129_ca61_49be_45e5);
        // The reference implementation's first vector: the empty message.
        assert_eq!(super::siphash24(key, b""), 0x726f_db47_dd0e_0e31);
    }

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        // From the FNV reference test suite (draft-eastlake-fnv): "" and "a".
        assert_eq!(super::fnv64_hex(b""), "cbf29ce484222325");
        assert_eq!(super::fnv64_hex(b"a"), "af63dc4c8601ec8c");
    }
}
