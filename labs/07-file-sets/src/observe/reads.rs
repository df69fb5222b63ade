//! Reads: a file downloaded in two ranges while it is replaced, with and without Object
//! Versioning, and reads that carry preconditions.

use super::{BUCKET, Facts, PUBLISHER_A, PUBLISHER_B, put, status, store, store_with};
use labkit::Observation;
use serde_json::json;
use sim_storage::{ObjectStore, Preconditions, StorageError, Upload};
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

/// The same reads, B's upload sent create-only (`ifGenerationMatch=0`).
fn read_across_a_create_only_upload() -> (Vec<u8>, Read) {
    let mut s = store();
    let first = put(&mut s, PUBLISHER_A, "positions.csv", OLD.to_vec());
    let head = range(&s, None, 0..8).unwrap_or_default();
    let create = Upload::new(NEW.to_vec()).if_generation_match(0);
    s.insert(PUBLISHER_B, BUCKET, "positions.csv", create).ok();
    let tail = range(&s, None, 8..16).unwrap_or_default();
    let pinned_tail = range(&s, first, 8..16);
    ([head, tail].concat(), pinned_tail)
}

/// A response for the report's details.
fn shown(read: &Read) -> String {
    match read {
        Ok(bytes) => format!("{:?}", String::from_utf8_lossy(bytes)),
        Err(e) => e.to_string(),
    }
}

/// 3. A reader downloads positions.csv in two ranges; it is replaced in between. Then
///    the replacement create-only, and a bucket with Object Versioning.
pub fn ranged_reads(obs: &mut Observation, facts: &mut Facts) {
    let (stitched, pinned_tail) = read_across_a_replacement(store());
    obs.ask(
        "In the positions.csv listing, are `head` and `tail` parts of one version of the file?",
        stitched == OLD || stitched == NEW,
    );
    let (create_only_stitched, create_only_tail) = read_across_a_create_only_upload();
    obs.ask(
        "In the positions.csv listing, B's upload carries ifGenerationMatch=0. Does `pinned_tail` then return bytes?",
        create_only_tail.is_ok(),
    );
    let (_, versioned_tail) = read_across_a_replacement(store_with(true));
    obs.ask(
        "In a bucket with Object Versioning on, does the positions.csv listing's `pinned_tail` return the first version's bytes 8-15?",
        versioned_tail.as_deref().ok() == Some(&OLD[8..16]),
    );
    facts.insert(
        "ranged_reads".into(),
        json!({
            "stitched": String::from_utf8_lossy(&stitched),
            "pinned_second_range": status(&pinned_tail),
            "create_only": [String::from_utf8_lossy(&create_only_stitched), shown(&create_only_tail)],
            "versioned_pinned_second_range": shown(&versioned_tail),
        }),
    );
}

/// 7. A reporting job keeps the manifest it read, with its generation, and asks again
///    with `ifGenerationNotMatch` (only if it changed): before the manifest is replaced,
///    then after. Then it reads the metadata, someone changes the Cache-Control, and it
///    reads with `ifGenerationNotMatch` once more, and fetches the bytes with
///    `ifMetagenerationMatch` set to what it read.
pub fn conditional_reads(obs: &mut Observation, facts: &mut Facts) {
    let mut s = store();
    let held = put(&mut s, PUBLISHER_A, "manifest.json", b"run-1".to_vec()).unwrap_or(-1);
    let if_changed = |s: &ObjectStore, held: i64| {
        let pre = Preconditions::generation_not(held);
        s.get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre)
    };
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
    obs.ask(
        "In `conditional_reads`, does the job's first ifGenerationNotMatch read, before the replacement, answer 304 Not Modified?",
        status(&before_replacement) == 304,
    );
    obs.ask(
        "After the Cache-Control change in `conditional_reads`, the job also reads with ifGenerationNotMatch set to the generation of the metadata it read. Does it receive the bytes?",
        after_patch.is_ok(),
    );
    obs.ask(
        "Does the fetch with ifMetagenerationMatch at the end of `conditional_reads` succeed?",
        fetched.is_ok(),
    );
    facts.insert(
        "conditional_reads".into(),
        json!({
            "if_generation_not_match": [status(&before_replacement), status(&after_replacement)],
            "if_generation_not_match_after_patch": status(&after_patch),
            "if_metageneration_match_after_patch": status(&fetched),
        }),
    );
}

/// A variation: the job reads run-1's metadata, the manifest is replaced by run-2 (no
/// metadata change), and the job fetches with `ifMetagenerationMatch` set to what it read.
pub fn metageneration_after_replacement(obs: &mut Observation, facts: &mut Facts) {
    let mut s = store();
    put(&mut s, PUBLISHER_A, "manifest.json", b"run-1".to_vec());
    let none = Preconditions::none();
    let read = s.get(PUBLISHER_A, BUCKET, "manifest.json", None, none);
    let metageneration = read.map_or(-1, |m| m.metageneration);
    put(&mut s, PUBLISHER_A, "manifest.json", b"run-2".to_vec());
    let pre = Preconditions::metageneration(metageneration);
    let fetched = s
        .get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre)
        .map(|(_, data)| data);
    let answer = match fetched.as_deref() {
        Err(e) if e.code() == 412 => "a",
        Ok(b"run-1") => "b",
        Err(e) if e.code() == 304 => "c",
        Ok(b"run-2") => "d",
        _ => "?",
    };
    obs.choose(
        "A variation of `conditional_reads`: the job reads the metadata of run-1's manifest, the manifest is replaced by run-2 (a new generation starts at metageneration 1), and the job fetches the bytes with ifMetagenerationMatch set to the metageneration it read. What does the fetch return?",
        answer,
        format!("metageneration {metageneration} read; the fetch answered {}", shown(&fetched)),
    );
    facts.insert(
        "metageneration_after_replacement".into(),
        json!(shown(&fetched)),
    );
}
