//! Section 1: an external call inside a transaction that aborts, and its retry.

use super::lab::{LabError, OutboxLab, Result, is};
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
    aborts_then_the_outbox(obs)?;
    call_after_the_commit(obs)
}

/// A fresh lab: section 1 with the receiver's `receive` as the external call.
fn receiver_as_the_call(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    let first = lab.unsafe_attempt_calling_the_receiver("U1", 80, true);
    let second = lab.unsafe_attempt_calling_the_receiver("U1", 80, false);
    let held = lab.receiver.effects.clone();
    let answer = match (&second, held.len()) {
        (Ok("existing"), 1) => "a",
        (Ok("applied"), 0 | 1) => "b",
        (Ok("applied"), 2) => "c",
        (Err(LabError::ReceiverCollision), 1) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: the unsafe attempt's external call is the fictional receiver's `receive` (as listed above) instead of a receipt; section 1 runs as listed on a fresh database. What does the receiver hold, and what does the second attempt's call get?",
        answer,
        format!("the attempts returned {first:?} and {second:?}; the receiver holds {held:?}"),
    );
    Ok(())
}

/// A fresh lab: section 1's attempts in the other order, the failing one second.
fn attempts_in_the_other_order(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    lab.unsafe_attempt("U1", 80, false)?;
    let failing = lab.unsafe_attempt("U1", 80, true);
    let key_error = is(&failing, |e| matches!(e, LabError::Sql(_)));
    let injected = is(&failing, |e| matches!(e, LabError::Injected(_)));
    let (receipts, rows) = (lab.unsafe_receipts.len(), lab.order_count("U1")?);
    let answer = match (injected, key_error, receipts, rows) {
        (true, _, 2, 1) => "a",
        (true, _, 1, 1) => "b",
        (_, true, 1, 1) => "c",
        (_, true, 2, 1) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, section 1's two attempts run in the other order: first without the failure, then with it. What does the failing attempt return, and what is there for U1?",
        answer,
        format!("the failing attempt returned {failing:?}; {receipts} receipt(s), {rows} row(s)"),
    );
    Ok(())
}

/// A fresh lab: U2 fails twice on the unsafe path, then goes through the outbox.
fn aborts_then_the_outbox(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    for _ in 0..2 {
        let _ = lab.unsafe_attempt("U2", 50, true);
    }
    let enqueued = lab.enqueue("U2", 50, false);
    let relayed = lab.relay("U2", false);
    let receipts = lab.unsafe_receipts.len();
    let payments = receipts + lab.receiver.effects.len();
    let answer = match payments {
        1 => "a",
        2 => "b",
        3 => "c",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, the unsafe attempt for U2 (50) fails twice; the application gives up on it and runs `enqueue` and `relay` for U2 (50) instead. How many payments for U2 exist, receipts and receiver effects together?",
        answer,
        format!(
            "{receipts} receipt(s); enqueue answered {enqueued:?}, the relay {relayed:?}: \
             {payments} payment(s)"
        ),
    );
    Ok(())
}

/// A fresh lab: the order commits first, the call comes after, the process dies between;
/// then the same operation runs again.
fn call_after_the_commit(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    let _ = lab.commit_then_call("U3", 70, true);
    let rerun = lab.commit_then_call("U3", 70, false);
    let (receipts, rows) = (lab.unsafe_receipts.len(), lab.order_count("U3")?);
    let answer = match (receipts, rows) {
        (1, 1) => "a",
        (0, 1) => "b",
        (1, 2) => "c",
        (0, 0) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: on a fresh database, U3 (70) is written with the call after COMMIT, and the process dies between the two; then the same operation runs again for U3 without dying. What is there for U3?",
        answer,
        format!("the rerun returned {rerun:?}; {receipts} receipt(s), {rows} row(s) for U3"),
    );
    Ok(())
}
