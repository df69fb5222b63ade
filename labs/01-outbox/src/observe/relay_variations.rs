//! Variations of section 3, each on a lab of its own: a lost request with a relay that
//! marks first, and a receiver that forgets.

use super::lab::{LabError, OutboxLab, Result, is};
use super::variants::{SECTION_3, after_section_2, section_4};
use labkit::Observation;

pub fn observe(obs: &mut Observation) -> Result<()> {
    request_lost(obs)?;
    receiver_restarts(obs)
}

/// Section 3 with a relay that marks first, its first run losing its request; then
/// section 4 as listed: the calls the receiver logged, and what the direct call got.
fn request_lost(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let first = lab.relay_marking_first_losing_the_request("S1");
    let later: Vec<_> = (SECTION_3[1..].iter())
        .map(|lose_response| lab.relay_marking_first("S1", *lose_response))
        .collect();
    let direct = section_4(&mut lab, OutboxLab::relay)?;
    let calls = lab.receiver.calls.len();
    let collision = is(&direct, |e| matches!(e, LabError::ReceiverCollision));
    let answer = match (calls, &direct) {
        (3, _) if collision => "a",
        (2, Ok("applied")) => "b",
        (3, Ok("applied")) => "c",
        (2, Ok("existing")) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: section 3 runs with a relay that marks an intent sent before it calls, and its first run loses its request on the way to the receiver; section 4 runs as listed. How many calls has the receiver logged after section 4, and what does section 4's direct call return?",
        answer,
        format!(
            "section 3's runs returned {first:?}, then {later:?}; the calls: {:?}; the direct call {direct:?}",
            lab.receiver.calls
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
