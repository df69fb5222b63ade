//! The multiple-choice questions, answered from the observe phase's measurements.

use super::Observed;
use super::spanner::{Read, shown};
use labkit::Observation;
use sim_spanner::Code;

pub(super) fn questions(obs: &mut Observation, o: &Observed) {
    let d = &o.decisions;
    let (rows, available) = (
        d.rows_after_separate_checks,
        d.available_after_separate_checks,
    );
    obs.choose("One unit left. Requests A and B each read the availability, then each writes a reservation and the availability it computed, in a transaction of its own. What do the tables hold afterwards?",
        match (rows, available) {
            (1, 0) => "a",
            (2, -1) => "b",
            (2, 0) => "c",
            (0, _) => "d",
            _ => "?",
        },
        format!("{rows} reservation rows for 1 unit, available {available}"),
    );
    let (rows, available) = d.three_requests;
    obs.choose("Two units left. Three requests each read the availability before any of them writes; then each writes its reservation and the availability it read minus one. What do the tables hold afterwards?",
        match (rows, available) {
            (2, 0) => "a",
            (3, 1) => "b",
            (3, -1) => "c",
            (2, 1) => "d",
            _ => "?",
        },
        format!("{rows} rows, available {available}"),
    );
    let (first, second, third) = o.reports.three_readings;
    obs.choose("Ten units. A read transaction reads the availability; B3 and B4 each reserve a unit and commit; the transaction reads the reserved units and commits; a new transaction reads the availability. Which three numbers does the report see?",
        match (first, second, third) {
            (10, 0, 8) => "a",
            (10, 2, 8) => "b",
            (8, 2, 8) => "c",
            (10, 0, 10) => "d",
            _ => "?",
        },
        format!("{first}, {second}, {third}"),
    );
    obs.choose("B reads inside BEGIN DEFERRED. Then A runs BEGIN IMMEDIATE and reads, and has neither written nor committed when B tries to INSERT (busy_timeout zero). What does B get?",
        match d.write_while_lock_held {
            Some(5) => "a",
            Some(517) => "b",
            None => "c",
            Some(_) => "d",
        },
        format!("B's INSERT got {:?}", d.write_while_lock_held),
    );
    spanner_questions(obs, o);
}

fn spanner_questions(obs: &mut Observation, o: &Observed) {
    let s = &o.spanner;
    obs.choose("On Spanner, a single read asks for a read timestamp 10 seconds in the future. What happens?",
        match (&s.future, s.future_waited) {
            (Err(_), _) => "a",
            (Ok(_), 0) => "b",
            (Ok(_), 10) => "d",
            (Ok(_), _) => "c",
        },
        format!(
            "the read {} after {} s on the clock",
            shown(&s.future),
            s.future_waited
        ),
    );
    let read: &Read = &s.half_hour_stale_an_hour_later;
    obs.choose("Sixty-one minutes after B2 committed on Spanner, a read-only transaction with 30 minutes of exact staleness reads B2. What does it get?",
        match read {
            Err(Code::FailedPrecondition) => "a",
            Ok(true) => "b",
            Ok(false) => "c",
            Err(_) => "d",
        },
        format!("the read {}", shown(read)),
    );
}
