//! Hashed k-grams and winnowing (Schleimer, Wilkerson and Aiken, "Winnowing: local
//! algorithms for document fingerprinting", SIGMOD 2003).
//!
//! Every run of `k` consecutive tokens is hashed; in every window of `window` consecutive
//! hashes the smallest is kept (the rightmost of equal ones). Two documents that share a
//! run of at least `k + window - 1` tokens then keep at least one hash in common, and a
//! document keeps about two hashes in every `window + 1`, wherever it sits among others:
//! the choice depends only on the window itself.

use std::collections::BTreeSet;

/// Selected hashes, each with the position (in tokens) where its k-gram starts, in order.
pub type Fingerprints = Vec<(usize, u64)>;

/// The hash of every k-gram, in order: `codes.len() - k + 1` of them (none if the text is
/// shorter than `k`). FNV-1a, so the same text gives the same hashes on every machine.
pub fn kgram_hashes(codes: &[u32], k: usize) -> Vec<u64> {
    if k == 0 {
        return Vec::new();
    }
    codes
        .windows(k)
        .map(|gram| {
            let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
            for byte in gram.iter().flat_map(|code| code.to_le_bytes()) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
            hash
        })
        .collect()
}

/// Winnows `hashes`, leaving out those in `shared` (the starter's k-grams). The rest is
/// winnowed run by run, a run being consecutive k-grams not in `shared`: a window that
/// straddled a starter k-gram could otherwise keep only the starter's hash and lose the
/// learner's, and a run shorter than a window still gives its smallest hash.
pub fn winnow(hashes: &[u64], shared: &BTreeSet<u64>, window: usize) -> Fingerprints {
    let mut selected = Fingerprints::new();
    let mut start = 0;
    while start < hashes.len() {
        if shared.contains(&hashes[start]) {
            start += 1;
            continue;
        }
        let end = (start..hashes.len())
            .find(|&i| shared.contains(&hashes[i]))
            .unwrap_or(hashes.len());
        winnow_run(hashes, start, end, window.max(1), &mut selected);
        start = end;
    }
    selected
}

fn winnow_run(hashes: &[u64], start: usize, end: usize, window: usize, out: &mut Fingerprints) {
    let last_start = end.saturating_sub(window).max(start);
    let mut kept: Option<usize> = None;
    for from in start..=last_start {
        let to = (from + window).min(end);
        let smallest = (from..to)
            .rev()
            .min_by_key(|&i| hashes[i])
            .expect("a window holds at least one hash");
        if kept != Some(smallest) {
            out.push((smallest, hashes[smallest]));
            kept = Some(smallest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_window_keeps_its_smallest_hash_and_no_position_twice() {
        let hashes = [
            77, 72, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 72, 42, 17, 98,
        ];
        // The paper's example (window 4): 17 (3), 17 (6), 8 (8), 39 (11), 17 (15).
        let kept = winnow(&hashes, &BTreeSet::new(), 4);
        assert_eq!(kept, [(3, 17), (6, 17), (8, 8), (11, 39), (15, 17)]);
    }

    #[test]
    fn shared_hashes_are_never_kept_and_short_runs_still_count() {
        let shared: BTreeSet<u64> = [5, 6].into();
        assert_eq!(winnow(&[9, 5, 6, 7, 3, 4], &shared, 4), [(0, 9), (4, 3)]);
        assert!(winnow(&[5, 6], &shared, 4).is_empty());
    }

    #[test]
    fn hashes_are_those_of_each_k_gram() {
        let hashes = kgram_hashes(&[1, 2, 3, 1, 2], 2);
        assert_eq!(hashes.len(), 4);
        assert_eq!(hashes[0], hashes[3]);
        assert_ne!(hashes[0], hashes[1]);
        assert!(kgram_hashes(&[1], 2).is_empty());
    }
}
