//! Reads: a file downloaded in two ranges while it is replaced, with and without Object
//! Versioning, and reads that carry preconditions.

use super::{BUCKET, Facts, PUBLISHER_A, PUBLISHER_B, put, status, store, store_with};
use labkit::Observation;
use serde_json::json;
use sim_storage::{Meta, ObjectStore, Preconditions, StorageError, Upload};
use std::ops::Range;

const OLD: &[u8; 16] = b"AAAAAAAABBBBBBBB";
const NEW: &[u8; 16] = b"CCCCCCCCDDDDDDDD";

type Read = Result<Vec<u8>, StorageError>;

/// Bytes `range` of positions.csv: the live version, or `generation`.
fn range(s: &ObjectStore, generation: Option<i64>, r: Range<u64>) -> Read {
    let none = Preconditions::none();
    s.get_media(
        PUBLISHER_A,
        BUCKET,
        "positions.csv",
        generation,
        Some(r),
        none,
    )
    .map(|(_, d)| d)
}

/// The first range, a replacement, then the second range unpinned and pinned to the
/// first generation: what the reader assembled, and what the pinned read answered.
fn read_across_a_replacement(mut s: ObjectStore) -> (Vec<u8>, Read) {
    // ANCHOR: ranges
    let first = put(&mut s, PUBLISHER_A, "positions.csv", OLD.to_vec());
    let head = range(&s, None, 0..8).unwrap_or_default();
    put(&mut s, PUBLISHER_B, "positions.csv", NEW.to_vec());
    let tail = range(&s, None, 8..16).unwrap_or_default();
    let pinned_tail = range(&s, first, 8..16);
    // ANCHOR_END: ranges
    ([head, tail].concat(), pinned_tail)
}

/// The pinned read of the listing, B's upload conditional on the first version
/// (`ifGenerationMatch` set to `first`, as a careful writer replaces).
fn pinned_read_across_a_conditional_replacement() -> Read {
    let mut s = store();
    let first = put(&mut s, PUBLISHER_A, "positions.csv", OLD.to_vec());
    let replace = Upload::new(NEW.to_vec()).if_generation_match(first.unwrap_or(-1));
    s.insert(PUBLISHER_B, BUCKET, "positions.csv", replace).ok();
    range(&s, first, 8..16)
}

/// A response for the report's details.
fn shown(read: &Read) -> String {
    match read {
        Ok(bytes) => format!("{:?}", String::from_utf8_lossy(bytes)),
        Err(e) => e.to_string(),
    }
}

/// 3. A reader downloads positions.csv in two ranges; it is replaced in between. Then
///    the replacement conditional on the first version, and a bucket with Object
///    Versioning.
pub fn ranged_reads(obs: &mut Observation, facts: &mut Facts) {
    let (stitched, pinned_tail) = read_across_a_replacement(store());
    let conditional_tail = pinned_read_across_a_conditional_replacement();
    obs.ask(
        "In the positions.csv listing, B's upload carries ifGenerationMatch set to `first`. Does `pinned_tail` then return bytes?",
        conditional_tail.is_ok(),
    );
    let (versioned, versioned_tail) = read_across_a_replacement(store_with(true));
    let head = &versioned[..8.min(versioned.len())];
    let pinned_whole = [head, versioned_tail.as_deref().unwrap_or_default()].concat();
    facts.insert(
        "ranged_reads".into(),
        json!({
            "stitched": String::from_utf8_lossy(&stitched),
            "pinned_second_range": status(&pinned_tail),
            "conditional_replacement_pinned": shown(&conditional_tail),
            "versioned_pinned_second_range": shown(&versioned_tail),
            "versioned_head_and_pinned_tail_one_version": pinned_whole == OLD || pinned_whole == NEW,
        }),
    );
}

/// `ifGenerationNotMatch=held`: the manifest's bytes only if they changed.
fn if_changed(s: &ObjectStore, held: i64) -> Result<(Meta, Vec<u8>), StorageError> {
    let pre = Preconditions::generation_not(held);
    s.get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre)
}

/// A variation: the replacement carries the very bytes the job holds. What the job's
/// `ifGenerationNotMatch` read answers after it.
fn same_bytes_replacement() -> u16 {
    let mut s = store();
    let held = put(&mut s, PUBLISHER_A, "manifest.json", b"run-1".to_vec()).unwrap_or(-1);
    put(&mut s, PUBLISHER_A, "manifest.json", b"run-1".to_vec());
    status(&if_changed(&s, held))
}

/// 7. A reporting job keeps the manifest it read, with its generation, and asks again
///    with `ifGenerationNotMatch` (only if it changed): before the manifest is replaced,
///    then after. Then it reads the metadata, someone changes the Cache-Control, and it
///    reads with `ifGenerationNotMatch` once more, and fetches the bytes with
///    `ifMetagenerationMatch` set to what it read; then again after run-3 replaced it.
pub fn conditional_reads(facts: &mut Facts) {
    let mut s = store();
    let held = put(&mut s, PUBLISHER_A, "manifest.json", b"run-1".to_vec()).unwrap_or(-1);
    let before_replacement = if_changed(&s, held);
    put(&mut s, PUBLISHER_A, "manifest.json", b"run-2".to_vec());
    let after_replacement = if_changed(&s, held);
    let none = Preconditions::none();
    let read = s.get(PUBLISHER_A, BUCKET, "manifest.json", None, none);
    let (generation, metageneration) = read.map_or((-1, -1), |m| (m.generation, m.metageneration));
    s.patch(PUBLISHER_A, BUCKET, "manifest.json", Some("no-store"), none)
        .ok();
    let after_patch = if_changed(&s, generation);
    let pre = Preconditions::metageneration(metageneration);
    let fetched = s.get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre);
    // A variation: run-3 replaces the manifest before the fetch.
    put(&mut s, PUBLISHER_A, "manifest.json", b"run-3".to_vec());
    let after_run_3 = s.get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre);
    let same_bytes = same_bytes_replacement();
    facts.insert(
        "conditional_reads".into(),
        json!({
            "if_generation_not_match": [status(&before_replacement), status(&after_replacement)],
            "if_generation_not_match_same_bytes": same_bytes,
            "if_generation_not_match_after_patch": status(&after_patch),
            "if_metageneration_match": [status(&fetched), status(&after_run_3)],
        }),
    );
}
