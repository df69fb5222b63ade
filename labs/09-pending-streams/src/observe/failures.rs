//! Unanswered calls: an append lost before the service, the listed coordinator after a
//! lost commit response or a lost finalize request, a commit request lost, and appends
//! whose response was lost, each followed by what a coordinator or a worker might do next.

use super::{Batch, answered, commit_time_text, error_names, finalized, rows};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::Faults;

/// W2's append never reaches the service; both streams are finalized and committed.
pub fn an_append_lost_before_the_service(summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    let (s2, lost) = b.worker_meeting(Fate::NotApplied, "W2", 2, 5);
    assert!(lost.is_err(), "a scripted lost request");
    let row_counts = (b.finalize(&s1), b.finalize(&s2));
    let committed = b.commit(&[s1, s2]).expect("commit");
    let seen = format!(
        "finalize answered s1: {}, s2: {}; commit_time {}; {} rows visible",
        finalized(&row_counts.0),
        finalized(&row_counts.1),
        commit_time_text(committed.commit_time),
        b.visible()
    );
    summary.insert("empty_stream_commit".into(), seen.into());
}

/// The listed coordinator after a commit applied with its response lost; then (another
/// run) after s2's finalize request was lost.
pub fn the_listed_coordinator(obs: &mut Observation) {
    let mut b = Batch::with_next_commit(Fate::AppliedResponseLost);
    let group = b.both_workers().to_vec();
    b.coordinate(group);
    obs.ask("The coordinator as listed: its first commit of [s1, s2] is applied but the response is lost. Does any row appear twice in the table at the end?", b.most_copies() > 1);

    // The fates in order: W1's append, W2's append, the finalize of s1, that of s2.
    let faults = Faults {
        finalize: &[Fate::Ok, Fate::NotApplied],
        ..Faults::NONE
    };
    let mut b = Batch::with_faults(faults, &[0, 0, 0, 1]);
    let group = b.both_workers().to_vec();
    b.coordinate(group);
    let streams = b.visible_streams();
    obs.choose("The coordinator as listed: its finalize of s1 answers, but the finalize request for s2 is lost before it reaches the service. Which streams' rows does the table show at the end?",
        match streams.join(" ").as_str() {
            "s1 s2" => "a",
            "s1" => "b",
            "s1 s3 s4" => "c",
            "s3 s4" => "d",
            _ => "none of these",
        },
        format!("the table shows the rows of {}", streams.join(", ")),
    );
}

/// The commit request is lost; the coordinator keeps s1, replaces s2 by s3 and commits
/// [s1, s3]; then the process that sent the lost request sends [s1, s2] again.
pub fn a_lost_commit_request(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::with_next_commit(Fate::NotApplied);
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize");
    b.finalize(&s2).expect("finalize");
    let lost = b.commit(&[s1.clone(), s2.clone()]);
    assert!(lost.is_err_and(|e| e.is_indefinite()), "a scripted fault");
    let s3 = b.worker("W2", 2, 5);
    b.finalize(&s3).expect("finalize");
    b.commit(&[s1.clone(), s3]).expect("commit [s1, s3]");
    let copies = b.most_copies();
    let stale = b.commit(&[s1, s2]).expect("the stale commit answers");
    obs.ask("In another run the commit request is lost before it reaches the service. The coordinator keeps s1, has W2 write its range again into a new stream, finalizes that stream and commits it with s1; then the process that sent the lost request sends [s1, s2] again. Does any row appear twice in the table?", b.most_copies() > 1);
    summary.insert(
        "replacement_after_a_lost_commit_request".into(),
        format!(
            "[s1, s3]: the most copies of one row: {copies}; the stale [s1, s2] answered stream_errors {}; the table shows the rows of {}",
            error_names(&stale),
            b.visible_streams().join(", ")
        )
        .into(),
    );
}

/// An append applied with its response lost: W2 resends it to its stream at offset 0, or
/// (another run) W1 runs the worker code again.
pub fn lost_append_responses(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    b.worker("W1", 0, 2);
    let (s2, lost) = b.worker_meeting(Fate::AppliedResponseLost, "W2", 2, 5);
    assert!(lost.is_err(), "a scripted lost response");
    let resent = b.append(&s2, 0, rows("W2", 2, 5));
    let row_count = b.finalize(&s2).expect("finalize");
    summary.insert(
        "w2_resent_at_0_then_finalized".into(),
        format!(
            "the resend answered {}; FinalizeWriteStream answered row_count {row_count}",
            answered(&resent)
        )
        .into(),
    );
    w1_runs_again(obs, summary);
    w2_runs_again(obs);
}

/// W2's append is applied with its response lost and W2 runs the worker code again; the
/// coordinator finalizes every stream and commits them all in one group.
fn w2_runs_again(obs: &mut Observation) {
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    let (s2, lost) = b.worker_meeting(Fate::AppliedResponseLost, "W2", 2, 5);
    assert!(lost.is_err(), "a scripted lost response");
    let s3 = b.worker("W2", 2, 5);
    let group = [s1, s2, s3];
    for stream in &group {
        b.finalize(stream).expect("finalize");
    }
    let answer = b.commit(&group).expect("commit every stream");
    let rows = b.visible();
    let letter = match rows {
        5 => "a",
        7 => "b",
        8 => "c",
        10 => "d",
        _ => "none of these",
    };
    obs.choose("In another run W2's append is applied but its response is lost, and W2 runs the worker code again. The coordinator finalizes every stream the workers created and commits them all in one group. How many rows does a query return?",
        letter,
        format!(
            "the commit answered stream_errors {}; a query returns {rows} rows",
            error_names(&answer)
        ),
    );
}

/// W1's append is applied with its response lost and W1 runs the worker code again, then
/// W2 runs: the coordinator commits [s1, s2], or (another run) every stream.
fn w1_runs_again(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let (mut b, streams) = w1_twice_then_w2();
    b.commit(&streams[..2]).expect("commit [s1, s2]");
    let rows = b.visible();
    let letter = match rows {
        4 => "a",
        5 => "b",
        6 => "c",
        7 => "d",
        _ => "none of these",
    };
    obs.choose("In another run W1's append is applied but its response is lost, and W1 runs the worker code again; then W2 runs. The coordinator finalizes s1 and s2 and commits [s1, s2]. How many rows does a query return?",
        letter,
        format!(
            "a query returns {rows} rows; W2's rows: {}",
            if b.shows_any(2, 5) { "shown" } else { "not shown" }
        ),
    );

    let (mut b, streams) = w1_twice_then_w2();
    b.commit(&streams).expect("commit every stream");
    summary.insert(
        "rows_after_committing_every_stream_of_w1_twice".into(),
        b.visible().into(),
    );
}

/// W1's append applied with its response lost, W1's worker code run again, then W2's:
/// the batch and the three streams, finalized.
fn w1_twice_then_w2() -> (Batch, [String; 3]) {
    let mut b = Batch::new();
    let (first, lost) = b.worker_meeting(Fate::AppliedResponseLost, "W1", 0, 2);
    assert!(lost.is_err(), "a scripted lost response");
    let streams = [first, b.worker("W1", 0, 2), b.worker("W2", 2, 5)];
    for stream in &streams {
        b.finalize(stream).expect("finalize");
    }
    (b, streams)
}
