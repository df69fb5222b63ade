//! The observe phase: what the object store promises for one object, and what it does
//! not promise for a set of them.
//!
//! Everything runs against the simulated Cloud Storage origin (`sim_storage`, SQLite in
//! memory) and the public cache in front of it, one request at a time, with no faults.
//! Every verdict below is computed from the responses; the answer keys live in
//! `lab.toml`.

use crate::harness::{RUN_1, RUN_2, dataset, parse_accounts, parse_positions};
use labkit::{Observation, Report};
use sim_storage::{
    ALL_USERS, DeleteRequest, Layer, ObjectStore, Preconditions, PublicCache, Role, StorageError,
    Upload,
};

const BUCKET: &str = "datasets";
const PUBLISHER_A: &str = "serviceAccount:publisher-a@bank-data.iam";
const PUBLISHER_B: &str = "serviceAccount:publisher-b@bank-data.iam";
const CREATOR: &str = "serviceAccount:uploader@bank-data.iam";

fn store() -> ObjectStore {
    let mut store = ObjectStore::in_memory();
    store
        .create_bucket(BUCKET, false)
        .expect("a new store has no buckets");
    for principal in [PUBLISHER_A, PUBLISHER_B] {
        store.grant(BUCKET, principal, Role::ObjectUser);
    }
    store.grant(BUCKET, CREATOR, Role::ObjectCreator);
    store.grant(BUCKET, ALL_USERS, Role::ObjectViewer);
    store
}

fn live(store: &ObjectStore, name: &str) -> Result<Vec<u8>, StorageError> {
    store
        .get_media(PUBLISHER_A, BUCKET, name, None, None, Preconditions::none())
        .map(|(_, data)| data)
}

fn status<T>(result: &Result<T, StorageError>) -> u16 {
    result.as_ref().map(|_| 200).unwrap_or_else(|e| e.code())
}

/// Runs the observe phase and returns its report.
pub fn run() -> Report {
    let mut obs = Observation::new("file-sets");

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

    // ANCHOR: ranges
    // 3. A reader downloads positions.csv in two ranges; the file is replaced in between.
    let mut s = store();
    let old = b"AAAAAAAABBBBBBBB".to_vec();
    let first = s
        .insert(
            PUBLISHER_A,
            BUCKET,
            "positions.csv",
            Upload::new(old.clone()),
        )
        .ok();
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
    s.insert(
        PUBLISHER_B,
        BUCKET,
        "positions.csv",
        Upload::new(new.clone()),
    )
    .ok();
    let tail = range(&s, None, 8..16).unwrap_or_default();
    let stitched = [head.clone(), tail].concat();
    let pinned_tail = range(&s, first.map(|m| m.generation), 8..16);
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

    // ANCHOR: mixed
    // 4. The publisher of run-2 overwrites latest/accounts.csv, then latest/positions.csv.
    //    A consumer reads both between the two uploads.
    let mut s = store();
    let (run1, run2) = (
        dataset(RUN_1).expect("run-1"),
        dataset(RUN_2).expect("run-2"),
    );
    s.insert(
        PUBLISHER_A,
        BUCKET,
        "latest/accounts.csv",
        Upload::new(run1.accounts_csv()),
    )
    .ok();
    s.insert(
        PUBLISHER_A,
        BUCKET,
        "latest/positions.csv",
        Upload::new(run1.positions_csv()),
    )
    .ok();
    s.insert(
        PUBLISHER_A,
        BUCKET,
        "latest/accounts.csv",
        Upload::new(run2.accounts_csv()),
    )
    .ok();
    let accounts_tag = live(&s, "latest/accounts.csv")
        .ok()
        .and_then(|b| parse_accounts(&b).ok())
        .map(|(run, _)| run);
    let positions_tag = live(&s, "latest/positions.csv")
        .ok()
        .and_then(|b| parse_positions(&b).ok())
        .map(|(run, _)| run);
    s.insert(
        PUBLISHER_A,
        BUCKET,
        "latest/positions.csv",
        Upload::new(run2.positions_csv()),
    )
    .ok();
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

    // ANCHOR: conditional_reads
    // 7. A reporting job keeps the manifest it last read, with its generation, and asks
    //    again with `ifGenerationNotMatch` (only if it changed): once before the manifest
    //    is replaced, once after. Then it reads the metadata, someone changes the
    //    Cache-Control, and it fetches the bytes with `ifMetagenerationMatch` set to the
    //    metageneration it read.
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
    // ANCHOR_END: conditional_reads

    obs.finish(
        Some(ObjectStore::sqlite_version().to_string()),
        serde_json::json!({
            "replace_by_object_creator": status(&replaced),
            "approved_and_replacement_generations": [g1, g2],
            "if_generation_not_match": [status(&before_replacement), status(&after_replacement)],
            "if_metageneration_match_after_patch": status(&pinned_to_seen),
            "stitched_read": String::from_utf8_lossy(&stitched),
            "cache": seen
                .iter()
                .map(|(t, layer, d)| format!("t={t} {} {}", if *layer == Layer::Cache { "cache" } else { "origin" }, String::from_utf8_lossy(d)))
                .collect::<Vec<_>>(),
        }),
    )
}
