//! Section 1: an external call inside a transaction that aborts, and its retry.

use super::lab::{LabError, OutboxLab, Result, is};
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let attempt = lab.unsafe_attempt("U1", 80, true);
    obs.check(
        "unsafe attempt aborts",
        is(&attempt, |e| matches!(e, LabError::Injected(_))),
    );
    let rows_after_abort = lab.order_count("U1")?;
    let receipts_after_abort = lab.unsafe_receipts.len();
    obs.check("aborted database row absent", rows_after_abort == 0);
    obs.check(
        "external effect survives rollback",
        lab.unsafe_receipts == [("U1".to_string(), 80)],
    );
    lab.unsafe_attempt("U1", 80, false)?;
    obs.check(
        "retry creates second external effect",
        lab.unsafe_receipts.len() == 2,
    );
    obs.check(
        "one local row does not prove one external effect",
        lab.order_count("U1")? == 1,
    );
    let remains = match (rows_after_abort, receipts_after_abort) {
        (0, 0) => "b",
        (0, _) => "d",
        (_, 0) => "a",
        _ => "c",
    };
    obs.answer(
        "after-unsafe-abort",
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
    obs.answer(
        "unsafe-after-commit",
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
    obs.answer("unsafe-two-aborts", answer, evidence);
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
    obs.answer("call-after-commit", answer, evidence);
    Ok(())
}
