//! The per-test key: 128 random bits the parent sends on the child's stdin, and the proof
//! of a pass it keys.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// A 128-bit key, fresh for every test run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Key(pub(crate) [u8; 16]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A key never appears in a log or an assertion message.
        f.write_str("Key(…)")
    }
}

/// 64 bits the operating system seeded: `RandomState` draws fresh keys from it in every
/// process, and hashing the time and a counter under them spreads them further.
pub(crate) fn random_u64(salt: u64) -> u64 {
    let mut h = RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(nanos);
    h.write_u64(salt);
    h.write_u32(std::process::id());
    h.finish()
}

impl Key {
    /// A fresh key.
    pub fn new() -> Key {
        let (a, b) = (random_u64(1), random_u64(2));
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&a.to_le_bytes());
        bytes[8..].copy_from_slice(&b.to_le_bytes());
        Key(bytes)
    }

    /// The 32 hex digits the child reads.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The key that 32 hex digits spell, or `None` when they spell none.
    pub fn parse(hex: &str) -> Option<Key> {
        let digits = hex.trim().as_bytes();
        if digits.len() != 32 {
            return None;
        }
        let mut key = [0u8; 16];
        for (i, pair) in digits.chunks(2).enumerate() {
            let text = std::str::from_utf8(pair).ok()?;
            key[i] = u8::from_str_radix(text, 16).ok()?;
        }
        Some(Key(key))
    }
}

impl Default for Key {
    fn default() -> Self {
        Key::new()
    }
}

/// The proof that test `name` passed, under `key`: 16 hex digits of SipHash-2-4 over
/// "passed\n" and the name.
pub fn proof(key: &Key, name: &str) -> String {
    format!(
        "{:016x}",
        labkit::hash::siphash24(key.0, format!("passed\n{name}").as_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_and_round_trip_through_hex() {
        let (a, b) = (Key::new(), Key::new());
        assert_ne!(a, b);
        assert_eq!(a.hex().len(), 32);
        assert_eq!(Key::parse(&a.hex()), Some(a));
        assert_eq!(Key::parse("not hex at all, but 32 chars lon"), None);
        assert_eq!(format!("{a:?}"), "Key(…)");
        assert_ne!(proof(&a, "x"), proof(&a, "y"), "a proof names its test");
        assert_ne!(proof(&a, "x"), proof(&b, "x"), "a proof needs its key");
    }
}
