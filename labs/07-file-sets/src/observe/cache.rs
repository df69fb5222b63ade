//! Who answers: a public cache in front of the origin, and what each role may do.

use super::{BUCKET, CREATOR, Facts, PUBLISHER_A, live, put, status, store};
use labkit::Observation;
use serde_json::json;
use sim_storage::{DeleteRequest, ObjectStore, PublicCache, Upload};

/// Uploads the manifest `run` with `Cache-Control: cache_control`.
fn manifest(s: &mut ObjectStore, run: &str, cache_control: &str) {
    let upload = Upload::new(run).cache_control(cache_control);
    s.insert(PUBLISHER_A, BUCKET, "manifest.json", upload).ok();
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
    obs.ask("A manifest with Cache-Control: public, max-age=60 is cached at t = 0 and replaced by run-2 at the origin at t = 10. At t = 10, does an authenticated read at the origin get run-2?", origin_at_10 == b"run-2");
    obs.ask(
        "At t = 10, does an anonymous reader, served by the public cache, get run-2?",
        at(10) == Some("run-2"),
    );
    obs.ask(
        "At t = 60, does the anonymous reader get run-2?",
        at(60) == Some("run-2"),
    );
    // A second reader at t=30: the reporting job, authenticated, at the origin.
    let origin_at_30 =
        String::from_utf8_lossy(&live(&s, "manifest.json").unwrap_or_default()).into_owned();
    obs.ask("At t = 30 the reporting job reads at the origin, the anonymous reader through the cache. Do both get the same run?", at(30) == Some(origin_at_30.as_str()));
    // A variation: the same replacement of a manifest served with `no-store`.
    let mut s = store();
    let mut cache = PublicCache::new();
    manifest(&mut s, "run-1", "no-store");
    anonymous(&mut cache, &s, 0);
    manifest(&mut s, "run-2", "no-store");
    obs.ask("The same, but the manifest has Cache-Control: no-store. Does the anonymous reader get run-2 at t = 10?", anonymous(&mut cache, &s, 10) == "run-2");
    facts.insert("cache".into(), json!(seen));
}

/// A variation: after the reads at 30 and 60, the manifest is replaced again (run-3) at
/// t=65. What does the anonymous reader get at t=70?
pub fn second_replacement(obs: &mut Observation, facts: &mut Facts) {
    let mut s = store();
    let mut cache = PublicCache::new();
    manifest(&mut s, "run-1", "public, max-age=60");
    anonymous(&mut cache, &s, 0);
    manifest(&mut s, "run-2", "public, max-age=60");
    let earlier = [30, 60].map(|t| anonymous(&mut cache, &s, t));
    manifest(&mut s, "run-3", "public, max-age=60");
    let at_70 = anonymous(&mut cache, &s, 70);
    let answer = match at_70.as_str() {
        "run-2" => "a",
        "run-1" => "b",
        "run-3" => "c",
        _ => "?",
    };
    obs.choose("The cached manifest again (run-1 cached at t = 0, run-2 at the origin from t = 10): the anonymous reader reads at t = 30 and 60; run-3 replaces the manifest at t = 65. What does the reader get at t = 70?",
        answer,
        format!("t=30 {}, t=60 {}, t=70 {at_70}", earlier[0], earlier[1]),
    );
    facts.insert("second_replacement_at_70".into(), json!(at_70));
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
    obs.ask("An uploader holds roles/storage.objectCreator on the bucket. Does it manage to replace manifest.json?", replaced.is_ok());
    obs.ask(
        "Does the same uploader manage to create runs/run-3/accounts.csv, a name nobody has used?",
        created.is_ok(),
    );
    obs.ask("Does it then manage to delete that file?", deleted.is_ok());
    obs.ask(
        "Does a list of runs/run-3/ made right after that create show the file?",
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
