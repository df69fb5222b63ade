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

/// Section 3, with an operator changing S1's outbox row to 130 between its first and
/// second runs.
fn amount_corrected(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let mut runs = vec![lab.relay("S1", SECTION_3[0])];
    lab.db
        .execute("UPDATE outbox SET amount = 130 WHERE id = 'S1'", [])?;
    for lose_response in &SECTION_3[1..] {
        runs.push(lab.relay("S1", *lose_response));
    }
    let collisions = (runs.iter())
        .filter(|r| matches!(r, Err(LabError::ReceiverCollision)))
        .count();
    let held = lab.receiver.effects.get("S1").copied();
    let order: i64 = (lab.db).query_row("SELECT amount FROM orders WHERE id = 'S1'", [], |r| {
        r.get(0)
    })?;
    let (order, operator) = (Some(order), Some(130));
    let answer = match (collisions, held) {
        (0, held) if held == operator => "a",
        (1, held) if held == operator => "b",
        (2, held) if held == order => "c",
        (2, held) if held == operator => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: an operator sets S1's amount in `outbox` to 130 between section 3's first and second runs. After section 3, how many of its runs returned `Err(ReceiverCollision)`, and which amount does the receiver hold for S1?",
        answer,
        format!("the runs returned {runs:?}; the receiver holds {held:?}"),
    );
    Ok(())
}
