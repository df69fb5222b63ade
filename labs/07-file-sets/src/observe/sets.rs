//! Two objects: a publisher replaces a set file by file, and a consumer reads the set
//! between two of its uploads.

use super::{Facts, PUBLISHER_A, live, put, store};
use crate::world::{RUN_1, RUN_2, dataset, parse_accounts, parse_positions, report, run_tag};
use labkit::Observation;
use serde_json::json;
use sim_storage::ObjectStore;

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
    obs.ask("A publisher overwrites latest/accounts.csv, then latest/positions.csv, with run-2; a consumer reads both in between. Do its two files carry the same run?", accounts_run.is_some() && accounts_run == positions_run);
    let answer = match computed.as_str() {
        "2 accounts, 3 positions, total 170" => "a",
        "3 accounts, 4 positions, total 190" => "b",
        "no report" => "c",
        "3 accounts, 3 positions, total 170" => "d",
        _ => "?",
    };
    obs.choose("The consumer that read between run-2's two uploads computes its report from the two files it read. What does the report say?",
        answer,
        format!(
            "accounts of {}, positions of {}: {computed}",
            accounts_run.as_deref().unwrap_or("no run"),
            positions_run.as_deref().unwrap_or("no run")
        ),
    );
    facts.insert("mixed_report".into(), json!(computed));
}

/// A variation: the publisher uploads positions first, then accounts; the consumer reads
/// between the two uploads again.
pub fn reversed_uploads(obs: &mut Observation, facts: &mut Facts) {
    let run2 = dataset(RUN_2).expect("run-2");
    let mut s = run_1_published();
    put(&mut s, PUBLISHER_A, POSITIONS, run2.positions_csv());
    let (accounts_run, positions_run, _) = consumer_reads(&s);
    let answer = match (accounts_run.as_deref(), positions_run.as_deref()) {
        (Some(RUN_1), Some(RUN_1)) => "a",
        (Some(RUN_1), Some(RUN_2)) => "b",
        (Some(RUN_2), Some(RUN_1)) => "c",
        (Some(RUN_2), Some(RUN_2)) => "d",
        _ => "?",
    };
    obs.choose("The publisher now uploads latest/positions.csv first, then latest/accounts.csv, with run-2; the consumer reads both files between the two uploads. Which runs do its files carry?",
        answer,
        format!(
            "accounts tagged {}, positions tagged {}",
            accounts_run.as_deref().unwrap_or("no run"),
            positions_run.as_deref().unwrap_or("no run")
        ),
    );
    facts.insert(
        "reversed_uploads".into(),
        json!([accounts_run, positions_run]),
    );
}
