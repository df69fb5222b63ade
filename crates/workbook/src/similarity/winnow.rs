//! Hashed k-grams and winnowing (Schleimer, Wilkerson and Aiken, "Winnowing: local
//! algorithms for document fingerprinting", SIGMOD 2003).
//!
//! Every run of `k` consecutive tokens is hashed; in every window of `window` consecutive
//! hashes the smallest is kept (the rightmost of equal ones). Two documents that share a
//! run of at least `k + window - 1` tokens then keep at least one hash in common, and a
//! document keeps about two hashes in every `window + 1`, wherever it sits among others:
//! the choice depends only on the window itself.

/// Selected hashes, each with the position (in tokens) where its k-gram starts, in order.
pub type Fingerprints = Vec<(usize, u64)>;

/// The hash of the k-gram starting at each position, `codes.len() - k + 1` of them (none
/// if the text is shorter than `k`); `None` for a k-gram that spans two top-level items
/// (`items[i]` is token i's item). FNV-1a, so the same text gives the same hashes on
/// every machine.
pub fn kgram_hashes(codes: &[u32], items: &[usize], k: usize) -> Vec<Option<u64>> {
    if k == 0 || codes.len() < k {
        return Vec::new();
    }
    (0..=codes.len() - k)
        .map(|start| {
            if items.get(start) != items.get(start + k - 1) {
                return None;
            }
            let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
            for byte in codes[start..start + k].iter().flat_map(|c| c.to_le_bytes()) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
            Some(hash)
        })
        .collect()
}

/// Winnows the candidate hashes (`None`: not a candidate, such as a starter k-gram). The
/// candidates are winnowed run by run, a run being consecutive candidates: a window that
/// straddled a starter k-gram could otherwise keep only the starter's hash and lose the
/// learner's, and a run shorter than a window still gives its smallest hash.
pub fn winnow(candidates: &[Option<u64>], window: usize) -> Fingerprints {
    let mut selected = Fingerprints::new();
    let mut start = 0;
    while start < candidates.len() {
        if candidates[start].is_none() {
            start += 1;
            continue;
        }
        let end = (start..candidates.len())
            .find(|&i| candidates[i].is_none())
            .unwrap_or(candidates.len());
        let run: Vec<u64> = candidates[start..end].iter().flatten().copied().collect();
        for (at, hash) in winnow_run(&run, window.max(1)) {
            selected.push((start + at, hash));
        }
        start = end;
    }
    selected
}

/// Winnows one run (at least one hash): the smallest of every window, the rightmost of
/// equal ones, each position once.
fn winnow_run(hashes: &[u64], window: usize) -> Fingerprints {
    let mut out = Fingerprints::new();
    let mut kept: Option<usize> = None;
    for from in 0..=hashes.len().saturating_sub(window) {
        let to = (from + window).min(hashes.len());
        let smallest = (from..to)
            .rev()
            .min_by_key(|&i| hashes[i])
            .expect("a window holds at least one hash");
        if kept != Some(smallest) {
            out.push((smallest, hashes[smallest]));
            kept = Some(smallest);
        }
    }
    out
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
        let candidates: Vec<Option<u64>> = hashes.iter().copied().map(Some).collect();
        let kept = winnow(&candidates, 4);
        assert_eq!(kept, [(3, 17), (6, 17), (8, 8), (11, 39), (15, 17)]);
    }

    #[test]
    fn only_candidates_are_kept_and_short_runs_still_count() {
        let candidates = [Some(9), None, None, Some(7), Some(3), Some(4)];
        assert_eq!(winnow(&candidates, 4), [(0, 9), (4, 3)]);
        assert!(winnow(&[None, None], 4).is_empty());
    }

    #[test]
    fn hashes_are_those_of_each_k_gram() {
        let hashes = kgram_hashes(&[1, 2, 3, 1, 2], &[0; 5], 2);
        assert_eq!(hashes.len(), 4);
        assert_eq!(hashes[0], hashes[3]);
        assert_ne!(hashes[0], hashes[1]);
        assert!(kgram_hashes(&[1], &[0], 2).is_empty());
        let across = kgram_hashes(&[1, 2, 3, 1, 2], &[0, 0, 1, 1, 1], 2);
        assert_eq!(across[1], None);
        assert_eq!(across[0], hashes[0]);
    }
}
