//! Section 1: an external call inside a transaction that aborts, and its retry.

use super::lab::{LabError, OutboxLab, Result, is};
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let attempt = lab.unsafe_attempt("U1", 80, true);
    obs.ask(
        "The unsafe attempt for U1 (80) runs with the failure. Does it return an error?",
        is(&attempt, |e| matches!(e, LabError::Injected(_))),
    );
    let rows_after_abort = lab.order_count("U1")?;
    let receipts_after_abort = lab.unsafe_receipts.len();
    obs.ask(
        "After that abort, is there a U1 row in `orders`?",
        rows_after_abort > 0,
    );
    obs.ask(
        "After that abort, is U1's receipt in the receipts list?",
        lab.unsafe_receipts.iter().any(|(order, _)| order == "U1"),
    );
    lab.unsafe_attempt("U1", 80, false)?;
    obs.ask(
        "Retried without the failure, does the list then hold a single receipt?",
        lab.unsafe_receipts.len() == 1,
    );
    obs.ask(
        "After the retry, does `orders` hold one U1 row?",
        lab.order_count("U1")? == 1,
    );
    let remains = match (rows_after_abort, receipts_after_abort) {
        (0, 0) => "b",
        (0, _) => "d",
        (_, 0) => "a",
        _ => "c",
    };
    obs.choose(
        "The unsafe attempt for U1 (80) aborts. What remains?",
        remains,
        format!("{rows_after_abort} order row(s) for U1, {receipts_after_abort} receipt(s)"),
    );
    once_more_after_the_commit(lab, obs)?;
    two_aborts_then_a_commit(obs)?;
    call_after_the_commit(obs)
}

/// U1 is committed; the unsafe attempt runs once more.
fn once_more_after_the_commit(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let again = lab.unsafe_attempt("U1", 80, false);
    let insert_failed = is(&again, |e| matches!(e, LabError::Sql(_)));
    let (receipts, rows) = (lab.unsafe_receipts.len(), lab.order_count("U1")?);
    let answer = match (receipts, rows) {
        (2, _) => "a",
        (3, 1) if insert_failed => "b",
        (3, 2) => "c",
        _ => "?",
    };
    obs.choose("Variation: after U1 committed, the unsafe attempt for U1 runs once more, without the failure. What happens?",
        answer,
        format!("{receipts} receipt(s), {rows} U1 row(s), the INSERT failed: {insert_failed}"),
    );
    Ok(())
}

/// A fresh lab: the unsafe attempt for U2 aborts twice, then commits.
fn two_aborts_then_a_commit(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    for abort in [true, true, false] {
        let _ = lab.unsafe_attempt("U2", 50, abort);
    }
    let receipts = lab.unsafe_receipts.len();
    let rows = lab.order_count("U2")?;
    let answer = match (receipts, rows) {
        (3, 1) => "a",
        (1, 1) => "b",
        (3, 3) => "c",
        (2, 1) => "d",
        _ => "?",
    };
    let evidence = format!("{receipts} receipt(s) and {rows} row(s) for U2");
    obs.choose("Variation: the unsafe attempt for U2 (50) aborts twice, then commits. What is there for U2?", answer, evidence);
    Ok(())
}

/// A fresh lab: the order commits first, the call comes after, the process dies between.
fn call_after_the_commit(obs: &mut Observation) -> Result<()> {
    let mut lab = OutboxLab::new()?;
    let _ = lab.commit_then_call("U3", 70, true);
    let rows = lab.order_count("U3")?;
    let receipts = lab.unsafe_receipts.len();
    let answer = match (rows, receipts) {
        (0, 0) => "a",
        (0, _) => "b",
        (_, 0) => "d",
        _ => "c",
    };
    let evidence = format!("{rows} row(s) and {receipts} receipt(s) for U3");
    obs.choose("Variation: U3 (70) is committed first and the call comes after COMMIT; the process dies between the two. What remains?", answer, evidence);
    Ok(())
}
