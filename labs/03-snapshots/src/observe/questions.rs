//! The multiple-choice questions, answered from the observe phase's measurements.

use super::Observed;
use super::spanner::{Read, last_unit_twice, shown};
use labkit::Observation;
use sim_spanner::{Code, IsolationLevel};

pub(super) fn questions(obs: &mut Observation, o: &Observed) {
    let (d, v) = (&o.decisions, &o.variations);
    let rows = v.both_begin_first_rows.join(", ");
    obs.choose("Suppose both `BEGIN`s in `separate_check` moved out of the loop to just before each request's read (A begins and reads, then B begins and reads), the stock were two units, and a request whose write is refused rolled back. Whose reservation rows would the table end with?",
        match rows.as_str() {
            "B" => "a",
            "A" => "b",
            "A, B" => "c",
            _ => "d",
        },
        format!("reservation rows: [{rows}], for 2 units"),
    );
    let codes = [
        d.deferred_insert_code,
        d.statement_retry_code,
        d.second_immediate_code,
    ];
    let refused = codes.iter().flatten().count();
    obs.choose(
        "In `deferred_then_write` as listed, how many statements are refused, counting both connections?",
        ["?", "a", "b", "c", "d"][refused],
        format!("A's INSERT, the same INSERT again, B's BEGIN IMMEDIATE: {codes:?}"),
    );
    let codes = v.half_done_codes;
    obs.choose("Change `deferred_then_write` so that B has run only its `BEGIN IMMEDIATE` and its INSERT when A tries its INSERT; then B finishes and commits, and A tries the same INSERT again. What do A's two tries get?",
        match codes {
            (Some(5), None) => "a",
            (Some(5), Some(517)) => "b",
            (Some(517), Some(517)) => "c",
            (Some(5), Some(5)) => "d",
            _ => "?",
        },
        format!("A's INSERTs got {codes:?}"),
    );
    report_questions(obs, o);
    spanner_questions(obs, o);
}

fn report_questions(obs: &mut Observation, o: &Observed) {
    let r = &o.reports;
    let codes = r.early_audit;
    obs.choose("Suppose the open transaction in `report` inserted the number its first read returned into an audit table, right after that read. What would that INSERT and B2's `reserve_whole` get?",
        match codes {
            (None, Some(5)) => "a",
            (Some(517), None) => "b",
            (None, None) => "c",
            (Some(5), None) => "d",
            _ => "?",
        },
        format!("the INSERT, then B2: {codes:?}"),
    );
}

fn spanner_questions(obs: &mut Observation, o: &Observed) {
    let s = &o.spanner;
    let reads = [
        &s.strong_right_after,
        &s.stale_right_after,
        &s.snapshot_opened_before,
        &s.stale_later,
        &s.hour_old,
        &s.future,
    ];
    let showing = reads.iter().filter(|read| ***read == Ok(true)).count();
    obs.choose(
        "How many of the reads in the Spanner listing show B2?",
        match showing {
            2 => "a",
            3 => "b",
            4 => "c",
            5 => "d",
            _ => "?",
        },
        reads.map(shown).join("; "),
    );
    let read: &Read = &s.stale_snapshot_until_hour_old.1;
    obs.choose("A read-only transaction with the listing's `stale` bound opens at the point of `stale_later` and reads B2 then; at the point of `hour_old` it reads B2 again. What does that second read get?",
        match read {
            Ok(true) => "a",
            Ok(false) => "b",
            Err(Code::FailedPrecondition) => "d",
            Err(_) => "c",
        },
        format!(
            "first read: {}; second read: {}",
            shown(&s.stale_snapshot_until_hour_old.0),
            shown(read)
        ),
    );
    let serializable = last_unit_twice(IsolationLevel::Serializable).join(", ");
    let repeatable = last_unit_twice(IsolationLevel::RepeatableRead).join(", ");
    obs.choose("Variation: on Spanner, with a stock of one, A and B each run a read-write transaction that counts the item's reservations and inserts its own row if there is none; A reads, B reads, A commits, B commits. Whose rows does the table end with, at the default isolation and at REPEATABLE_READ?",
        match (serializable.as_str(), repeatable.as_str()) {
            ("A", "A") => "a",
            ("A, B", "A, B") => "b",
            ("A", "A, B") => "c",
            ("A, B", "A") => "d",
            _ => "?",
        },
        format!("default: [{serializable}]; REPEATABLE_READ: [{repeatable}]"),
    );
}
