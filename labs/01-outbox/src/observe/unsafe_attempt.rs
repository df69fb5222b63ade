//! Section 1: an external call inside a transaction that aborts, and its retry.

use super::lab::{LabError, OutboxLab, Result, is};
use super::variants::S2_AMOUNT;
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let changes_before = lab.db.total_changes();
    let first = lab.unsafe_attempt("U1", 80, true);
    let inserted = lab.db.total_changes() > changes_before;
    obs.ask(
        "Section 1's first attempt: does its INSERT run before the attempt fails?",
        inserted && is(&first, |e| matches!(e, LabError::Injected(_))),
    );
    let receipt_kept = lab.unsafe_receipts.iter().any(|(order, _)| order == "U1");
    let second = lab.unsafe_attempt("U1", 80, false);
    obs.ask(
        "Section 1's second attempt: does its INSERT fail on the primary key?",
        is(&second, |e| matches!(e, LabError::Sql(_))),
    );
    obs.ask(
        "When section 1's first attempt has failed, is its receipt in `unsafe_receipts`?",
        receipt_kept,
    );
    let (receipts, rows) = (lab.unsafe_receipts.len(), lab.order_count("U1")?);
    obs.ask(
        "After section 1, does `unsafe_receipts` hold one receipt per U1 row in `orders`?",
        receipts == rows as usize,
    );
    obs.ask(
        "After section 1, does `orders` hold a single U1 row?",
        rows == 1,
    );
    receiver_as_the_call(obs)?;
    attempts_in_the_other_order(obs)?;
    super::enqueue::different_intent_first(obs)
}

/// The receiver's `receive` as the external call: section 1's first attempt, then the
/// outbox path for U1, with S2's amount, in place of the second attempt.
fn receiver_as_the_call(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    let failed = lab.unsafe_attempt_calling_the_receiver("U1", 80, true);
    let enqueued = lab.enqueue("U1", S2_AMOUNT, false);
    let relayed = lab.relay("U1", false);
    let no_intent = is(&relayed, |e| matches!(e, LabError::NoIntent));
    let collision = is(&relayed, |e| matches!(e, LabError::ReceiverCollision));
    let answer = match (&enqueued, &relayed) {
        (Ok("existing"), _) if no_intent => "a",
        (Ok("created"), Ok("applied")) => "b",
        (Ok("created"), Ok("existing")) => "c",
        (Ok("created"), _) if collision => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: the unsafe attempt calls the receiver's `receive` where it appends its receipt. Section 1's first attempt runs; then, in place of the second, `enqueue` and `relay` run for U1 with the amount section 4 gives S2. What do `enqueue` and `relay` return?",
        answer,
        format!("the attempt returned {failed:?}; enqueue {enqueued:?}, the relay {relayed:?}"),
    );
    Ok(())
}

/// Section 1's attempts in the other order, the failing one second.
fn attempts_in_the_other_order(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    lab.unsafe_attempt("U1", 80, false)?;
    let failing = lab.unsafe_attempt("U1", 80, true);
    let key_error = is(&failing, |e| matches!(e, LabError::Sql(_)));
    let injected = is(&failing, |e| matches!(e, LabError::Injected(_)));
    let receipts = lab.unsafe_receipts.len();
    let answer = match (key_error, injected, receipts) {
        (true, _, 2) => "a",
        (_, true, 2) => "b",
        (true, _, 1) => "c",
        (_, true, 1) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: section 1's two attempts run in the other order. What does the attempt that runs second return, and how many receipts are there at the end?",
        answer,
        format!("the second attempt returned {failing:?}; {receipts} receipt(s)"),
    );
    Ok(())
}
