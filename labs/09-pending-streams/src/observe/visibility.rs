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
    obs.ask("W1 and W2 have each appended their rows to their own PENDING stream, and nothing else has happened yet. Does a query of `daily` return any row?", b.visible() > 0);
    let row_counts = (b.finalize(&s1), b.finalize(&s2));
    obs.ask("Both streams are then finalized (FinalizeWriteStream answers 2 and 3). Does the query return any row now?", b.visible() > 0);
    let late = b.append(&s1, 2, rows("W1", 9, 10));
    obs.ask(
        "W1 sends one more row, at offset 2, to its finalized stream. Is that append refused?",
        late.is_err_and(|e| e.storage == Some(StorageErrorCode::StreamFinalized)),
    );
    let committed = b.commit(&[s1, s2]).expect("commit");
    obs.ask("The coordinator commits both streams with one BatchCommitWriteStreams. Does the query now return all five rows?", committed.stream_errors.is_empty() && b.visible() == 5);
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
    obs.ask("In a second run only W1's stream is finalized when the coordinator commits the group. Are W1's two rows visible afterwards?", b.visible() > 0);
    obs.ask(
        "Does the response to that commit lack a commit_time?",
        refused.commit_time.is_none(),
    );
    let errors = format!("{:?}", error_names(&refused));
    summary.insert("stream_errors".into(), errors.into());
    // The variation: finalize W2's stream, then commit the same group again.
    b.finalize(&s2).expect("finalize W2");
    let again = b.commit(&group).expect("commit again");
    let visible = b.visible();
    obs.choose("In the second run (W2's stream not finalized, the commit refused), the coordinator finalizes W2's stream and commits the same two streams again. How many rows does the table show then?",
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
