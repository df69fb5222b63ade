//! How long a pending stream may wait, on the fault core's logical clock (one tick per
//! simulated second), alone and together with an unanswered call.

use super::{Batch, TABLE, error_names};
use labkit::Observation;
use labkit::fault::{Fate, Sim};
use serde_json::{Map, Value};
use sim_writeapi::{FINALIZED_BUFFER_LIMIT, Faults, HOUR, WriteApi, short};

/// Both streams finalized; their commit, `hours_before` later, meets `fate`; `hours_after`
/// later the same commit is sent again. Returns the batch and the second answer.
fn commit_again_later(fate: Fate, hours_before: u64, hours_after: u64) -> (Batch, bool) {
    let mut b = Batch::with_next_commit(fate);
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize");
    b.finalize(&s2).expect("finalize");
    b.sim.advance(hours_before * HOUR);
    let group = [s1, s2];
    let lost = b.commit(&group);
    assert!(lost.is_err_and(|e| e.is_indefinite()), "a scripted fault");
    b.sim.advance(hours_after * HOUR);
    let accepted = b.commit(&group).expect("the second commit answers");
    (b, accepted.stream_errors.is_empty())
}

/// A service whose first `FinalizeWriteStream` after the two workers' appends (the
/// third call with a fate) is applied and its response lost.
fn with_a_lost_finalize_response() -> Batch {
    let faults = Faults {
        finalize: &[Fate::Ok, Fate::AppliedResponseLost],
        ..Faults::NONE
    };
    Batch {
        api: WriteApi::new(&[TABLE]).with_faults(faults),
        sim: Sim::replaying(&[0, 0, 1]),
    }
}

/// Unanswered calls against the clock: a lost request, a lost response, a lost finalize
/// response.
pub fn the_time_limits(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let (_, accepted) = commit_again_later(Fate::NotApplied, 3, 2);
    obs.ask("In another run the commit request is lost before it reaches the service, 3 hours after both finalizations. The coordinator's next process starts 2 hours later, finds no commit_time on s1 or s2, and sends the same commit. Is it accepted?", accepted);
    let (b, _) = commit_again_later(Fate::AppliedResponseLost, 1, 5);
    obs.ask("In another run the commit, sent one hour after both finalizations, is applied but its response is lost. The next process starts 5 hours later and sends the same commit again. Are all of W1's and W2's rows visible after it?", b.shows(0, 5) && b.most_copies() == 1);

    let mut b = with_a_lost_finalize_response();
    let [s1, s2] = b.both_workers();
    assert!(b.finalize(&s2).is_err(), "a scripted lost response");
    b.sim.advance(4 * HOUR + HOUR / 2);
    b.finalize(&s1).expect("finalize s1");
    b.finalize(&s2).expect("finalize s2 again");
    let late = b.commit(&[s1, s2]).expect("commit");
    obs.ask("In another run the coordinator's FinalizeWriteStream on s2 is applied but its response is lost. Four and a half hours later it finalizes s1, finalizes s2 again (which answers a row count) and commits [s1, s2]. Is that commit refused?", !late.stream_errors.is_empty());
    let hours = FINALIZED_BUFFER_LIMIT / HOUR;
    summary.insert("finalized_buffer_limit_hours".into(), hours.into());
    two_clocks(obs);
    staggered_finalize(obs);
}

/// The short names of the streams a commit's answer reports errors for.
fn streams_in_errors(b: &mut Batch, group: &[String]) -> (Vec<String>, String) {
    let answer = b.commit(group).expect("commit");
    let names = (answer.stream_errors.iter())
        .map(|e| short(&e.entity).to_string())
        .collect();
    let seen = format!(
        "commit_time {:?}, stream_errors {:?}; the table shows {} rows",
        answer.commit_time,
        error_names(&answer),
        b.visible()
    );
    (names, seen)
}

/// s1 created at hour 0 and finalized at 21, s2 created at 19 and finalized at 20, the
/// group committed at 24.5.
fn two_clocks(obs: &mut Observation) {
    let mut b = Batch::new();
    let s1 = b.worker("W1", 0, 2);
    b.sim.advance(19 * HOUR);
    let s2 = b.worker("W2", 2, 5);
    b.sim.advance(HOUR);
    b.finalize(&s2).expect("finalize s2");
    b.sim.advance(HOUR);
    b.finalize(&s1).expect("finalize s1");
    b.sim.advance(3 * HOUR + HOUR / 2);
    let (names, seen) = streams_in_errors(&mut b, &[s1, s2]);
    obs.choose("In another run s1 is created at hour 0 and finalized at hour 21, s2 is created at hour 19 and finalized at hour 20, and the coordinator commits [s1, s2] at hour 24.5. Which streams does the answer's stream_errors name?",
        match names.join(" ").as_str() {
            "" => "a",
            "s1" => "b",
            "s2" => "c",
            "s1 s2" => "d",
            _ => "none of these",
        },
        seen,
    );
}

/// s1 finalized at hour 0, s2 at hour 3, the group committed at hour 5.
fn staggered_finalize(obs: &mut Observation) {
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize s1");
    b.sim.advance(3 * HOUR);
    b.finalize(&s2).expect("finalize s2");
    b.sim.advance(2 * HOUR);
    let (names, seen) = streams_in_errors(&mut b, &[s1, s2]);
    let letter = match (names.join(" ").as_str(), b.visible()) {
        ("s1", 0) => "a",
        ("", 5) => "b",
        ("", _) => "c",
        ("s1 s2", 0) => "d",
        _ => "none of these",
    };
    obs.choose("In another run s1 is finalized at hour 0, s2 at hour 3, and the coordinator commits [s1, s2] at hour 5. What does the commit answer?", letter, seen);
}
