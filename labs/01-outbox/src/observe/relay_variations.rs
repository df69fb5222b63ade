//! Variations of section 3, each on a lab of its own: a lost request (with the relay as
//! listed and with one that marks first), two relays that mark first, a receiver that
//! forgets; and section 1's call moved after COMMIT, asked here.

use super::lab::{LabError, OutboxLab, Result, is};
use super::variants::{SECTION_3, after_section_2, section_4};
use labkit::Observation;

pub fn observe(obs: &mut Observation) -> Result<()> {
    request_lost(obs)?;
    super::unsafe_attempt::call_after_the_commit(obs)?;
    two_relays_marking_first(obs)?;
    receiver_restarts(obs)
}

/// Sections 3 and 4, section 3's first run losing its request: the calls the receiver
/// logged, with the relay as listed and with one that marks first.
fn request_lost(obs: &mut Observation) -> Result<()> {
    let mut listed = after_section_2()?;
    let _ = listed.relay_losing_the_request("S1");
    for lose_response in &SECTION_3[1..] {
        let _ = listed.relay("S1", *lose_response);
    }
    let listed_direct = section_4(&mut listed, OutboxLab::relay)?;
    let mut marking = after_section_2()?;
    let _ = marking.relay_marking_first_losing_the_request("S1");
    for lose_response in &SECTION_3[1..] {
        let _ = marking.relay_marking_first("S1", *lose_response);
    }
    let marking_direct = section_4(&mut marking, OutboxLab::relay_marking_first)?;
    let calls = (listed.receiver.calls.len(), marking.receiver.calls.len());
    let answer = match calls {
        (4, 3) => "a",
        (2, 2) => "b",
        (3, 2) => "c",
        (3, 3) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: section 3's first run loses its request on the way to the receiver instead of its response. How many calls has the receiver logged after section 4 with the relay as listed, and how many with a relay that marks an intent sent before it calls?",
        answer,
        format!(
            "calls as listed: {:?} (the direct call {listed_direct:?}); marking first: {:?} (the direct call {marking_direct:?})",
            listed.receiver.calls, marking.receiver.calls
        ),
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
/// and the second run. Then section 4.
fn receiver_restarts(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let _ = lab.relay("S1", true);
    let before_restart = std::mem::take(&mut lab.receiver);
    let second = lab.relay("S1", false);
    let third = lab.relay("S1", false);
    let direct = section_4(&mut lab, OutboxLab::relay)?;
    let collision = is(&direct, |e| matches!(e, LabError::ReceiverCollision));
    let answer = match (&second, &direct) {
        (Ok("applied"), _) if collision => "a",
        (Ok("existing"), Ok("existing")) => "b",
        (Ok("applied"), Ok("existing")) => "c",
        (Ok("existing"), _) if collision => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: the receiver restarts, losing its memory, between section 3's first and second runs. What do section 3's second run and section 4's direct call return?",
        answer,
        format!(
            "the second run returned {second:?}, the third {third:?}; the direct call {direct:?}; S1 applied before the restart: {}",
            before_restart.effects.contains_key("S1")
        ),
    );
    Ok(())
}
