//! Who answers: a public cache in front of the origin, and what each role may do.

use super::{BUCKET, CREATOR, Facts, PUBLISHER_A, live, put, status, store};
use labkit::Observation;
use serde_json::json;
use sim_storage::{DeleteRequest, ObjectStore, Preconditions, PublicCache, Upload};

const MAX_AGE_60: &str = "public, max-age=60";

/// Uploads the manifest `run` with `Cache-Control: cache_control`; its generation.
fn manifest(s: &mut ObjectStore, run: &str, cache_control: &str) -> Option<i64> {
    let upload = Upload::new(run).cache_control(cache_control);
    let inserted = s.insert(PUBLISHER_A, BUCKET, "manifest.json", upload);
    inserted.ok().map(|meta| meta.generation)
}

/// What an anonymous reader gets through the cache at time `t`.
fn anonymous(cache: &mut PublicCache, s: &ObjectStore, t: u64) -> String {
    match cache.get_media(s, t, BUCKET, "manifest.json") {
        Ok(served) => String::from_utf8_lossy(&served.data).into_owned(),
        Err(e) => e.to_string(),
    }
}

/// The times of the listing's reads in `seen`.
const SEEN: [u64; 4] = [10, 30, 59, 60];

/// 5. A public manifest with `Cache-Control: public, max-age=60`, cached at t=0 and
///    replaced at the origin at t=10. Who answers with which run, at t=10 … 60? And
///    the same reads after a first read 40 s earlier.
pub fn public_cache(facts: &mut Facts) {
    // ANCHOR: cache
    let mut s = store();
    let mut cache = PublicCache::new();
    manifest(&mut s, "run-1", "public, max-age=60");
    anonymous(&mut cache, &s, 0);
    manifest(&mut s, "run-2", "public, max-age=60");
    let origin_at_10 = live(&s, "manifest.json").unwrap_or_default();
    let seen: Vec<(u64, String)> = [10, 30, 59, 60]
        .into_iter()
        .map(|t| (t, anonymous(&mut cache, &s, t)))
        .collect();
    // ANCHOR_END: cache
    // The first read 40 s earlier: the same reads, 40 s later on the cache's clock.
    let (s_earlier, mut cache_earlier, _) = replaced_after_read(0, MAX_AGE_60);
    let later: Vec<u64> = SEEN.iter().map(|t| t + 40).collect();
    let earlier_first = reads(&mut cache_earlier, &s_earlier, &later);
    let origin = String::from_utf8_lossy(&origin_at_10).into_owned();
    facts.insert(
        "cache".into(),
        json!({"seen": seen, "origin_at_10": origin, "first_read_40_s_earlier": earlier_first}),
    );
}

/// The manifest cache listing's start with variations: run-1 read through a new cache
/// at `first_read`, then run-2 uploaded with `cache_control`. The store, the cache and
/// run-1's generation.
fn replaced_after_read(first_read: u64, cache_control: &str) -> (ObjectStore, PublicCache, i64) {
    let mut s = store();
    let mut cache = PublicCache::new();
    let run_1 = manifest(&mut s, "run-1", MAX_AGE_60).unwrap_or(-1);
    anonymous(&mut cache, &s, first_read);
    manifest(&mut s, "run-2", cache_control);
    (s, cache, run_1)
}

/// What the anonymous reader gets at each of `times`, in order.
fn reads(cache: &mut PublicCache, s: &ObjectStore, times: &[u64]) -> Vec<String> {
    times.iter().map(|&t| anonymous(cache, s, t)).collect()
}

/// The listing's reads in `seen`, then run-3 (max-age=60) at t=65 and one more read at
/// t=70; run-2 uploaded with `cache_control`. What the read at t=70 got, and `seen`.
fn run_3_after_seen(cache_control: &str) -> (String, Vec<String>) {
    let (mut s, mut cache, _) = replaced_after_read(0, cache_control);
    let seen = reads(&mut cache, &s, &SEEN);
    manifest(&mut s, "run-3", MAX_AGE_60);
    (anonymous(&mut cache, &s, 70), seen)
}

