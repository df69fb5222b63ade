//! Two objects: a publisher replaces a set file by file, and a consumer reads the set
//! between two of its uploads, or through the public cache.

use super::{BUCKET, Facts, PUBLISHER_A, live, put, store};
use crate::world::{RUN_1, RUN_2, dataset, parse_accounts, parse_positions, report, run_tag};
use labkit::Observation;
use serde_json::json;
use sim_storage::{ObjectStore, PublicCache};

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

/// 4. The publisher of run-2 overwrites latest/positions.csv, then latest/accounts.csv;
///    a consumer reads both between the two uploads and computes its report.
pub fn mixed_runs(obs: &mut Observation, facts: &mut Facts) {
    let run2 = dataset(RUN_2).expect("run-2");
    // ANCHOR: mixed
    let mut s = run_1_published();
    put(&mut s, PUBLISHER_A, POSITIONS, run2.positions_csv());
    let (accounts_run, positions_run, computed) = consumer_reads(&s);
    put(&mut s, PUBLISHER_A, ACCOUNTS, run2.accounts_csv());
    // ANCHOR_END: mixed
    let answer = match (accounts_run.as_deref(), positions_run.as_deref()) {
        (Some(RUN_2), Some(RUN_1)) => "a",
        (Some(RUN_1), Some(RUN_2)) => "b",
        (Some(RUN_1), Some(RUN_1)) => "c",
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

/// The run tags of the two files, read anonymously through `cache` at time `t`.
fn through_cache(cache: &mut PublicCache, s: &ObjectStore, t: u64) -> [Option<String>; 2] {
    [ACCOUNTS, POSITIONS].map(|name| {
        let served = cache.get_media(s, t, BUCKET, name);
        served.ok().and_then(|served| run_tag(&served.data))
    })
}

/// A variation: the consumer of the listing reads through the public cache (the files
/// carry no Cache-Control), and another reader goes through the cache a minute after
/// the second upload.
pub fn cached_set(obs: &mut Observation, facts: &mut Facts) {
    let run2 = dataset(RUN_2).expect("run-2");
    let mut s = run_1_published();
    let mut cache = PublicCache::new();
    put(&mut s, PUBLISHER_A, POSITIONS, run2.positions_csv());
    let consumer = through_cache(&mut cache, &s, 0);
    put(&mut s, PUBLISHER_A, ACCOUNTS, run2.accounts_csv());
    let [accounts_run, positions_run] = through_cache(&mut cache, &s, 60);
    let answer = match (accounts_run.as_deref(), positions_run.as_deref()) {
        (Some(RUN_1), Some(RUN_1)) => "a",
        (Some(RUN_2), Some(RUN_2)) => "b",
        (Some(RUN_2), Some(RUN_1)) => "c",
        (Some(RUN_1), Some(RUN_2)) => "d",
        _ => "?",
    };
    obs.choose(
        "In the latest/ listing, the consumer reads both files through the public cache instead, which held no copy of them. Which runs does a reader that goes through the cache a minute after the second upload get?",
        answer,
        format!(
            "a minute later the cache served accounts of {}, positions of {}",
            accounts_run.as_deref().unwrap_or("no run"),
            positions_run.as_deref().unwrap_or("no run")
        ),
    );
    facts.insert(
        "cached_set".into(),
        json!({"consumer": consumer, "a_minute_later": [accounts_run, positions_run]}),
    );
}

/// A variation: the publisher uploads the two files in the other order; the consumer
/// reads between the two uploads again.
pub fn reversed_uploads(facts: &mut Facts) {
    let run2 = dataset(RUN_2).expect("run-2");
    let mut s = run_1_published();
    put(&mut s, PUBLISHER_A, ACCOUNTS, run2.accounts_csv());
    let (accounts_run, positions_run, _) = consumer_reads(&s);
    facts.insert(
        "reversed_uploads".into(),
        json!([accounts_run, positions_run]),
    );
}
