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

/// 5. A public manifest with `Cache-Control: public, max-age=60`, cached at t=0 and
///    replaced at the origin at t=10. Who answers with which run, at t=10 … 60?
pub fn public_cache(obs: &mut Observation, facts: &mut Facts) {
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
    let at = |t: u64| {
        seen.iter()
            .find(|(at, _)| *at == t)
            .map(|(_, run)| run.as_str())
    };
    obs.ask(
        "In the manifest cache listing, do the anonymous reads at t = 10 and t = 59 get the same run?",
        at(10).is_some() && at(10) == at(59),
    );
    let origin = String::from_utf8_lossy(&origin_at_10).into_owned();
    obs.ask(
        "In the manifest cache listing, does the anonymous read at t = 60 get the run `origin_at_10` holds?",
        at(60) == Some(origin.as_str()),
    );
    facts.insert("cache".into(), json!(seen));
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

/// Variations of the listing: the first read later, run-2 with `no-store`, and the
/// manifest deleted at the origin at t=40.
pub fn cache_variations(obs: &mut Observation, facts: &mut Facts) {
    let (s, mut cache, _) = replaced_after_read(5, MAX_AGE_60);
    let later_first = reads(&mut cache, &s, &[10, 30, 59, 60]);
    obs.ask(
        "If the manifest cache listing's first anonymous read came at t = 5 instead of t = 0, would its read at t = 60 get run-2?",
        later_first[3] == "run-2",
    );
    let (s, mut cache, _) = replaced_after_read(0, "no-store");
    let no_store = reads(&mut cache, &s, &[10, 30, 59, 60]);
    obs.ask(
        "In the manifest cache listing, run-2 is uploaded with Cache-Control: no-store. Does the anonymous read at t = 30 get run-2?",
        no_store[1] == "run-2",
    );
    let (mut s, mut cache, _) = replaced_after_read(0, MAX_AGE_60);
    let before_delete = reads(&mut cache, &s, &[10, 30]);
    let any = DeleteRequest::default();
    s.delete(PUBLISHER_A, BUCKET, "manifest.json", any).ok();
    let at_59 = cache.get_media(&s, 59, BUCKET, "manifest.json");
    let at_60 = anonymous(&mut cache, &s, 60);
    obs.ask(
        "In the manifest cache listing, the manifest is deleted at the origin at t = 40. Does the anonymous read at t = 59 get a manifest?",
        at_59.is_ok(),
    );
    facts.insert(
        "cache_variations".into(),
        json!({
            "first_read_at_5": later_first,
            "run_2_no_store": no_store,
            "deleted_at_40": {"before": before_delete, "at_59": status(&at_59), "at_60": at_60},
        }),
    );
}

/// A variation: after the reads at 30 and 60, the manifest is replaced again (run-3) at
/// t=65. What does the anonymous reader get at t=70?
pub fn second_replacement(obs: &mut Observation, facts: &mut Facts) {
    let (mut s, mut cache, _) = replaced_after_read(0, MAX_AGE_60);
    let earlier = reads(&mut cache, &s, &[30, 60]);
    manifest(&mut s, "run-3", MAX_AGE_60);
    let at_70 = anonymous(&mut cache, &s, 70);
    let answer = match at_70.as_str() {
        "run-2" => "a",
        "run-1" => "b",
        "run-3" => "c",
        _ => "?",
    };
    obs.choose(
        "The manifest cache listing goes on: run-3 replaces the manifest at the origin at t = 65, and the anonymous reader reads again at t = 70. What does it get?",
        answer,
        format!("t=30 {}, t=60 {}, t=70 {at_70}", earlier[0], earlier[1]),
    );
    facts.insert("second_replacement_at_70".into(), json!(at_70));
}

/// A variation: at t=30, the reporting job, holding run-1's generation, asks the origin
/// with `ifGenerationNotMatch`; the anonymous reader asks the cache.
pub fn origin_and_cache_at_30(obs: &mut Observation, facts: &mut Facts) {
    let (s, mut cache, run_1) = replaced_after_read(0, MAX_AGE_60);
    let pre = Preconditions::generation_not(run_1);
    let job = match s.get_media(PUBLISHER_A, BUCKET, "manifest.json", None, None, pre) {
        Ok((_, data)) => String::from_utf8_lossy(&data).into_owned(),
        Err(e) => e.code().to_string(),
    };
    let reader = reads(&mut cache, &s, &[10, 30])[1].clone();
    let answer = match (job.as_str(), reader.as_str()) {
        ("304", "run-1") => "a",
        ("run-2", "run-2") => "b",
        ("run-2", "run-1") => "c",
        ("304", "run-2") => "d",
        _ => "?",
    };
    obs.choose(
        "At t = 30 in the manifest cache listing, the reporting job, holding run-1's generation g, asks the origin with ifGenerationNotMatch=g, and an anonymous reader asks the cache. What do they get?",
        answer,
        format!("the job got {job}, the anonymous reader {reader}"),
    );
    facts.insert("origin_and_cache_at_30".into(), json!([job, reader]));
}

/// 6. An uploader with roles/storage.objectCreator tries to replace the manifest,
///    creates a new run's file, and tries to delete it; the file is listed right after
///    its upload.
pub fn creator_and_listing(obs: &mut Observation, facts: &mut Facts) {
    let mut s = store();
    put(&mut s, PUBLISHER_A, "manifest.json", b"run-1".to_vec());
    let fix = Upload::new("hand-fixed");
    let replaced = s.insert(CREATOR, BUCKET, "manifest.json", fix);
    let name = "runs/run-3/accounts.csv";
    let created = s.insert(CREATOR, BUCKET, name, Upload::new("# run=run-3\n"));
    let listed = s.list(PUBLISHER_A, BUCKET, "runs/run-3/").map(|l| l.len());
    let deleted = s.delete(CREATOR, BUCKET, name, DeleteRequest::default());
    obs.ask(
        "In `creator_and_listing`, does the uploader manage to replace the manifest?",
        replaced.is_ok(),
    );
    obs.ask(
        "In `creator_and_listing`, does the uploader manage to delete the file it created?",
        deleted.is_ok(),
    );
    obs.ask(
        "In `creator_and_listing`, does the list made right after the create show the new file?",
        listed == Ok(1),
    );
    facts.insert(
        "object_creator".into(),
        json!({
            "replace": status(&replaced),
            "create": status(&created),
            "delete": status(&deleted),
        }),
    );
}
