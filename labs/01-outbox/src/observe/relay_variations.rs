//! Variations of section 3, each on a fresh lab: more lost responses, a lost request, a
//! relay that marks first, two relays at once, a receiver that forgets.

use super::lab::{LabError, OutboxLab, Result, is};
use labkit::Observation;

fn enqueued(order_id: &str) -> Result<OutboxLab> {
    let mut lab = OutboxLab::new()?;
    lab.enqueue(order_id, 120, false)?;
    Ok(lab)
}

pub fn observe(obs: &mut Observation) -> Result<()> {
    lost_twice(obs)?;
    request_lost(obs)?;
    marked_first(obs)?;
    two_relays(obs)?;
    sent_then_lost(obs)?;
    receiver_restarts(obs)
}

/// The responses of two relay runs are lost; the third run gets one.
fn lost_twice(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S5")?;
    for lose_response in [true, true, false] {
        let _ = lab.relay("S5", lose_response);
    }
    let (calls, effects) = (lab.receiver.calls.len(), lab.receiver.effects.len());
    let answer = match (calls, effects) {
        (1, 1) => "a",
        (3, 3) => "b",
        (3, 1) => "c",
        (3, 2) => "d",
        _ => "?",
    };
    let evidence = format!("{calls} call(s), {effects} effect(s) for S5");
    obs.choose("Variation: two relay runs for S5 lose their responses; a third gets one. Calls and effects at the receiver?", answer, evidence);
    Ok(())
}

/// The request is lost before it reaches the receiver; the relay runs again.
fn request_lost(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S6")?;
    let first = lab.relay_losing_the_request("S6");
    let retry = lab.relay("S6", false);
    let answer = match &retry {
        Ok("applied") => "a",
        Ok("existing") => "b",
        Ok("already-sent") => "c",
        Err(LabError::ReceiverCollision) => "d",
        _ => "?",
    };
    let evidence = format!("the first run answered {first:?}, the retry {retry:?}");
    obs.choose("Variation: for S6 the request, not the response, is lost (the same timeout). The relay runs S6 again. What does the receiver answer?", answer, evidence);
    Ok(())
}

/// A relay marks S7 sent before it calls, and dies between the two.
fn marked_first(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S7")?;
    let _ = lab.relay_marking_first("S7", true);
    let next = lab.relay("S7", false);
    let effects = lab.receiver.effects.len();
    let answer = match (&next, effects) {
        (Ok("applied"), 1) => "a",
        (Ok("existing"), _) => "b",
        (Ok("already-sent"), 0) => "c",
        _ => "?",
    };
    let evidence = format!("the next run answered {next:?}; {effects} effect(s) for S7");
    obs.choose("Variation: a relay marks S7 sent before it calls, and dies right after the mark. What does the next relay run do with S7?", answer, evidence);
    Ok(())
}

/// Two relays both read S9 as unsent; then each calls and marks.
fn two_relays(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S9")?;
    let (first_read, second_read) = (lab.read_unsent("S9")?, lab.read_unsent("S9")?);
    let first = match first_read {
        Some(amount) => lab.deliver_and_mark("S9", amount),
        None => Ok("already-sent"),
    };
    let second = match second_read {
        Some(amount) => lab.deliver_and_mark("S9", amount),
        None => Ok("already-sent"),
    };
    let effects = lab.receiver.effects.len();
    let answer = match (&first, &second, effects) {
        (Ok("applied"), Ok("existing"), 1) => "a",
        (Ok("applied"), Ok("applied"), 2) => "b",
        (Ok("applied"), Ok("already-sent"), _) => "c",
        (Ok("applied"), Err(LabError::ReceiverCollision), _) => "d",
        _ => "?",
    };
    let evidence = format!("the relays got {first:?} and {second:?}; {effects} effect(s)");
    obs.choose("Variation: two relays both read S9 as unsent; then each calls and marks it sent. What do they get?", answer, evidence);
    Ok(())
}

/// S1 is sent; the relay runs it again on a network that would lose the response.
fn sent_then_lost(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S1")?;
    lab.relay("S1", false)?;
    let again = lab.relay("S1", true);
    let calls = lab.receiver.calls.len();
    let answer = match &again {
        Ok("already-sent") if calls == 1 => "a",
        Err(LabError::Timeout) => "b",
        Ok("existing") => "c",
        _ => "?",
    };
    let evidence = format!("the relay returned {again:?} after {calls} call(s) in all");
    obs.choose("Variation: S1 is sent. The relay runs S1 again, on a network that would lose the response. What does it return?", answer, evidence);
    Ok(())
}

/// The receiver keeps its effects in memory and restarts between the lost response and
/// the retry: the payment it made before the restart stays made.
fn receiver_restarts(obs: &mut Observation) -> Result<()> {
    let mut lab = enqueued("S10")?;
    let lost = lab.relay("S10", true);
    let before_restart = std::mem::take(&mut lab.receiver);
    let retry = lab.relay("S10", false);
    let payments = before_restart.effects.len() + lab.receiver.effects.len();
    let timed_out = is(&lost, |e| matches!(e, LabError::Timeout));
    let answer = match (&retry, payments) {
        (Ok("existing"), 1) => "a",
        (Ok("applied"), 2) if timed_out => "b",
        (Err(LabError::ReceiverCollision), _) => "c",
        (Ok("applied"), 1) => "d",
        _ => "?",
    };
    let evidence = format!("the retry answered {retry:?}; {payments} payment(s) for S10");
    obs.choose("Variation: the receiver restarts (its memory lost) between a lost response for S10 and the retry. What does the retry get; how many payments exist?", answer, evidence);
    Ok(())
}
