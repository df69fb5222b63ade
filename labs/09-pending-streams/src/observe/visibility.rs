//! What a query sees before and after the batch commit, and a group with one stream that
//! is not finalized.

use super::{Batch, error_names, rows};
use labkit::Observation;
use serde_json::{Map, Value};
use sim_writeapi::StorageErrorCode;

/// Appends, finalize, a late append, the commit: what the table shows after each.
pub fn invisible_until_the_commit(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    obs.check("pending rows are visible after the append", b.visible() > 0);
    let row_counts = (b.finalize(&s1), b.finalize(&s2));
    obs.check("finalize publishes the rows", b.visible() > 0);
    let late = b.append(&s1, 2, rows("W1", 9, 10));
    obs.check(
        "a finalized stream refuses further appends",
        late.is_err_and(|e| e.storage == Some(StorageErrorCode::StreamFinalized)),
    );
    let committed = b.commit(&[s1, s2]).expect("commit");
    obs.check(
        "after the batch commit every stream's rows are visible",
        committed.stream_errors.is_empty() && b.visible() == 5,
    );
    let finalized = format!("{row_counts:?}");
    summary.insert("finalize_row_counts".into(), finalized.into());
    let time = format!("{:?}", committed.commit_time);
    summary.insert("commit_time".into(), time.into());
}

/// W2's stream is not finalized when the group is committed; then it is, and the same
/// group is committed again.
pub fn one_unfinalized_stream(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize W1");
    let group = [s1, s2.clone()];
    let refused = b.commit(&group).expect("commit");
    obs.check(
        "a commit with one unfinalized stream commits the others",
        b.visible() > 0,
    );
    obs.check(
        "a commit with stream errors returns a commit time",
        !refused.stream_errors.is_empty() && refused.commit_time.is_some(),
    );
    let errors = format!("{:?}", error_names(&refused));
    summary.insert("stream_errors".into(), errors.into());
    // The variation: finalize W2's stream, then commit the same group again.
    b.finalize(&s2).expect("finalize W2");
    let again = b.commit(&group).expect("commit again");
    let visible = b.visible();
    obs.answer(
        "commit-after-stream-errors",
        match visible {
            0 => "a",
            2 => "b",
            5 => "c",
            _ => "d",
        },
        format!(
            "the first commit answered {:?}; after W2's finalize the same commit answered commit_time {:?}, and the table shows {visible} rows",
            error_names(&refused),
            again.commit_time
        ),
    );
}
