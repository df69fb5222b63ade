//! Unanswered calls: an append lost before the service, a commit applied with its
//! response lost, a commit request lost, and appends whose response was lost, each
//! followed by what a coordinator or a worker might do next.

use super::{Batch, error_names, rows};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};

/// Two finalized streams whose commit meets `fate` (the service scripted for it): the group.
fn commit_unanswered(b: &mut Batch) -> [String; 2] {
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize");
    b.finalize(&s2).expect("finalize");
    let lost = b.commit(&[s1.clone(), s2.clone()]);
    assert!(lost.is_err_and(|e| e.is_indefinite()), "a scripted fault");
    [s1, s2]
}

/// W2's append never reaches the service; both streams are finalized and committed.
pub fn an_append_lost_before_the_service(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    let (s2, lost) = b.worker_meeting(Fate::NotApplied, "W2", 2, 5);
    assert!(lost.is_err(), "a scripted lost request");
    let row_counts = (b.finalize(&s1), b.finalize(&s2));
    let committed = b.commit(&[s1, s2]).expect("commit");
    obs.ask("In another run W2's append request is lost before it reaches the service, and W2 does not send it again. The coordinator finalizes s1 and s2 and commits [s1, s2]. Does that commit answer with a commit_time?", committed.commit_time.is_some());
    let seen = format!(
        "finalize answered {row_counts:?}; {} rows visible",
        b.visible()
    );
    summary.insert("empty_stream_commit".into(), seen.into());
}

/// The commit is applied, its response lost; the same commit is sent again; then W2's
/// range is written to a new stream committed alone.
pub fn a_lost_commit_response(obs: &mut Observation) {
    let mut b = Batch::with_next_commit(Fate::AppliedResponseLost);
    let group = commit_unanswered(&mut b);
    let retry = b.commit(&group).expect("the retry answers");
    obs.ask("In another run the commit of [s1, s2] is applied but its response is lost, and the coordinator sends the same commit again. Does the second answer carry a commit_time?", retry.commit_time.is_some());
    let s3 = b.worker("W2", 2, 5);
    b.finalize(&s3).expect("finalize");
    b.commit(&[s3]).expect("commit s3");
    obs.ask("After that, the coordinator writes W2's range again into a new stream s3 and commits [s3] alone. Does position 2 appear twice in the table?", b.copies(2) == 2);
}

/// The commit request is lost; the coordinator keeps s1, replaces s2 by s3 and commits
/// [s1, s3]; then the process that sent the lost request sends [s1, s2] again.
pub fn a_lost_commit_request(obs: &mut Observation) {
    let mut b = Batch::with_next_commit(Fate::NotApplied);
    let [s1, s2] = commit_unanswered(&mut b);
    let s3 = b.worker("W2", 2, 5);
    b.finalize(&s3).expect("finalize");
    b.commit(&[s1.clone(), s3]).expect("commit [s1, s3]");
    obs.ask("In another run the commit request is lost before it reaches the service. The coordinator keeps s1, writes W2's range again into a new stream s3 and commits [s1, s3]. Does any position appear twice in the table?", b.most_copies() > 1);
    let stale = b.commit(&[s1, s2]).expect("the stale commit answers");
    let streams = b.visible_streams();
    let letter = match streams.join(" ").as_str() {
        "s1 s2 s3" => "a",
        "s1 s3" => "b",
        "s1 s2" => "c",
        _ => "none of these",
    };
    obs.choose("In the run where the coordinator committed [s1, s3] after a lost request, the process that sent the lost request then sends [s1, s2] again. Which streams' rows does the table show at the end?",
        letter,
        format!(
            "the resent [s1, s2] answered stream_errors {:?}; the table shows the rows of {streams:?}",
            error_names(&stale)
        ),
    );
}

/// An append applied with its response lost: W2 resends it to its stream at offset 0, or
/// (another run) W1 runs the worker code again from the top.
pub fn lost_append_responses(obs: &mut Observation) {
    let mut b = Batch::new();
    b.worker("W1", 0, 2);
    let (s2, lost) = b.worker_meeting(Fate::AppliedResponseLost, "W2", 2, 5);
    assert!(lost.is_err(), "a scripted lost response");
    let resent = b.append(&s2, 0, rows("W2", 2, 5));
    let row_count = b.finalize(&s2).expect("finalize");
    obs.choose("In another run W2's append is applied but its response is lost, and W2 sends the same request again on a new connection, at offset 0 as listed. What does FinalizeWriteStream answer for s2?",
        match row_count {
            3 => "a",
            6 => "b",
            0 => "c",
            1 => "d",
            _ => "none of these",
        },
        format!("the resend answered {resent:?}; FinalizeWriteStream answered {row_count}"),
    );

    let mut b = Batch::new();
    let (first, lost) = b.worker_meeting(Fate::AppliedResponseLost, "W1", 0, 2);
    assert!(lost.is_err(), "a scripted lost response");
    let streams = [first, b.worker("W1", 0, 2), b.worker("W2", 2, 5)];
    for stream in &streams {
        b.finalize(stream).expect("finalize");
    }
    let committed = b.commit(&streams).expect("commit");
    let visible = b.visible();
    obs.choose("In another run W1's append is applied but its response is lost, and W1 runs the worker code again from the top; then W2 runs. The coordinator finalizes and commits every stream the workers created. How many rows does the table show?",
        match visible {
            0 => "a",
            5 => "b",
            7 => "c",
            _ => "none of these",
        },
        format!(
            "the commit of {} streams answered commit_time {:?}; the table shows {visible} rows",
            streams.len(),
            committed.commit_time
        ),
    );
}
