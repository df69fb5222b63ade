//! Section 2: the order and its intent in one transaction, and the identity check.

use super::lab::{LabError, OutboxLab, Result, is};
use super::variants::{SECTION_2, after_section_1, after_section_2};
use labkit::Observation;

pub fn observe(lab: &mut OutboxLab, obs: &mut Observation) -> Result<()> {
    let changes_before = lab.db.total_changes();
    let _ = lab.enqueue("S1", 120, true);
    // The order's INSERT comes first: a second change is the outbox INSERT.
    let inserts = lab.db.total_changes() - changes_before;
    obs.ask(
        "Section 2's first `enqueue`: does it execute its outbox INSERT?",
        inserts == 2,
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
    let last_amount = 121;
    let fourth = lab.enqueue("S1", last_amount, false);
    obs.ask(
        "Section 2's fourth `enqueue`: does it answer `existing`?",
        matches!(fourth, Ok("existing")),
    );
    obs.ask(
        "After section 2, does `outbox` hold S1 with the amount of section 2's last `enqueue`?",
        lab.intent_amount("S1")? == last_amount,
    );
    collision_with_the_failure(obs)?;
    unsafe_order_moved_to_the_outbox(obs)?;
    two_transactions_rerun(obs)
}

/// After section 2: its fourth `enqueue` again, with the injected failure.
fn collision_with_the_failure(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_2()?;
    let (fourth_amount, _) = SECTION_2[3];
    let result = lab.enqueue("S1", fourth_amount, true);
    let answer = match &result {
        Err(LabError::Injected(_)) => "a",
        Ok("existing") => "b",
        Ok("created") => "c",
        Err(LabError::DifferentIntent) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: after section 2, its fourth `enqueue` runs once more, this time with the injected failure. What does it return?",
        answer,
        format!("enqueue returned {result:?}"),
    );
    Ok(())
}

/// After section 1: section 2's calls are made for U1, committed by the unsafe path;
/// then the relay runs U1.
fn unsafe_order_moved_to_the_outbox(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_1()?;
    let calls: Vec<_> = (SECTION_2.into_iter())
        .map(|(amount, fails)| lab.enqueue("U1", amount, fails))
        .collect();
    let relayed = lab.relay("U1", false);
    let second = &calls[1];
    let no_intent = is(&relayed, |e| matches!(e, LabError::NoIntent));
    let different = is(second, |e| matches!(e, LabError::DifferentIntent));
    let key_error = is(second, |e| matches!(e, LabError::Sql(_)));
    let answer = match (second, &relayed) {
        (Ok("created"), Ok("applied")) => "a",
        _ if different && no_intent => "b",
        (Ok("existing"), _) if no_intent => "c",
        _ if key_error && no_intent => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: after section 1, section 2 runs for U1 in place of S1, then `relay` runs for U1. What do section 2's second call and the relay return?",
        answer,
        format!("section 2's calls returned {calls:?}; the relay {relayed:?}"),
    );
    Ok(())
}

/// Section 2 with `enqueue` written as two autocommit INSERTs and no lookup, the
/// failure between them, after section 1 as listed: the rows it leaves.
fn two_transactions_rerun(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_1()?;
    let calls: Vec<_> = (SECTION_2.into_iter())
        .map(|(amount, fails)| lab.enqueue_in_two_transactions("S1", amount, fails))
        .collect();
    let (orders, outbox) = (lab.count("orders")?, lab.count("outbox")?);
    let answer = match (orders, outbox) {
        (1, 0) => "a",
        (2, 1) => "b",
        (1, 1) => "c",
        (2, 0) => "d",
        _ => "?",
    };
    obs.choose(
        "Variation: `enqueue` is written as two autocommit INSERTs, the order and then the intent, with no lookup and with the injected failure where the listing has it; section 2 runs with it, after section 1 as listed. How many rows do `orders` and `outbox` hold after section 2?",
        answer,
        format!("section 2's calls returned {calls:?}; {orders} order row(s), {outbox} outbox row(s)"),
    );
    Ok(())
}

/// Section 2 with its fourth call moved up, right after the first: the four answers, in
/// the order the calls now run.
pub fn different_intent_first(obs: &mut Observation) -> Result<()> {
    let mut lab = after_section_1()?;
    let results: Vec<_> = ([0, 3, 1, 2].into_iter())
        .map(|i| SECTION_2[i])
        .map(|(amount, fails)| lab.enqueue("S1", amount, fails))
        .collect();
    let errors = results.iter().filter(|r| r.is_err()).count();
    let answer = match errors {
        1 => "a",
        2 => "b",
        3 => "c",
        _ => "?",
    };
    obs.choose(
        "Variation: section 2's fourth `enqueue` runs right after its first, before the second. How many of section 2's four calls now return an error, the injected failure included?",
        answer,
        format!("the calls returned {results:?}; the outbox holds {}", lab.intent_amount("S1")?),
    );
    Ok(())
}
