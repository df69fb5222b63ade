//! Sections 1–3: one object at a time. Racing creates, a delete pinned to the approved
//! generation, ranged reads across a replacement.

use super::{BUCKET, Facts, PUBLISHER_A, PUBLISHER_B, live, put, status, store};
use labkit::Observation;
use serde_json::json;
use sim_storage::{DeleteRequest, ObjectStore, Preconditions, Upload};

/// 1. Two publishers create the same object, first without, then with a precondition.
pub fn racing_creates(obs: &mut Observation) {
    // ANCHOR: race
    // 1. Two publishers create the same manifest, first without, then with a precondition.
    let mut s = store();
    let a = s.insert(PUBLISHER_A, BUCKET, "plain.json", Upload::new("from A"));
    let b = s.insert(PUBLISHER_B, BUCKET, "plain.json", Upload::new("from B"));
    obs.check(
        "without a precondition both racing uploads succeed",
        a.is_ok() && b.is_ok(),
    );
    obs.check(
        "without a precondition the first upload is still live",
        live(&s, "plain.json").ok().as_deref() == Some(b"from A".as_slice()),
    );
    let create = |text: &str| Upload::new(text).if_generation_match(0);
    let a = s.insert(PUBLISHER_A, BUCKET, "guarded.json", create("from A"));
    let b = s.insert(PUBLISHER_B, BUCKET, "guarded.json", create("from B"));
    obs.check(
        "with ifGenerationMatch=0 the second create fails with 412",
        a.is_ok() && status(&b) == 412,
    );
    // ANCHOR_END: race
    let held = live(&s, "guarded.json").unwrap_or_default();
    let answer = match (status(&a), status(&b), held.as_slice()) {
        (200, 200, _) => "a",
        (200, 412, b"from A") => "b",
        (_, _, b"from B") => "c",
        _ => "?",
    };
    obs.answer(
        "after-create-race",
        answer,
        format!(
            "A got {}, B got {}, the live bytes are {:?}",
            status(&a),
            status(&b),
            String::from_utf8_lossy(&held)
        ),
    );
}

/// 2. A cleanup job deletes the generation it approved, after a new upload replaced it.
pub fn pinned_delete(obs: &mut Observation, facts: &mut Facts) {
    // ANCHOR: delete
    // 2. A cleanup job approved generation g1 for deletion; a new upload replaced it.
    let mut s = store();
    let approved = s
        .insert(PUBLISHER_A, BUCKET, "old.csv", Upload::new("approved"))
        .ok();
    let replacement = s
        .insert(PUBLISHER_B, BUCKET, "old.csv", Upload::new("replacement"))
        .ok();
    let g1 = approved.map(|m| m.generation).unwrap_or(-1);
    let g2 = replacement.map(|m| m.generation).unwrap_or(-1);
    let pinned = DeleteRequest {
        generation: None,
        preconditions: Preconditions::generation(g1),
    };
    let pinned_delete = s.delete(PUBLISHER_A, BUCKET, "old.csv", pinned);
    let survived_pinned = live(&s, "old.csv").ok();
    let _ = s.delete(PUBLISHER_A, BUCKET, "old.csv", DeleteRequest::default());
    obs.check(
        "an unpinned delete removes the newer replacement",
        status(&live(&s, "old.csv")) == 404,
    );
    obs.check(
        "a delete pinned to the approved generation removes the new one",
        pinned_delete.is_ok() && survived_pinned.is_none(),
    );
    obs.check(
        "the replacement's generation is the approved one plus one",
        g2 == g1 + 1,
    );
    // ANCHOR_END: delete
    facts.insert(
        "approved_and_replacement_generations".into(),
        json!([g1, g2]),
    );
}

/// 3. A reader downloads a file in two ranges; the file is replaced in between.
pub fn ranged_reads(obs: &mut Observation, facts: &mut Facts) {
    // ANCHOR: ranges
    // 3. A reader downloads positions.csv in two ranges; the file is replaced in between.
    let mut s = store();
    let old = b"AAAAAAAABBBBBBBB".to_vec();
    let first = put(&mut s, PUBLISHER_A, "positions.csv", old.clone());
    let range = |s: &ObjectStore, generation: Option<i64>, r: std::ops::Range<u64>| {
        s.get_media(
            PUBLISHER_A,
            BUCKET,
            "positions.csv",
            generation,
            Some(r),
            Preconditions::none(),
        )
        .map(|(_, d)| d)
    };
    let head = range(&s, None, 0..8).unwrap_or_default();
    let new = b"CCCCCCCCDDDDDDDD".to_vec();
    put(&mut s, PUBLISHER_B, "positions.csv", new.clone());
    let tail = range(&s, None, 8..16).unwrap_or_default();
    let stitched = [head.clone(), tail].concat();
    let pinned_tail = range(&s, first, 8..16);
    obs.check(
        "two unpinned ranged reads can return parts of two versions",
        stitched != old && stitched != new,
    );
    obs.check(
        "a read pinned to the first generation returns the new bytes",
        pinned_tail.as_deref().ok() == Some(&new[8..16]),
    );
    // ANCHOR_END: ranges
    let (answer, evidence) = if stitched == old {
        ("a", "the old version".to_string())
    } else if stitched == new {
        ("b", "the new version".to_string())
    } else {
        (
            "c",
            format!("assembled {:?}", String::from_utf8_lossy(&stitched)),
        )
    };
    obs.answer("unpinned-ranges", answer, evidence);
    facts.insert(
        "stitched_read".into(),
        json!(String::from_utf8_lossy(&stitched)),
    );
}
