//! Two objects: a publisher replaces a set file by file, and a consumer reads the set
//! between two of its uploads, or through the public cache.

use super::{BUCKET, Facts, PUBLISHER_A, live, put, store};
use crate::world::{RUN_1, RUN_2, dataset, parse_accounts, parse_positions, report, run_tag};
use labkit::Observation;
use serde_json::json;
use sim_storage::{ObjectStore, PublicCache, Upload};

const ACCOUNTS: &str = "latest/accounts.csv";
const POSITIONS: &str = "latest/positions.csv";

/// The store after run-1's two files were uploaded to `latest/…`.
fn run_1_published() -> ObjectStore {
    let mut s = store();
    let run1 = dataset(RUN_1).expect("run-1");
    put(&mut s, PUBLISHER_A, ACCOUNTS, run1.accounts_csv());
    put(&mut s, PUBLISHER_A, POSITIONS, run1.positions_csv());
    s
}

/// What a consumer reads now: the run tags of the two files, and its report.
fn consumer_reads(s: &ObjectStore) -> (Option<String>, Option<String>, String) {
    let accounts = live(s, ACCOUNTS).unwrap_or_default();
    let positions = live(s, POSITIONS).unwrap_or_default();
    let computed = match (parse_accounts(&accounts), parse_positions(&positions)) {
        (Ok((run, a)), Ok((_, p))) => {
            let r = report(&run, &a, &p);
            format!(
                "{} accounts, {} positions, total {}",
                r.accounts, r.positions, r.total_quantity
            )
        }
        _ => "no report".to_string(),
    };
    (run_tag(&accounts), run_tag(&positions), computed)
}

/// 4. The publisher of run-2 overwrites latest/accounts.csv, then latest/positions.csv;
///    a consumer reads both between the two uploads and computes its report.
pub fn mixed_runs(obs: &mut Observation, facts: &mut Facts) {
    let run2 = dataset(RUN_2).expect("run-2");
    // ANCHOR: mixed
    let mut s = run_1_published();
    put(&mut s, PUBLISHER_A, ACCOUNTS, run2.accounts_csv());
    let (accounts_run, positions_run, computed) = consumer_reads(&s);
    put(&mut s, PUBLISHER_A, POSITIONS, run2.positions_csv());
    // ANCHOR_END: mixed
    let answer = match (accounts_run.as_deref(), positions_run.as_deref()) {
        (Some(RUN_1), Some(RUN_2)) => "a",
        (Some(RUN_1), Some(RUN_1)) => "b",
        (Some(RUN_2), Some(RUN_1)) => "c",
        (Some(RUN_2), Some(RUN_2)) => "d",
        _ => "?",
    };
    obs.choose(
        "Which files does the consumer in the latest/ listing compute its report from?",
        answer,
        format!(
            "accounts of {}, positions of {}: {computed}",
            accounts_run.as_deref().unwrap_or("no run"),
            positions_run.as_deref().unwrap_or("no run")
        ),
    );
    facts.insert("mixed_report".into(), json!(computed));
}

/// Uploads `csv` to `name`, served with `Cache-Control: public, max-age=60`.
fn upload_cached(s: &mut ObjectStore, name: &str, csv: Vec<u8>) {
    let upload = Upload::new(csv).cache_control("public, max-age=60");
    s.insert(PUBLISHER_A, BUCKET, name, upload).ok();
}

/// A variation: the files are served with `max-age=60`, and a reader fetched accounts
/// through the public cache before the first upload and positions after the second.
pub fn cached_set(obs: &mut Observation, facts: &mut Facts) {
    let (run1, run2) = (
        dataset(RUN_1).expect("run-1"),
        dataset(RUN_2).expect("run-2"),
    );
    let mut s = store();
    let mut cache = PublicCache::new();
    upload_cached(&mut s, ACCOUNTS, run1.accounts_csv());
    upload_cached(&mut s, POSITIONS, run1.positions_csv());
    cache.get_media(&s, 0, BUCKET, ACCOUNTS).ok();
    upload_cached(&mut s, ACCOUNTS, run2.accounts_csv());
    upload_cached(&mut s, POSITIONS, run2.positions_csv());
    cache.get_media(&s, 5, BUCKET, POSITIONS).ok();
    let mut tag_at_15 = |name: &str| {
        let served = cache.get_media(&s, 15, BUCKET, name);
        served.ok().and_then(|served| run_tag(&served.data))
    };
    let (accounts_run, positions_run) = (tag_at_15(ACCOUNTS), tag_at_15(POSITIONS));
    obs.ask(
        "The latest/ listing's files are served with Cache-Control: public, max-age=60. Through the public cache, one reader fetches accounts.csv at t = 0, before the first upload, and positions.csv at t = 5, after the second. At t = 15 another reads both through the cache. Do its two files carry the same run?",
        accounts_run.is_some() && accounts_run == positions_run,
    );
    facts.insert("cached_set".into(), json!([accounts_run, positions_run]));
}

/// A variation: the publisher uploads positions first, then accounts; the consumer reads
/// between the two uploads again.
pub fn reversed_uploads(obs: &mut Observation, facts: &mut Facts) {
    let run2 = dataset(RUN_2).expect("run-2");
    let mut s = run_1_published();
    put(&mut s, PUBLISHER_A, POSITIONS, run2.positions_csv());
    let (accounts_run, positions_run, _) = consumer_reads(&s);
    obs.ask(
        "In the latest/ listing with the two uploads swapped (positions.csv first), does the consumer get run-2's accounts?",
        accounts_run.as_deref() == Some(RUN_2),
    );
    facts.insert(
        "reversed_uploads".into(),
        json!([accounts_run, positions_run]),
    );
}
