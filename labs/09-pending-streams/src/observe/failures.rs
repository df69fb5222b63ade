//! Unanswered commits: a response lost after the commit was applied, a request lost
//! before it was, and replacement streams.

use super::{Batch, error_names};
use labkit::Observation;
use labkit::fault::Fate;
use sim_writeapi::{BatchCommitWriteStreamsResponse, StorageError, StorageErrorCode};

/// Two finalized streams whose commit is applied and its response lost.
fn committed_without_a_response(b: &mut Batch) -> ([String; 2], u64) {
    let [s1, s2] = b.both_workers();
    let row_count = b.finalize(&s1).expect("finalize");
    b.finalize(&s2).expect("finalize");
    let lost = b.commit(&[s1.clone(), s2.clone()]);
    assert!(
        lost.is_err_and(|e| e.is_indefinite()),
        "a scripted lost response"
    );
    ([s1, s2], row_count)
}

/// The commit is applied, its response lost; the same commit is sent again.
pub fn a_lost_commit_response(obs: &mut Observation) {
    let mut b = Batch::with_next_commit(Fate::AppliedResponseLost);
    let (group, row_count_before) = committed_without_a_response(&mut b);
    obs.ask("In a third run the commit's response is lost: the coordinator sees DEADLINE_EXCEEDED. Are the five rows visible?", b.visible() == 5);
    let retry = b.commit(&group);
    let visible_after_retry = b.visible();
    obs.ask("The coordinator sends the same BatchCommitWriteStreams again. Does the table show more than five rows afterwards?", visible_after_retry > 5);
    let first_time = b.api.get_write_stream(&group[0]).expect("get").commit_time;
    let already = |r: &BatchCommitWriteStreamsResponse| {
        let code = |e: &StorageError| e.code == StorageErrorCode::StreamAlreadyCommitted;
        !r.stream_errors.is_empty() && r.stream_errors.iter().all(code)
    };
    let letter = match &retry {
        Err(_) => "a",
        Ok(r) if r.commit_time.is_some() && r.commit_time != first_time => "b",
        Ok(r) if r.commit_time.is_some() => "d",
        Ok(r) if already(r) => "c",
        Ok(_) => "none of these",
    };
    let seen = match &retry {
        Ok(r) => format!(
            "commit_time {:?}, stream_errors {:?}",
            r.commit_time,
            error_names(r)
        ),
        Err(e) => e.to_string(),
    };
    obs.choose("In the third run (commit applied, response lost) the coordinator sends the same BatchCommitWriteStreams again. What does it get back?",
        letter,
        format!("the retry answered {seen}; the table shows {visible_after_retry} rows"),
    );
    // Which call tells the coordinator that the group was committed?
    let finalize_again = b.finalize(&group[0]).ok();
    let finalize_tells = finalize_again != Some(row_count_before);
    let letter = match (first_time.is_some(), finalize_tells) {
        (true, _) => "a",
        (false, true) => "b",
        (false, false) => "c",
    };
    obs.choose("After that lost response, which call tells the coordinator whether the group was committed?",
        letter,
        format!("GetWriteStream shows commit_time {first_time:?}; FinalizeWriteStream answered row_count {row_count_before} before the commit and {finalize_again:?} after it"),
    );
}

/// After the lost response: new streams for both ranges; then, in another run, a new
/// stream for W2's range only.
pub fn replacement_streams(obs: &mut Observation) {
    let mut b = Batch::with_next_commit(Fate::AppliedResponseLost);
    committed_without_a_response(&mut b);
    let [r1, r2] = b.both_workers();
    b.finalize(&r1).expect("finalize");
    b.finalize(&r2).expect("finalize");
    let replaced = b.commit(&[r1, r2]).expect("commit replacements");
    obs.ask("In a fourth run, after the same lost response, the coordinator creates two new streams, appends W1's and W2's ranges to them, finalizes and commits them. Does some source position appear twice in the table?", replaced.stream_errors.is_empty() && b.most_copies() == 2);
    // The variation: keep W1's stream, replace W2's only.
    let mut b = Batch::with_next_commit(Fate::AppliedResponseLost);
    let ([s1, _], _) = committed_without_a_response(&mut b);
    let s3 = b.worker("W2", 2, 5);
    b.finalize(&s3).expect("finalize");
    let mixed = b.commit(&[s1, s3]).expect("commit");
    let visible = b.visible();
    obs.choose("After the lost response (the group [s1, s2] was committed), the coordinator keeps s1 but replaces W2's stream: it appends W2's range to a new stream s3, finalizes it and commits [s1, s3]. How many rows does the table show?",
        match visible {
            8 => "a",
            5 => "b",
            10 => "c",
            _ => "d",
        },
        format!(
            "the commit of [s1, s3] answered stream_errors {:?}; the table shows {visible} rows",
            error_names(&mixed)
        ),
    );
}

/// The commit request is lost before the service applies it.
pub fn a_commit_lost_before_it_was_applied(obs: &mut Observation) {
    let mut b = Batch::with_next_commit(Fate::NotApplied);
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize");
    b.finalize(&s2).expect("finalize");
    let group = [s1, s2];
    let lost = b.commit(&group);
    let seen: Vec<Option<u64>> = (group.iter())
        .map(|s| b.api.get_write_stream(s).expect("get").commit_time)
        .collect();
    obs.choose("In the fifth run (the commit request lost before it reached the service) a new coordinator process finds COMMITTING in its journal and calls GetWriteStream on s1 and s2. What does it see?",
        match seen.as_slice() {
            [None, None] => "a",
            [Some(_), Some(_)] => "b",
            [Some(_), None] => "c",
            _ => "d",
        },
        format!(
            "the commit answered {}; GetWriteStream shows commit_time {seen:?}",
            lost.map_or_else(|e| e.to_string(), |_| "a response".into())
        ),
    );
    let again = b.commit(&group).expect("commit again");
    obs.ask("In a fifth run the commit request is lost before it reaches the service (DEADLINE_EXCEEDED, nothing committed). The coordinator sends the same commit again. Are the five rows visible after it?", again.stream_errors.is_empty() && b.visible() == 5);
}
