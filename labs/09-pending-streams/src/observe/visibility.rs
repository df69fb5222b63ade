//! What a query sees before the commit, resends inside the workers' open streams, and a
//! group with one stream that is not finalized, committed in parts.

use super::{Batch, answered, commit_time_text, error_names, finalized, rows};
use labkit::Observation;
use serde_json::{Map, Value};
use sim_writeapi::{Code, Status};

/// Appends and finalizations without a commit; then, in another run, each worker sends
/// its range again at offset 2 of its own stream.
pub fn before_the_commit(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    let row_counts = (b.finalize(&s1), b.finalize(&s2));
    summary.insert("rows_visible_after_finalize".into(), b.visible().into());
    summary.insert(
        "finalize_row_counts".into(),
        format!(
            "s1: {}; s2: {}",
            finalized(&row_counts.0),
            finalized(&row_counts.1)
        )
        .into(),
    );

    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    let w1 = b.append(&s1, 2, rows("W1", 0, 2));
    let w2 = b.append(&s2, 2, rows("W2", 2, 5));
    let code = |r: &Result<(), Status>| r.as_ref().err().map(|e| e.code);
    let letter = match (code(&w1), code(&w2)) {
        (Some(Code::AlreadyExists), None) => "a",
        (None, None) => "b",
        (None, Some(Code::AlreadyExists)) => "c",
        (Some(Code::AlreadyExists), Some(Code::AlreadyExists)) => "d",
        _ => "none of these",
    };
    let evidence = format!(
        "W1's range at offset 2 of s1: {}; W2's range at offset 2 of s2: {}",
        answered(&w1),
        answered(&w2)
    );
    obs.choose("In another run, before anything is finalized, each worker sends its whole range a second time to its own stream, at offset 2. What do the two resends answer?", letter, evidence);
    summary.insert("w1_range_at_offset_2".into(), answered(&w1).into());
    summary.insert("w2_range_at_offset_2".into(), answered(&w2).into());
}

/// s1 finalized, s2 not, and the group committed; then [s1] alone; then the group again,
/// once s2 is finalized.
pub fn one_unfinalized_stream(summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize s1");
    let first = b.commit(&[s1.clone(), s2.clone()]).expect("commit");
    summary.insert(
        "stream_errors".into(),
        format!(
            "{}; commit_time of s1 afterwards: {}",
            error_names(&first),
            commit_time_text(b.commit_time(&s1))
        )
        .into(),
    );
    b.commit(std::slice::from_ref(&s1)).expect("commit s1");
    b.finalize(&s2).expect("finalize s2");
    let group = b.commit(&[s1, s2]).expect("commit the group");
    summary.insert("w2_rows_after_s1_alone".into(), b.shows_any(2, 5).into());
    let errors = error_names(&group);
    summary.insert("group_after_s1_alone".into(), errors.into());
}
