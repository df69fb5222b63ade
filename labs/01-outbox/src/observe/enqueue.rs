//! Section 2: the order and its intent in one transaction, and the identity check.

use super::lab::{LabError, OutboxLab, Result, is};
use labkit::Observation;
use rusqlite::OptionalExtension;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let enqueue = lab.enqueue("S1", 120, true);
    obs.ask(
        "`enqueue` runs for S1 (120) with the failure. Does it succeed?",
        enqueue.is_ok(),
    );
    obs.ask(
        "After that failed enqueue, is there an S1 row in `orders`?",
        lab.order_count("S1")? > 0,
    );
    obs.ask(
        "After that failed enqueue, is there an S1 row in `outbox`?",
        lab.outbox_count("S1")? > 0,
    );
    obs.ask(
        "Enqueued again without the failure, does S1 come back `created`?",
        lab.enqueue("S1", 120, false)? == "created",
    );
    let both: Option<(i64, i64)> = lab
        .db
        .query_row(
            "SELECT o.amount, x.amount FROM orders o JOIN outbox x USING (id) WHERE id = 'S1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    obs.ask(
        "Do `orders` and `outbox` now both hold S1 with 120?",
        both == Some((120, 120)),
    );
    obs.ask(
        "S1 (120) is enqueued once more. Does `enqueue` answer `created`?",
        lab.enqueue("S1", 120, false)? == "created",
    );
    let collision = lab.enqueue("S1", 121, false);
    obs.ask(
        "S1 is then enqueued with 121. Is it refused?",
        is(&collision, |e| matches!(e, LabError::DifferentIntent)),
    );
    obs.ask(
        "After that refusal, does the outbox hold 121 for S1?",
        lab.intent_amount("S1")? == 121,
    );
    failure_after_the_identity_exists(lab, obs);
    unsafe_order_moved_to_the_outbox(lab, obs)?;
    two_transactions(obs)
}

/// S1 exists; an enqueue of S1 with the injected failure runs.
fn failure_after_the_identity_exists(lab: &mut OutboxLab, obs: &mut Observation) {
    let answer = match lab.enqueue("S1", 120, true) {
        Err(LabError::Injected(_)) => "a",
        Ok("created") => "b",
        Ok("existing") => "c",
        _ => "?",
    };
    obs.choose("Variation: S1 (120) exists. `enqueue(\"S1\", 120, abort = true)` runs. What does it return?",
        answer,
        format!("enqueue answered ({answer})"),
    );
}

/// U1, committed by the unsafe path, is enqueued and relayed.
fn unsafe_order_moved_to_the_outbox(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let enqueued = lab.enqueue("U1", 80, false);
    let relayed = lab.relay("U1", false);
    let no_intent = is(&relayed, |e| matches!(e, LabError::NoIntent));
    let answer = match (&enqueued, no_intent) {
        (Ok("created"), false) => "a",
        (Ok("existing"), false) => "b",
        (Err(LabError::DifferentIntent), _) => "c",
        (Ok("existing"), true) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: after section 1, `enqueue(\"U1\", 80)`, then `relay(\"U1\")`. What happens?",
        answer,
        format!("enqueue answered {enqueued:?}, the relay answered {relayed:?}"),
    );
    Ok(())
}

/// A fresh lab: S4's order and intent in two transactions, a failure between them.
fn two_transactions(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    let _ = lab.enqueue_in_two_transactions("S4", 120, true);
    let relayed = lab.relay("S4", false);
    let rows = lab.order_count("S4")?;
    let calls = lab.receiver.calls.len();
    let no_intent = is(&relayed, |e| matches!(e, LabError::NoIntent));
    let answer = match (calls, no_intent, rows) {
        (1, _, _) => "a",
        (0, true, 1) => "b",
        (0, true, 0) => "c",
        _ => "?",
    };
    obs.choose("Variation: S4's order and intent are written in two transactions; the failure strikes between them. Then the relay runs S4. What does it find?",
        answer,
        format!("{rows} order row(s) for S4, the relay answered {relayed:?}, {calls} call(s)"),
    );
    Ok(())
}
