//! Section 2: the order and its intent in one transaction, and the identity check.

use super::lab::{LabError, OutboxLab, Result, is};
use super::variants::{after_section_1, after_section_2};
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let changes_before = lab.db.total_changes();
    let first = lab.enqueue("S1", 120, true);
    let nothing_written = lab.db.total_changes() == changes_before;
    obs.ask(
        "Section 2's first `enqueue`: does the failure strike before `enqueue` executes any INSERT?",
        nothing_written && is(&first, |e| matches!(e, LabError::Injected(_))),
    );
    obs.ask(
        "After section 2's first `enqueue`, does `orders` hold exactly one row?",
        lab.count("orders")? == 1,
    );
    obs.ask(
        "After section 2's first `enqueue`, do `orders` and `outbox` hold as many rows as each other?",
        lab.count("orders")? == lab.count("outbox")?,
    );
    obs.ask(
        "Section 2's second `enqueue`: does it answer `created`?",
        lab.enqueue("S1", 120, false)? == "created",
    );
    obs.ask(
        "After section 2's second `enqueue`, does joining `orders` and `outbox` on `id` give exactly one row?",
        lab.count("orders JOIN outbox USING (id)")? == 1,
    );
    let third = lab.enqueue("S1", 120, false);
    obs.ask(
        "Section 2's third `enqueue`: does it return an error?",
        third.is_err(),
    );
    let fourth = lab.enqueue("S1", 121, false);
    obs.ask(
        "Section 2's fourth `enqueue`: does it answer `existing`?",
        matches!(fourth, Ok("existing")),
    );
    obs.ask(
        "After section 2, does `outbox` still hold S1 with the amount of section 2's first `enqueue`?",
        lab.intent_amount("S1")? == 120,
    );
    collision_with_the_failure(obs)?;
    unsafe_order_moved_to_the_outbox(obs)?;
    two_transactions_rerun(obs)
}

/// A fresh lab after section 2: S1 with another amount, and the injected failure.
fn collision_with_the_failure(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let result = lab.enqueue("S1", 121, true);
    let answer = match &result {
        Err(LabError::Injected(_)) => "a",
        Ok("existing") => "b",
        Ok("created") => "c",
        Err(LabError::DifferentIntent) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: after section 2, `enqueue(\"S1\", 121, abort = true)` runs. What does it return?",
        answer,
        format!("enqueue returned {result:?}"),
    );
    Ok(())
}

/// A fresh lab after section 1: U1, committed by the unsafe path, is enqueued and relayed.
fn unsafe_order_moved_to_the_outbox(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_1()?;
    let enqueued = lab.enqueue("U1", 80, false);
    let relayed = lab.relay("U1", false);
    let no_intent = is(&relayed, |e| matches!(e, LabError::NoIntent));
    let answer = match (&enqueued, &relayed) {
        (Ok("existing"), _) if no_intent => "a",
        (Ok("created"), Ok("applied")) => "b",
        (Ok("existing"), Ok("applied")) => "c",
        (Err(LabError::DifferentIntent), _) if no_intent => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: after section 1, `enqueue(\"U1\", 80)` runs, then `relay(\"U1\")`. What do they return?",
        answer,
        format!("enqueue answered {enqueued:?}, the relay answered {relayed:?}"),
    );
    Ok(())
}

/// A fresh lab: S4's order and intent as two autocommit INSERTs, a failure between them;
/// the same write runs again, then the relay.
fn two_transactions_rerun(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    let _ = lab.enqueue_in_two_transactions("S4", 120, true);
    let kept = lab.order_count("S4")?;
    let rerun = lab.enqueue_in_two_transactions("S4", 120, false);
    let relayed = lab.relay("S4", false);
    let key_error = is(&rerun, |e| matches!(e, LabError::Sql(_)));
    let no_intent = is(&relayed, |e| matches!(e, LabError::NoIntent));
    let rows = lab.order_count("S4")?;
    let answer = match (key_error, no_intent, kept) {
        (false, false, 1) => "a",
        (false, false, 0) => "b",
        (true, true, 1) => "c",
        (true, false, _) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, S4 (120) is written as two autocommit INSERTs, order then intent, with no lookup; the failure strikes between them. The same write runs again without the failure, then the relay runs S4. What happens?",
        answer,
        format!("the rerun returned {rerun:?}; the relay {relayed:?}; {rows} order row(s) for S4"),
    );
    Ok(())
}
