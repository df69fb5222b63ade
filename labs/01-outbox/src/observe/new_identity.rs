//! Section 4: a new identity for the same amount, a mismatched payload, a missing intent.

use super::lab::{LabError, OutboxLab, Result};
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    lab.enqueue("S2", 120, false)?;
    obs.ask(
        "After section 4's `enqueue`, does `orders` hold three rows?",
        lab.count("orders")? == 3,
    );
    let s2 = lab.relay("S2", false)?;
    obs.ask(
        "Section 4's first `relay`: does the receiver answer `applied`?",
        s2 == "applied",
    );
    let direct = lab.receiver.receive("S1", 999);
    obs.ask(
        "Section 4's direct call: does the receiver answer `existing`?",
        matches!(direct, Ok("existing")),
    );
    obs.ask(
        "After section 4, do the amounts in `receiver.effects` add up to 240?",
        lab.receiver.effects.values().sum::<i64>() == 240,
    );
    let calls_before = lab.receiver.calls.len();
    let missing = lab.relay("missing", false);
    let (calls, effects) = (lab.receiver.calls.len(), lab.receiver.effects.len());
    obs.ask(
        "Does section 4's last `relay` reach the receiver?",
        calls > calls_before,
    );
    let answer = match (effects, calls) {
        (1, 3) => "a",
        (2, 4) => "b",
        (2, 3) => "c",
        (3, 4) => "d",
        _ => "?",
    };
    obs.choose(
        "After section 4, how many effects does the receiver hold, and how many calls has it logged?",
        answer,
        format!(
            "S2 got `{s2}`, the direct call {direct:?}, the last relay {missing:?}: \
             {effects} effect(s), {calls} call(s)"
        ),
    );
    derived_identity(obs)?;
    amount_corrected(obs)
}

/// A fresh lab: after a lost response for S11, the application enqueues S11-retry for
/// the same purchase and relays it; later the relay runs S11 again.
fn derived_identity(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    lab.enqueue("S11", 120, false)?;
    let _ = lab.relay("S11", true);
    lab.enqueue("S11-retry", 120, false)?;
    let retry_id = lab.relay("S11-retry", false)?;
    let original = lab.relay("S11", false)?;
    let (calls, effects) = (lab.receiver.calls.len(), lab.receiver.effects.len());
    let answer = match (calls, effects) {
        (3, 1) => "a",
        (3, 3) => "b",
        (3, 2) => "c",
        (2, 2) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, after a lost response for S11, the application enqueues and relays S11-retry (same amount); later the relay runs S11 again. Calls and effects at the receiver?",
        answer,
        format!(
            "S11-retry got `{retry_id}`, the run of S11 `{original}`: \
             {calls} call(s), {effects} effect(s)"
        ),
    );
    Ok(())
}

/// A fresh lab: after a lost response for S12 (120), an operator changes the outbox row
/// to 130; the relay runs S12 three times.
fn amount_corrected(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    lab.enqueue("S12", 120, false)?;
    let _ = lab.relay("S12", true);
    lab.db
        .execute("UPDATE outbox SET amount = 130 WHERE id = 'S12'", [])?;
    let runs: Vec<_> = (0..3).map(|_| lab.relay("S12", false)).collect();
    let refused = runs
        .iter()
        .all(|r| matches!(r, Err(LabError::ReceiverCollision)));
    let calls = lab.receiver.calls.len();
    let (held, sent) = (lab.receiver.effects.get("S12").copied(), lab.sent("S12")?);
    let answer = match (calls, held, sent) {
        (4, Some(120), false) if refused => "a",
        (2, Some(130), true) => "b",
        (2, Some(120), false) => "c",
        (2, Some(120), true) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, after a lost response for S12 (120), an operator sets its outbox amount to 130; the relay then runs S12 three times. What follows?",
        answer,
        format!("the runs returned {runs:?}; {calls} call(s); the receiver holds {held:?}; sent = {sent}"),
    );
    Ok(())
}
