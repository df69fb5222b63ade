//! Variations of section 3, each on a fresh lab: more lost responses, a lost request, a
//! relay that marks first (alone, then two at once), the lost response on another run, a
//! receiver that forgets.

use super::lab::{LabError, OutboxLab, Result, is};
use super::variants::after_section_2;
use labkit::Observation;

fn enqueued(order_id: &str) -> Result<OutboxLab> {
    let mut lab = OutboxLab::new()?;
    lab.enqueue(order_id, 120, false)?;
    Ok(lab)
}

pub fn observe(obs: &mut Observation) -> Result<()> {
    lost_twice(obs)?;
    request_then_response_lost(obs)?;
    marked_first(obs)?;
    two_relays_marking_first(obs)?;
    lost_on_the_second_run(obs)?;
    receiver_restarts(obs)
}

/// Four relay runs for S5; the responses of the first two are lost.
fn lost_twice(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S5")?;
    let mut last = Ok("none");
    for lose_response in [true, true, false, false] {
        last = lab.relay("S5", lose_response);
    }
    let calls = lab.receiver.calls.len();
    let answer = match (calls, &last) {
        (3, Ok("already-sent")) => "a",
        (4, Ok("existing")) => "b",
        (1, Ok("already-sent")) => "c",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, the relay runs S5 four times; the first two runs lose their responses. How many calls does the receiver log, and what does the fourth run return?",
        answer,
        format!("{calls} call(s); the fourth run returned {last:?}"),
    );
    Ok(())
}

/// S6: the first run loses the request, the second the response, the third gets through.
fn request_then_response_lost(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S6")?;
    let first = lab.relay_losing_the_request("S6");
    let second = lab.relay("S6", true);
    let third = lab.relay("S6", false);
    let calls = lab.receiver.calls.len();
    let answer = match (&third, calls) {
        (Ok("applied"), 3) => "a",
        (Ok("existing"), 3) => "b",
        (Ok("applied"), 2) => "c",
        (Ok("existing"), 2) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, S6's first run loses the request, its second run loses the response, and its third gets through. What does the third run return, and how many calls does the receiver log?",
        answer,
        format!("the runs returned {first:?}, {second:?}, {third:?}; {calls} call(s)"),
    );
    Ok(())
}

/// A relay marks S7 sent before it calls, and the request is lost; the listed relay runs.
fn marked_first(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S7")?;
    let lost = lab.relay_marking_first("S7", true);
    let next = lab.relay("S7", false);
    let effects = lab.receiver.effects.len();
    let answer = match (&next, effects) {
        (Ok("applied"), 1) => "a",
        (Ok("already-sent"), 0) => "b",
        (Ok("already-sent"), 1) => "c",
        (Ok("existing"), _) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, a relay that marks S7 sent before it calls loses the request (a timeout, no crash). What does the next run of the relay as listed do with S7?",
        answer,
        format!("the marking relay returned {lost:?}; the next run {next:?}; {effects} effect(s)"),
    );
    Ok(())
}

/// Two relays that mark first both read S9 as unsent; then each marks and calls.
fn two_relays_marking_first(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S9")?;
    let (first_read, second_read) = (lab.read_unsent("S9")?, lab.read_unsent("S9")?);
    let mut answers = Vec::new();
    for read in [first_read, second_read] {
        answers.push(match read {
            Some(amount) => lab.mark_and_deliver("S9", amount),
            None => Ok("no call"),
        });
    }
    let effects = lab.receiver.effects.len();
    let answer = match (&answers[0], &answers[1], effects) {
        (Ok("applied"), Ok("no call"), _) => "a",
        (Ok("applied"), Ok("applied"), 2) => "b",
        (Ok("applied"), Ok("existing"), 1) => "c",
        (Ok("applied"), Err(LabError::ReceiverCollision), _) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: two relays that mark first (as in the previous variation, without losses) both read S9 as unsent before either marks; then each marks and calls. What do their calls get?",
        answer,
        format!("the relays got {answers:?}; {effects} effect(s)"),
    );
    Ok(())
}

/// Section 3 on a fresh lab, with the lost response on its second run.
fn lost_on_the_second_run(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let runs: Vec<_> = [false, true, false]
        .into_iter()
        .map(|lose_response| lab.relay("S1", lose_response))
        .collect();
    let timeout = |r: &Result<&str>| is(r, |e| matches!(e, LabError::Timeout));
    let answer = match (&runs[0], &runs[1], &runs[2]) {
        (Ok("applied"), Ok("already-sent"), Ok("already-sent")) => "a",
        (Ok("applied"), second, Ok("existing")) if timeout(second) => "b",
        (Ok("applied"), second, Ok("already-sent")) if timeout(second) => "c",
        _ => "?",
    };
    obs.choose(
        "Variation: section 3 runs on a database of its own, with the lost response on its second run instead of its first. What do its three runs return?",
        answer,
        format!("the runs returned {runs:?}"),
    );
    Ok(())
}

/// Section 3 on a fresh lab; the receiver keeps its effects in memory and restarts
/// between the second and the third run.
fn receiver_restarts(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let _ = lab.relay("S1", true);
    lab.relay("S1", false)?;
    let before_restart = std::mem::take(&mut lab.receiver);
    let third = lab.relay("S1", false);
    let payments = before_restart.effects.len() + lab.receiver.effects.len();
    let answer = match (&third, payments) {
        (Ok("applied"), 2) => "a",
        (Ok("existing"), 1) => "b",
        (Err(LabError::ReceiverCollision), _) => "c",
        (Ok("already-sent"), 1) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: section 3 runs as listed on a database of its own, but the receiver restarts (losing its memory) between the second and third runs. What does the third run return, and how many payments exist for S1?",
        answer,
        format!("the third run returned {third:?}; {payments} payment(s) for S1"),
    );
    Ok(())
}
