//! The multiple-choice questions, answered from the observe phase's measurements.

use super::Observed;
use super::spanner::{Read, shown};
use labkit::Observation;
use sim_spanner::Code;

type Codes = (Option<i32>, Option<i32>);

/// Two tries of one statement, as the options of the questions about them spell them.
fn two_tries(codes: Codes) -> &'static str {
    match codes {
        (Some(5), None) => "a",
        (Some(5), Some(517)) => "b",
        (Some(517), Some(517)) => "c",
        (Some(5), Some(5)) => "d",
        _ => "?",
    }
}

pub(super) fn questions(obs: &mut Observation, o: &Observed) {
    let v = &o.variations;
    let codes = v.a_locks_first_b_inserts;
    obs.choose("Suppose A's `BEGIN` in `separate_check` moved out of the loop to just before `available(&a)`, as `BEGIN IMMEDIATE`, and B, refused, tried its INSERT again right after A's COMMIT, in the same transaction. What do B's two tries get?",
        two_tries(codes),
        format!("B's INSERTs got {codes:?}"),
    );
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
    let codes = v.half_done_codes;
    obs.choose("Change `deferred_then_write` so that B has run only its `BEGIN IMMEDIATE` and its INSERT when A tries its INSERT; then B finishes and commits, and A tries the same INSERT again. What do A's two tries get?",
        two_tries(codes),
        format!("A's INSERTs got {codes:?}"),
    );
    audit(obs, o);
    spanner(obs, o);
}

/// The report's audit row, right after its first read and right after its second.
fn audit(obs: &mut Observation, o: &Observed) {
    let (early, late) = (o.reports.early_audit, o.reports.late_audit);
    obs.choose("Suppose `report`'s open transaction inserted a row into an audit table, in one run right after its first read and in another right after its second, everything else as listed. What do the audit INSERT and B2's reservation each get in each run, the INSERT's answer first?",
        match (early, late) {
            ((None, None), (None, None)) => "a",
            ((None, Some(5)), (Some(517), None)) => "b",
            ((None, Some(5)), (None, Some(5))) => "c",
            ((Some(517), None), (Some(517), None)) => "d",
            _ => "?",
        },
        format!("after the first read: {early:?}; after the second: {late:?}"),
    );
}

fn spanner(obs: &mut Observation, o: &Observed) {
    let s = &o.spanner;
    let reads = [
        &s.strong_right_after,
        &s.stale_right_after,
        &s.snapshot_opened_before,
        &s.stale_again,
        &s.at_commit,
        &s.future,
    ];
    let showing = reads.iter().filter(|read| ***read == Ok(true)).count();
    obs.choose(
        "Of the six reads of B2 in `spanner` as listed, how many show it?",
        match showing {
            1 => "a",
            2 => "b",
            3 => "c",
            4 => "d",
            _ => "?",
        },
        format!("{showing} of the six reads show B2"),
    );
    let (first, second): &(Read, Read) = &s.stale_snapshot_reads;
    obs.choose("A read-only transaction with the listing's `stale` bound opens at the point of `stale_again` and reads B2 then; it reads B2 again 60 minutes and 3 seconds after B2's commit. What do its two reads get?",
        match (first, second) {
            (Ok(false), Ok(false)) => "a",
            (Ok(true), Err(Code::FailedPrecondition)) => "b",
            (Ok(false), Err(Code::FailedPrecondition)) => "c",
            (Ok(true), Ok(true)) => "d",
            _ => "?",
        },
        format!("first read: {}; second read: {}", shown(first), shown(second)),
    );
}
