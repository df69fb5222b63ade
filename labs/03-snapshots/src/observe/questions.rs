//! The multiple-choice questions, answered from the observe phase's measurements.

use super::Observed;
use super::spanner::{Read, shown};
use labkit::Observation;
use sim_spanner::Code;

pub(super) fn questions(obs: &mut Observation, o: &Observed) {
    let (v, r) = (&o.variations, &o.reports);
    let rows = v.deferred_requests_rows;
    obs.choose("Wrap each request of `separate_check` in `BEGIN DEFERRED` from before its read to its COMMIT, with two units and a third request C that reads after A and B and writes last; each request commits if its writes succeed and rolls back otherwise. How many reservation rows does the table hold afterwards?",
        match rows {
            3 => "a",
            2 => "b",
            1 => "c",
            _ => "d",
        },
        format!("reservation rows: {rows}, for 2 units"),
    );
    let codes = v.half_done_codes;
    obs.choose("Change `deferred_then_write` so that B has run only `BEGIN IMMEDIATE` and its INSERT when A tries its first INSERT; then B finishes and commits, and A runs the INSERT once more. What do A's two INSERTs get?",
        match codes {
            (Some(5), Some(517)) => "a",
            (Some(5), None) => "b",
            (Some(517), Some(517)) => "c",
            (Some(5), Some(5)) => "d",
            _ => "?",
        },
        format!("A's INSERTs got {codes:?}"),
    );
    let reads = r.snapshot_reads;
    obs.choose("In `report` as listed, what does `snapshot_reads` hold: the open transaction's availability and reserved units?",
        match reads {
            (10, 0) => "a",
            (9, 1) => "b",
            (9, 2) => "c",
            (8, 2) => "d",
            _ => "?",
        },
        format!("{reads:?}"),
    );
    let total = r.swapped_reads_total;
    obs.choose("Suppose the autocommit half of `report` read the reserved units first and the availability second, B1's reservation still between the two reads. What would its total be?",
        match total {
            11 => "a",
            10 => "b",
            9 => "d",
            _ => "c",
        },
        format!("total {total}"),
    );
    spanner_questions(obs, o);
}

fn spanner_questions(obs: &mut Observation, o: &Observed) {
    let s = &o.spanner;
    let right_after = [
        &s.strong_right_after,
        &s.stale_right_after,
        &s.snapshot_opened_before,
    ];
    obs.choose("In the Spanner listing, which of the three reads made right after B2's commit (`strong_right_after`, `stale_right_after`, `in_snapshot`) show B2?",
        match right_after.map(|read| *read == Ok(true)) {
            [true, true, true] => "a",
            [true, false, false] => "b",
            [true, false, true] => "c",
            [true, true, false] => "d",
            _ => "?",
        },
        format!(
            "strong: {}; stale: {}; in the snapshot: {}",
            shown(right_after[0]),
            shown(right_after[1]),
            shown(right_after[2])
        ),
    );
    let read: &Read = &s.snapshot_at_the_end;
    obs.choose("In the Spanner listing, the read-only `snapshot` reads B2 once more after the listing's last read. What does it get?",
        match read {
            Ok(false) => "a",
            Ok(true) => "b",
            Err(Code::FailedPrecondition) => "c",
            Err(_) => "d",
        },
        format!("the read {}", shown(read)),
    );
}
