//! Reads: a file downloaded in two ranges while it is replaced, with and without Object
//! Versioning, and reads that carry preconditions.

use super::{BUCKET, Facts, PUBLISHER_A, PUBLISHER_B, put, status, store, store_with};
use labkit::Observation;
use serde_json::json;
use sim_storage::{ObjectStore, Preconditions, StorageError};
use std::ops::Range;

const OLD: &[u8; 16] = b"AAAAAAAABBBBBBBB";
const NEW: &[u8; 16] = b"CCCCCCCCDDDDDDDD";

/// Bytes `range` of positions.csv: the live version, or `generation`.
fn range(s: &ObjectStore, generation: Option<i64>, r: Range<u64>) -> Result<Vec<u8>, StorageError> {
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
fn read_across_a_replacement(mut s: ObjectStore) -> (Vec<u8>, Result<Vec<u8>, StorageError>) {
    // ANCHOR: ranges
    let first = put(&mut s, PUBLISHER_A, "positions.csv", OLD.to_vec());
    let head = range(&s, None, 0..8).unwrap_or_default();
    put(&mut s, PUBLISHER_B, "positions.csv", NEW.to_vec());
    let tail = range(&s, None, 8..16).unwrap_or_default();
    let pinned_tail = range(&s, first, 8..16);
    // ANCHOR_END: ranges
    ([head, tail].concat(), pinned_tail)
}

/// 3. A reader downloads positions.csv in two ranges; it is replaced in between.
pub fn ranged_reads(obs: &mut Observation, facts: &mut Facts) {
    let (stitched, pinned_tail) = read_across_a_replacement(store());
    obs.ask("A reader downloads bytes 0-7 of positions.csv; the file is replaced; it downloads bytes 8-15. Neither request names a generation. Are the 16 bytes one of the two versions?", stitched == OLD || stitched == NEW);
    obs.ask("It asks for bytes 8-15 again, naming the first version's generation. Does it get the new bytes?", pinned_tail.as_deref().ok() == Some(&NEW[8..16]));
    facts.insert(
        "ranged_reads".into(),
        json!({
            "stitched": String::from_utf8_lossy(&stitched),
            "pinned_second_range": status(&pinned_tail),
        }),
    );
}

/// A variation: the same reads in a bucket with Object Versioning on.
pub fn versioned_ranges(obs: &mut Observation, facts: &mut Facts) {
    let (_, pinned_tail) = read_across_a_replacement(store_with(true));
    let answer = match pinned_tail.as_deref() {
        Ok(tail) if tail == &OLD[8..16] => "c",
        Ok(tail) if tail == &NEW[8..16] => "a",
        Err(e) if e.code() == 404 => "b",
        Err(e) if e.code() == 412 => "d",
        _ => "?",
    };
    let seen = match &pinned_tail {
        Ok(tail) => format!("{:?}", String::from_utf8_lossy(tail)),
        Err(e) => e.to_string(),
    };
    obs.choose("The reader of positions.csv again, in a bucket with Object Versioning on: bytes 0-7, a replacement, then bytes 8-15 of the first version's generation. What does that request return?",
        answer,
        format!("the pinned second range answered {seen}"),
    );
    facts.insert("versioned_pinned_second_range".into(), json!(seen));
}

/// 7. A reporting job keeps the manifest it read, with its generation, and asks again
///    with `ifGenerationNotMatch` (only if it changed): before the manifest is replaced,
///    then after. Then it reads the metadata, someone changes the Cache-Control, and it
///    fetches the bytes with `ifMetagenerationMatch` set to what it read.
pub fn conditional_reads(obs: &mut Observation, facts: &mut Facts) {
    let mut s = store();
    let held = put(&mut s, PUBLISHER_A, "manifest.json", b"run-1".to_vec()).unwrap_or(-1);
    let if_changed = |s: &ObjectStore| {
        let pre = Preconditions::generation_not(held);
        s.get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre)
    };
    let before_replacement = if_changed(&s);
    put(&mut s, PUBLISHER_A, "manifest.json", b"run-2".to_vec());
    let after_replacement = if_changed(&s);
    let none = Preconditions::none();
    let read = s.get(PUBLISHER_A, BUCKET, "manifest.json", None, none);
    let metageneration = read.map(|m| m.metageneration).unwrap_or(-1);
    s.patch(PUBLISHER_A, BUCKET, "manifest.json", Some("no-store"), none)
        .ok();
    let pre = Preconditions::metageneration(metageneration);
    let fetched = s.get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre);
    obs.ask("A job holds generation g of a manifest; nothing has changed. It reads with ifGenerationNotMatch=g. Does it receive the bytes?", before_replacement.is_ok());
    obs.ask("The manifest is replaced; the job reads with ifGenerationNotMatch=g again. Does it receive the new bytes?", after_replacement.as_ref().map(|(_, d)| d.as_slice()).ok() == Some(b"run-2".as_slice()));
    obs.ask("The job reads the manifest's metadata; someone changes its Cache-Control; the job fetches the bytes with ifMetagenerationMatch set to the metageneration it read. Does the fetch succeed?", fetched.is_ok());
    facts.insert(
        "conditional_reads".into(),
        json!({
            "if_generation_not_match": [status(&before_replacement), status(&after_replacement)],
            "if_metageneration_match_after_patch": status(&fetched),
        }),
    );
}
