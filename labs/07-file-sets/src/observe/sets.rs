//! Sections 4–7: what the store does not promise for a set of objects, a cached copy
//! or a change of permissions, and reads that carry preconditions.

use super::{BUCKET, CREATOR, Facts, PUBLISHER_A, live, put, status, store};
use crate::world::{RUN_1, RUN_2, dataset, run_tag};
use labkit::Observation;
use serde_json::json;
use sim_storage::{Layer, ObjectStore, Preconditions, PublicCache, Upload};

/// 4. A consumer reads the two files of a set between the two uploads that replace them.
pub fn mixed_runs(obs: &mut Observation) {
    // ANCHOR: mixed
    // 4. The publisher of run-2 overwrites latest/accounts.csv, then latest/positions.csv.
    //    A consumer reads both between the two uploads.
    let mut s = store();
    let (run1, run2) = (
        dataset(RUN_1).expect("run-1"),
        dataset(RUN_2).expect("run-2"),
    );
    put(
        &mut s,
        PUBLISHER_A,
        "latest/accounts.csv",
        run1.accounts_csv(),
    );
    put(
        &mut s,
        PUBLISHER_A,
        "latest/positions.csv",
        run1.positions_csv(),
    );
    put(
        &mut s,
        PUBLISHER_A,
        "latest/accounts.csv",
        run2.accounts_csv(),
    );
    let accounts_tag = live(&s, "latest/accounts.csv")
        .ok()
        .and_then(|b| run_tag(&b));
    let positions_tag = live(&s, "latest/positions.csv")
        .ok()
        .and_then(|b| run_tag(&b));
    put(
        &mut s,
        PUBLISHER_A,
        "latest/positions.csv",
        run2.positions_csv(),
    );
    obs.check(
        "a consumer can read accounts of one run and positions of another",
        accounts_tag.is_some() && accounts_tag != positions_tag,
    );
    obs.check(
        "the bucket makes the two uploads visible together",
        accounts_tag == positions_tag,
    );
    // ANCHOR_END: mixed
    let answer = match (accounts_tag.as_deref(), positions_tag.as_deref()) {
        (Some(RUN_1), Some(RUN_1)) => "a",
        (Some(RUN_2), Some(RUN_2)) => "b",
        (Some(RUN_2), Some(RUN_1)) => "c",
        _ => "?",
    };
    obs.answer(
        "mixed-read",
        answer,
        format!("accounts tagged {accounts_tag:?}, positions tagged {positions_tag:?}"),
    );
}

/// 5. A public manifest behind a cache, replaced at the origin. Returns the store, which
///    section 6 goes on with.
pub fn public_cache(obs: &mut Observation, facts: &mut Facts) -> ObjectStore {
    // ANCHOR: cache
    // 5. A public manifest with `Cache-Control: public, max-age=60`, cached at t=0 and
    //    replaced at t=10. Who answers, and with which run, at t=10 … 120? (The reads
    //    go on past t=70 so that every option of the question can be observed.)
    let mut s = store();
    let manifest = |run: &str| Upload::new(run).cache_control("public, max-age=60");
    s.insert(PUBLISHER_A, BUCKET, "manifest.json", manifest("run-1"))
        .ok();
    let mut cache = PublicCache::new();
    let _ = cache.get_media(&s, 0, BUCKET, "manifest.json");
    s.insert(PUBLISHER_A, BUCKET, "manifest.json", manifest("run-2"))
        .ok();
    let origin_now = live(&s, "manifest.json").unwrap_or_default();
    let mut seen = Vec::new();
    for t in [10, 30, 59, 60, 69, 70, 120] {
        if let Ok(served) = cache.get_media(&s, t, BUCKET, "manifest.json") {
            seen.push((t, served.layer, served.data));
        }
    }
    let new_from_cache_at = |t: u64| seen.iter().any(|(at, _, d)| *at == t && d == b"run-2");
    obs.check(
        "the origin returns the new manifest right after the write",
        origin_now == b"run-2",
    );
    obs.check(
        "the cache returns the new manifest right after the write",
        new_from_cache_at(10),
    );
    obs.check(
        "the cache returns the new manifest once max-age has passed",
        new_from_cache_at(60),
    );
    // ANCHOR_END: cache
    answer_cache_until(obs, facts, &seen);
    s
}

