//! Section 4: a new identity for the same amount, a mismatched payload, a missing intent.

use super::lab::{FictionalReceiver, LabError, OutboxLab, Result};
use super::variants::{SECTION_3, after_section_2};
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
    let missing = lab.relay("missing", false);
    obs.ask(
        "Does section 4's last `relay` return `already-sent`?",
        matches!(missing, Ok("already-sent")),
    );
    let calls = lab.receiver.calls.len();
    let existing = answered_existing(&lab.receiver.calls);
    let answer = match (calls, existing) {
        (4, 2) => "a",
        (4, 1) => "b",
        (3, 1) => "c",
        (5, 2) => "d",
        _ => "?",
    };
    obs.choose(
        "After section 4, how many calls has the receiver logged, and how many of them did it answer `existing`?",
        answer,
        format!(
            "S2 got `{s2}`, the direct call {direct:?}, the last relay {missing:?}: \
             {calls} call(s), {existing} answered `existing`"
        ),
    );
    derived_identity(obs)?;
    amount_corrected(obs)
}

/// How many of the logged `calls` the receiver answered `existing`: the log replayed,
/// in order, on a receiver that starts empty as this one did.
fn answered_existing(calls: &[(String, i64)]) -> usize {
    let mut replay = FictionalReceiver::default();
    (calls.iter())
        .filter(|(order_id, amount)| matches!(replay.receive(order_id, *amount), Ok("existing")))
        .count()
}

/// After section 3's first run, the application enqueues and relays S1-retry for the
/// same purchase; then section 3's other runs go on.
fn derived_identity(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let _ = lab.relay("S1", true);
    lab.enqueue("S1-retry", 120, false)?;
    let retry_id = lab.relay("S1-retry", false)?;
    let rest: Vec<_> = [false, false].map(|lose| lab.relay("S1", lose)).into();
    let (calls, effects) = (lab.receiver.calls.len(), lab.receiver.effects.len());
    let answer = match (calls, effects) {
        (3, 1) => "a",
        (3, 2) => "b",
        (4, 2) => "c",
        (2, 2) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: after section 3's first run, the application enqueues and relays `S1-retry` with S1's amount; then section 3's other two runs go on. How many calls has the receiver logged, and how many effects does it hold?",
        answer,
        format!(
            "S1-retry got `{retry_id}`, the other runs of S1 {rest:?}: \
             {calls} call(s), {effects} effect(s)"
        ),
    );
    Ok(())
}

/// Between sections 2 and 3, an operator changes S1's outbox row to 130; section 3 runs.
fn amount_corrected(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    lab.db
        .execute("UPDATE outbox SET amount = 130 WHERE id = 'S1'", [])?;
    let runs: Vec<_> = (SECTION_3.into_iter())
        .map(|lose_response| lab.relay("S1", lose_response))
        .collect();
    let timeout = |r: &Result<&str>| matches!(r, Err(LabError::Timeout));
    let collision = |r: &Result<&str>| matches!(r, Err(LabError::ReceiverCollision));
    let answer = match (&runs[0], &runs[1], &runs[2]) {
        (Ok("applied"), Ok("already-sent"), Ok("already-sent")) => "a",
        (a, b, c) if collision(a) && collision(b) && collision(c) => "b",
        (a, b, c) if timeout(a) && collision(b) && collision(c) => "c",
        (a, Ok("existing"), Ok("already-sent")) if timeout(a) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: between sections 2 and 3, an operator sets S1's amount in `outbox` to 130. What do section 3's three runs return?",
        answer,
        format!(
            "the runs returned {runs:?}; the receiver holds {:?}",
            lab.receiver.effects.get("S1")
        ),
    );
    Ok(())
}