/// Variations of the listing: the first read 5 s later, run-3 after `seen` (run-2
/// cacheable or `no-store`), and the manifest deleted at the origin at t=40.
pub fn cache_variations(obs: &mut Observation, facts: &mut Facts) {
    let (s, mut cache, _) = replaced_after_read(5, MAX_AGE_60);
    let later_first = reads(&mut cache, &s, &SEEN);
    let run_1 = later_first.iter().filter(|run| *run == "run-1").count();
    let answer = match run_1 {
        0 => "a",
        4 => "b",
        3 => "c",
        _ => "?",
    };
    obs.choose(
        "If the first anonymous read of the manifest cache listing came 5 s later, how many of the reads in `seen` would get run-1?",
        answer,
        format!("with the first read at t = 5, the reads in `seen` got {later_first:?}"),
    );
    let (listed_at_70, _) = run_3_after_seen(MAX_AGE_60);
    let (no_store_at_70, no_store_seen) = run_3_after_seen("no-store");
    let answer = match (listed_at_70.as_str(), no_store_at_70.as_str()) {
        ("run-1", "run-1") => "a",
        ("run-3", "run-3") => "b",
        ("run-2", "run-3") => "c",
        ("run-2", "run-2") => "d",
        _ => "?",
    };
    obs.choose(
        "In the manifest cache listing, run-3, with run-1's Cache-Control, replaces the manifest 5 s after the last read in `seen`, and the anonymous reader reads again 10 s after that last read. Which run does that read get, first as listed, then with run-2 uploaded with Cache-Control: no-store?",
        answer,
        format!("at t = 70: {listed_at_70} as listed, {no_store_at_70} with a no-store run-2"),
    );
    let deleted_at_40 = deleted_at_the_origin(obs);
    facts.insert(
        "cache_variations".into(),
        json!({
            "first_read_at_5": later_first,
            "second_replacement_at_70": listed_at_70,
            "run_2_no_store": {"seen": no_store_seen, "at_70": no_store_at_70},
            "deleted_at_40": deleted_at_40,
        }),
    );
}

/// The listing with the manifest deleted at the origin at t=40: the reads before, at 59
/// and at 60, for the report's details.
fn deleted_at_the_origin(obs: &mut Observation) -> serde_json::Value {
    let (mut s, mut cache, _) = replaced_after_read(0, MAX_AGE_60);
    let before_delete = reads(&mut cache, &s, &SEEN[..2]);
    let any = DeleteRequest::default();
    s.delete(PUBLISHER_A, BUCKET, "manifest.json", any).ok();
    let at_59 = anonymous(&mut cache, &s, 59);
    let at_60 = cache.get_media(&s, 60, BUCKET, "manifest.json");
    obs.ask(
        "In the manifest cache listing, the manifest is deleted at the origin at t = 40. Does the last read in `seen` get a manifest?",
        at_60.is_ok(),
    );
    json!({"before": before_delete, "at_59": at_59, "at_60": status(&at_60)})
}

/// At t=30, the reporting job, holding run-1's generation, asks the origin with
/// `ifGenerationNotMatch`; the anonymous reader asks the cache. (For the report's
/// details.)
pub fn origin_and_cache_at_30(facts: &mut Facts) {
    let (s, mut cache, run_1) = replaced_after_read(0, MAX_AGE_60);
    let pre = Preconditions::generation_not(run_1);
    let job = match s.get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre) {
        Ok((_, data)) => String::from_utf8_lossy(&data).into_owned(),
        Err(e) => e.code().to_string(),
    };
    let reader = reads(&mut cache, &s, &[10, 30])[1].clone();
    facts.insert("origin_and_cache_at_30".into(), json!([job, reader]));
}

/// 6. An uploader with roles/storage.objectCreator tries to replace the manifest,
///    creates a new run's file, lists it, and tries to delete it. Then the same upload
///    of the manifest once the publisher has deleted it.
pub fn uploader_steps(obs: &mut Observation, facts: &mut Facts) {
    let mut s = store();
    put(&mut s, PUBLISHER_A, "manifest.json", b"run-1".to_vec());
    let fix = || Upload::new("hand-fixed");
    let replaced = s.insert(CREATOR, BUCKET, "manifest.json", fix());
    let name = "runs/run-3/accounts.csv";
    let created = s.insert(CREATOR, BUCKET, name, Upload::new("# run=run-3\n"));
    let listed = s.list(CREATOR, BUCKET, "runs/run-3/").map(|l| l.len());
    let deleted = s.delete(CREATOR, BUCKET, name, DeleteRequest::default());
    // The variation: the publisher deletes the manifest just before the upload.
    let mut v = store();
    put(&mut v, PUBLISHER_A, "manifest.json", b"run-1".to_vec());
    let any = DeleteRequest::default();
    v.delete(PUBLISHER_A, BUCKET, "manifest.json", any).ok();
    let into_the_gap = v.insert(CREATOR, BUCKET, "manifest.json", fix());
    obs.ask(
        "In `uploader_steps`, the publisher deletes the manifest just before the uploader's upload of it. Does that upload then succeed?",
        into_the_gap.is_ok(),
    );
    let succeeded = [
        replaced.is_ok(),
        created.is_ok(),
        listed.is_ok(),
        deleted.is_ok(),
    ];
    let answer = match succeeded {
        [false, true, true, false] => "a",
        [false, true, false, false] => "b",
        [true, true, true, false] => "c",
        [false, true, true, true] => "d",
        _ => "?",
    };
    obs.choose(
        "Which of the uploader's requests in `uploader_steps` succeed?",
        answer,
        format!(
            "replace {}, create {}, list {} ({} objects), delete {}",
            status(&replaced),
            status(&created),
            status(&listed),
            listed.as_ref().map_or(0, |n| *n),
            status(&deleted)
        ),
    );
    facts.insert(
        "object_creator".into(),
        json!({
            "replace": status(&replaced),
            "create": status(&created),
            "list": status(&listed),
            "delete": status(&deleted),
            "manifest_after_delete": status(&into_the_gap),
        }),
    );
}
