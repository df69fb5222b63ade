//! Variations of section 3, each on a lab of its own: a lost request, a relay that marks
//! first (alone, then two at once), a receiver that forgets.

use super::lab::{LabError, OutboxLab, Result, is};
use super::variants::{SECTION_3, after_section_2};
use labkit::Observation;

pub fn observe(obs: &mut Observation) -> Result<()> {
    request_then_response_lost(obs)?;
    marked_first(obs)?;
    two_relays_marking_first(obs)?;
    receiver_restarts(obs)
}

/// Section 3: the first run loses the request, the second the response.
fn request_then_response_lost(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let first = lab.relay_losing_the_request("S1");
    let second = lab.relay("S1", true);
    let third = lab.relay("S1", false);
    let calls = lab.receiver.calls.len();
    let answer = match (&third, calls) {
        (Ok("applied"), 3) => "a",
        (Ok("existing"), 3) => "b",
        (Ok("applied"), 2) => "c",
        (Ok("existing"), 2) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: section 3's first run loses its request on the way to the receiver, and its second run loses its response. What does its third run return, and how many calls has the receiver logged by then?",
        answer,
        format!("the runs returned {first:?}, {second:?}, {third:?}; {calls} call(s)"),
    );
    Ok(())
}

/// Section 3, with its faults, run by a relay that marks S1 sent before it calls.
fn marked_first(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let runs: Vec<_> = (SECTION_3.into_iter())
        .map(|lose_response| lab.relay_marking_first("S1", lose_response))
        .collect();
    let held = lab.receiver.effects.contains_key("S1");
    let calls = lab.receiver.calls.len();
    let answer = match (held, calls) {
        (false, 1) => "a",
        (true, 1) => "b",
        (true, 2) => "c",
        (false, 0) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: section 3 runs with a relay that marks S1 sent before it calls the receiver, under section 3's faults as listed. After section 3, does the receiver hold S1, and how many times was it called?",
        answer,
        format!("the runs returned {runs:?}; the receiver holds S1: {held}; {calls} call(s)"),
    );
    Ok(())
}

/// Two relays that mark first both read S9 as unsent; then each marks and calls.
fn two_relays_marking_first(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    lab.enqueue("S9", 120, false)?;
    let (first_read, second_read) = (lab.read_unsent("S9")?, lab.read_unsent("S9")?);
    let mut answers = Vec::new();
    for read in [first_read, second_read] {
        answers.push(match read {
            Some(amount) => lab.mark_and_deliver("S9", amount),
            None => Ok("no call"),
        });
    }
    let collision = is(&answers[1], |e| matches!(e, LabError::ReceiverCollision));
    let answer = match (&answers[0], &answers[1]) {
        (Ok("applied"), Ok("no call")) => "a",
        (Ok("applied"), Ok("applied")) => "b",
        (Ok("applied"), Ok("existing")) => "c",
        (Ok("applied"), _) if collision => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: two relays that mark an intent sent before they call both read S9 as unsent before either marks it; then each marks and calls. What do their calls get?",
        answer,
        format!(
            "the relays got {answers:?}; {} effect(s)",
            lab.receiver.effects.len()
        ),
    );
    Ok(())
}

/// Section 3; the receiver keeps its effects in memory and restarts between the first
/// and the second run.
fn receiver_restarts(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let _ = lab.relay("S1", true);
    let before_restart = std::mem::take(&mut lab.receiver);
    let second = lab.relay("S1", false);
    let third = lab.relay("S1", false);
    let payments = [&before_restart, &lab.receiver]
        .iter()
        .filter(|receiver| receiver.effects.contains_key("S1"))
        .count();
    let answer = match (&second, payments) {
        (Ok("applied"), 2) => "a",
        (Ok("existing"), 1) => "b",
        (Ok("already-sent"), 1) => "c",
        (Ok("applied"), 1) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: the receiver restarts, losing its memory, between section 3's first and second runs. What does the second run return, and how many payments for S1 exist after section 3?",
        answer,
        format!("the second run returned {second:?}, the third {third:?}; {payments} payment(s)"),
    );
    Ok(())
}