/// Who answered each read of section 5, and with which run: the question's answer.
fn answer_cache_until(obs: &mut Observation, facts: &mut Facts, seen: &[(u64, Layer, Vec<u8>)]) {
    let first_new = seen
        .iter()
        .find(|(_, _, d)| d == b"run-2")
        .map(|(t, _, _)| *t);
    let stale_layers: Vec<String> = seen
        .iter()
        .filter(|(_, _, d)| d == b"run-1")
        .map(|(t, layer, _)| format!("t={t} {layer:?}"))
        .collect();
    let answer = match first_new {
        Some(10) => "a",
        Some(60) => "b",
        Some(70) => "c",
        None => "d",
        Some(_) => "?",
    };
    obs.answer(
        "cache-until",
        answer,
        format!(
            "first new copy at {}; stale answers: {}",
            first_new.map_or("no read".to_string(), |t| format!("t={t}")),
            stale_layers.join(", ")
        ),
    );
    let served: Vec<String> = seen
        .iter()
        .map(|(t, layer, d)| {
            let layer = if *layer == Layer::Cache {
                "cache"
            } else {
                "origin"
            };
            format!("t={t} {layer} {}", String::from_utf8_lossy(d))
        })
        .collect();
    facts.insert("cache".into(), json!(served));
}

/// 6. An uploader with objectCreator tries to replace the manifest, and a new run's file
///    is listed right after its upload.
pub fn creator_and_listing(obs: &mut Observation, facts: &mut Facts, mut s: ObjectStore) {
    // ANCHOR: iam
    // 6. An uploader with roles/storage.objectCreator tries to replace the manifest; then
    //    a new run's file is listed right after its upload.
    let replaced = s.insert(CREATOR, BUCKET, "manifest.json", Upload::new("hand-fixed"));
    obs.check(
        "an identity with objectCreator can replace the manifest",
        replaced.is_ok(),
    );
    s.insert(
        PUBLISHER_A,
        BUCKET,
        "runs/run-3/accounts.csv",
        Upload::new("x"),
    )
    .ok();
    let listed = s
        .list(PUBLISHER_A, BUCKET, "runs/run-3/")
        .map(|l| l.len())
        .unwrap_or(0);
    obs.check(
        "object listing shows a new run's files right after upload",
        listed == 1,
    );
    // ANCHOR_END: iam
    facts.insert("replace_by_object_creator".into(), json!(status(&replaced)));
}

/// 7. Reads that carry preconditions: "only if it changed", and "only if the metadata is
///    still the one I read".
pub fn conditional_reads(obs: &mut Observation, facts: &mut Facts) {
    // ANCHOR: conditional_reads
    // 7. A reporting job keeps the manifest it last read, with its generation, and asks
    //    again with `ifGenerationNotMatch` (only if it changed): once before the manifest
    //    is replaced, once after.
    let mut s = store();
    let held = s
        .insert(PUBLISHER_A, BUCKET, "manifest.json", Upload::new("run-1"))
        .map(|m| m.generation)
        .unwrap_or(-1);
    let if_changed = |s: &ObjectStore| {
        s.get_media(
            PUBLISHER_A,
            BUCKET,
            "manifest.json",
            None,
            None,
            Preconditions::generation_not(held),
        )
    };
    let before_replacement = if_changed(&s);
    s.insert(PUBLISHER_A, BUCKET, "manifest.json", Upload::new("run-2"))
        .ok();
    let after_replacement = if_changed(&s);
    obs.check(
        "ifGenerationNotMatch returns the unchanged manifest again",
        before_replacement.is_ok(),
    );
    obs.check(
        "ifGenerationNotMatch returns the replaced manifest's new bytes",
        after_replacement.as_ref().map(|(_, d)| d.as_slice()).ok() == Some(b"run-2".as_slice()),
    );
    // ANCHOR_END: conditional_reads
    facts.insert(
        "if_generation_not_match".into(),
        json!([status(&before_replacement), status(&after_replacement)]),
    );
    metageneration_read(obs, facts, s);
}

/// 7b. The job read the manifest's metadata; someone changes its Cache-Control; the job
///     fetches the bytes pinned to the metageneration it read.
fn metageneration_read(obs: &mut Observation, facts: &mut Facts, mut s: ObjectStore) {
    // ANCHOR: metageneration_read
    let read_metageneration = s
        .get(
            PUBLISHER_A,
            BUCKET,
            "manifest.json",
            None,
            Preconditions::none(),
        )
        .map(|m| m.metageneration)
        .unwrap_or(-1);
    s.patch(
        PUBLISHER_A,
        BUCKET,
        "manifest.json",
        Some("no-store"),
        Preconditions::none(),
    )
    .ok();
    let pinned_to_seen = s.get_media(
        PUBLISHER_A,
        BUCKET,
        "manifest.json",
        None,
        None,
        Preconditions::metageneration(read_metageneration),
    );
    obs.check(
        "a fetch pinned to the metageneration it read succeeds after a metadata change",
        pinned_to_seen.is_ok(),
    );
    // ANCHOR_END: metageneration_read
    facts.insert(
        "if_metageneration_match_after_patch".into(),
        json!(status(&pinned_to_seen)),
    );
}
