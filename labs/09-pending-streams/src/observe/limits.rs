//! How long a pending stream may wait, on the fault core's logical clock (one tick per
//! simulated second).

use super::{Batch, error_names};
use labkit::Observation;
use serde_json::{Map, Value};
use sim_writeapi::{FINALIZED_BUFFER_LIMIT, HOUR, StorageErrorCode};

/// A commit five hours after finalize; a stream left open for 22 hours; two streams
/// finalized three hours apart.
pub fn the_time_limits(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    b.finalize(&s1).expect("finalize");
    b.sim.advance(5 * HOUR);
    let late = b.commit(std::slice::from_ref(&s1)).expect("commit");
    obs.ask("W1's stream is finalized and committed five simulated hours later. Is the commit accepted?", late.stream_errors.is_empty());
    let hours = FINALIZED_BUFFER_LIMIT / HOUR;
    summary.insert("finalized_buffer_limit_hours".into(), hours.into());

    // Created, left open for 22 hours, finalized, committed three hours later.
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    b.sim.advance(22 * HOUR);
    b.finalize(&s1).expect("finalize");
    b.sim.advance(3 * HOUR);
    let day_old = b.commit(std::slice::from_ref(&s1)).expect("commit");
    obs.ask("W1's stream is created, left open for 22 hours, then finalized, and committed three hours later, 25 hours after its creation. Is the commit accepted?", day_old.stream_errors.is_empty());

    // W1 finalized at hour 0, W2 at hour 3, the group committed at hour 5.
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize W1");
    b.sim.advance(3 * HOUR);
    b.finalize(&s2).expect("finalize W2");
    b.sim.advance(2 * HOUR);
    let staggered = b.commit(&[s1.clone(), s2]).expect("commit");
    let refused: Vec<&String> = staggered.stream_errors.iter().map(|e| &e.entity).collect();
    let expired = staggered
        .stream_errors
        .iter()
        .all(|e| e.code == StorageErrorCode::InvalidStreamState);
    let letter = match (staggered.commit_time, b.visible(), refused.as_slice()) {
        (Some(_), 5, _) => "a",
        (None, 0, [only]) if **only == s1 && expired => "b",
        (Some(_), _, _) => "c",
        _ => "d",
    };
    obs.choose("W1's stream is finalized at hour 0, W2's at hour 3, and the group is committed at hour 5. What does the commit answer?",
        letter,
        format!(
            "the commit answered commit_time {:?} and stream_errors {:?} ({} of them); the table shows {} rows",
            staggered.commit_time,
            error_names(&staggered),
            refused.len(),
            b.visible()
        ),
    );
}
