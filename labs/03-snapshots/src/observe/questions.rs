//! The multiple-choice questions, answered from the observe phase's measurements.

use super::Observed;
use super::spanner::{Read, shown};
use labkit::Observation;
use sim_spanner::Code;

pub(super) fn questions(obs: &mut Observation, o: &Observed) {
    let v = &o.variations;
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
        match codes {
            (Some(5), None) => "a",
            (Some(5), Some(517)) => "b",
            (Some(517), Some(517)) => "c",
            (Some(5), Some(5)) => "d",
            _ => "?",
        },
        format!("A's INSERTs got {codes:?}"),
    );
    let s = &o.spanner;
    let read: &Read = &s.stale_snapshot_until_61min_on.1;
    obs.choose("A read-only transaction with the listing's `stale` bound opens at the point of `stale_20s_on` and reads B2 then; at the point of `at_commit_61min_on` it reads B2 again. What does that second read get?",
        match read {
            Ok(true) => "a",
            Ok(false) => "b",
            Err(Code::FailedPrecondition) => "d",
            Err(_) => "c",
        },
        format!(
            "first read: {}; second read: {}",
            shown(&s.stale_snapshot_until_61min_on.0),
            shown(read)
        ),
    );
}
