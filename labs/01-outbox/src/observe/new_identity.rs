//! Section 4: a new identity for the same amount, a mismatched payload, a missing intent.

use super::lab::{LabError, OutboxLab, Result};
use super::variants::{SECTION_3, after_section_2};
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let s2_enqueued = lab.enqueue("S2", 120, false)?;
    obs.ask(
        "Section 4's `enqueue`: does it answer `created`?",
        s2_enqueued == "created",
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
    amount_corrected(obs)
}

/// Between sections 2 and 3, an operator changes S1's outbox row to 130; section 3 runs.
fn amount_corrected(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    lab.db
        .execute("UPDATE outbox SET amount = 130 WHERE id = 'S1'", [])?;
    let runs: Vec<_> = (SECTION_3.into_iter())
        .map(|lose_response| lab.relay("S1", lose_response))
        .collect();
    let collisions = (runs.iter())
        .filter(|r| matches!(r, Err(LabError::ReceiverCollision)))
        .count();
    let held = lab.receiver.effects.get("S1").copied();
    let answer = match (collisions, held) {
        (0, Some(130)) => "a",
        (0, Some(120)) => "b",
        (2, Some(130)) => "c",
        (3, None) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: between sections 2 and 3, an operator sets S1's amount in `outbox` to 130. After section 3, how many of its runs returned `Err(ReceiverCollision)`, and what amount does the receiver hold for S1?",
        answer,
        format!("the runs returned {runs:?}; the receiver holds {held:?}"),
    );
    Ok(())
}
