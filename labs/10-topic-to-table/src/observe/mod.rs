//! The observe phase: the pipeline run three ways under the same seeded chaos, the
//! hot-row experiment and small experiments on one reader and one commit. Every verdict
//! below is computed from those runs.

mod experiments;
mod page;
mod protocols;

pub use page::signals_page;
pub use protocols::ONE_TRANSACTION;

use crate::scenarios::{Config, Outcome, aborts_with_hot_keys, seeded_run};
use experiments::{offset_after_rollback, reads_while_uncommitted, unavailable_commits_applied};
use labkit::{Observation, Report};
use protocols::{CONSUMER_OFFSET_AT_READ, PRODUCER_OUTSIDE};

/// The seed every observe run uses.
pub const OBSERVE_SEED: u64 = 0xA8C2;

/// The three seeded runs of the observe phase, and the hot-row experiment.
struct Runs {
    outside: Outcome,
    offset_at_read: Outcome,
    one_tx: Outcome,
    aborts_one_row: u64,
    aborts_eight_rows: u64,
}

fn runs() -> Runs {
    let config = Config::CHAOS;
    Runs {
        outside: seeded_run(OBSERVE_SEED, config, PRODUCER_OUTSIDE),
        offset_at_read: seeded_run(OBSERVE_SEED, config, CONSUMER_OFFSET_AT_READ),
        one_tx: seeded_run(OBSERVE_SEED, config, ONE_TRANSACTION),
        aborts_one_row: aborts_with_hot_keys(1, ONE_TRANSACTION),
        aborts_eight_rows: aborts_with_hot_keys(8, ONE_TRANSACTION),
    }
}

fn summary(obs_runs: &Runs) -> serde_json::Value {
    let (one_tx, s) = (&obs_runs.one_tx, &obs_runs.one_tx.signals);
    serde_json::json!({
        "seed": format!("{OBSERVE_SEED:#x}"),
        "lost": s.lost,
        "duplicates": s.app_duplicates,
        "redelivered": s.redelivered,
        "aborts_tli": s.aborts,
        "overloaded": s.overloaded,
        "unavailable": s.unavailable,
        "undetermined": s.undetermined,
        "delivered": s.delivered,
        "e2e_latency_p50_ticks": s.e2e_p50,
        "e2e_latency_p99_ticks": s.e2e_p99,
        "sink_rows_audited": one_tx.audit.rows,
        "producer_outside_tx_lost": obs_runs.outside.signals.lost,
        "offset_at_read_lost": obs_runs.offset_at_read.signals.lost,
        "aborts_1_hot_row": obs_runs.aborts_one_row,
        "aborts_8_hot_rows": obs_runs.aborts_eight_rows,
    })
}

/// The three pipelines under the same seed.
fn pipelines(obs: &mut Observation, r: &Runs) {
    obs.check(
        "a producer that writes outside the table transaction loses no message",
        r.outside.signals.lost == 0 && r.outside.audit.exactly_once(),
    );
    obs.check(
        "a consumer that commits its offset when it reads loses no message",
        r.offset_at_read.signals.lost == 0 && r.offset_at_read.audit.exactly_once(),
    );
    let one_tx = &r.one_tx;
    obs.check(
        "a consumer with the offset and the sink rows in one transaction loses no message",
        one_tx.signals.lost == 0 && one_tx.audit.missing.is_empty(),
    );
}

/// Rollbacks, redeliveries and the reader session.
fn redelivery(obs: &mut Observation, r: &Runs) {
    obs.check(
        "a rolled-back consumer transaction gets the same messages again",
        r.one_tx.signals.redelivered > 0,
    );
    let (first_read, second_read) = reads_while_uncommitted();
    obs.check(
        "a reader session delivers the messages after a batch that is not committed yet",
        match (first_read.last(), second_read.first()) {
            (Some(last), Some(next)) => *next == last + 1,
            _ => false,
        },
    );
    obs.check(
        "a redelivered message is committed to the sink a second time",
        r.one_tx.offsets_fed_twice > 0,
    );
}

/// Lock conflicts, the retry loop and unknown outcomes.
fn conflicts(obs: &mut Observation, r: &Runs) {
    let (one_tx, s) = (&r.one_tx, &r.one_tx.signals);
    obs.check(
        "lock conflicts on hot rows abort transactions",
        s.aborts > 0,
    );
    obs.check(
        "the retry loop absorbs the aborts: every message arrives exactly once",
        s.aborts > 0 && s.lost == 0 && one_tx.audit.exactly_once() && one_tx.drained,
    );
    obs.check(
        "more hot rows cause more aborts",
        r.aborts_eight_rows > r.aborts_one_row,
    );
    obs.check(
        "an aborted producer transaction leaves a gap in its sequence",
        s.aborts > 0 && s.lost > 0,
    );
    let unavailable_applied = unavailable_commits_applied();
    obs.check(
        "a commit that answers UNAVAILABLE applied nothing",
        unavailable_applied.iter().all(|applied| !applied),
    );
}

fn questions(obs: &mut Observation, r: &Runs) {
    let lost = r.one_tx.signals.lost;
    let letter = match lost {
        0 => "a",
        1..=10 => "b",
        _ => "c",
    };
    obs.answer("lost-one-transaction", letter, format!("lost = {lost}"));
    let (one, eight) = (r.aborts_one_row, r.aborts_eight_rows);
    let letter = match eight.cmp(&one) {
        std::cmp::Ordering::Less => "b",
        std::cmp::Ordering::Greater => "a",
        std::cmp::Ordering::Equal => "c",
    };
    obs.answer(
        "hot-rows",
        letter,
        format!("{one} aborts with 1 hot row, {eight} with 8"),
    );
    let (first, again) = offset_after_rollback();
    let letter = match again.cmp(&first) {
        std::cmp::Ordering::Equal => "b",
        std::cmp::Ordering::Greater => "a",
        std::cmp::Ordering::Less => "c",
    };
    obs.answer("after-rollback", letter, format!("{first} then {again}"));
}

/// Runs the observe phase.
pub fn run() -> Report {
    let mut obs = Observation::new("topic-to-table");
    let r = runs();
    pipelines(&mut obs, &r);
    redelivery(&mut obs, &r);
    conflicts(&mut obs, &r);
    questions(&mut obs, &r);
    obs.finish(Some(sim_topic::sqlite_version()), summary(&r))
}
