//! The build phase, part 1, solved: a replay procedure that records its interval,
//! consumer version and expected payments, applies only missing effects, tells recovery
//! from duplication, and declares completion from evidence.

use dead_letters::world::{Billing, Crash, Delivery, Payment, ReplayPlan};
use rusqlite::OptionalExtension;

// ANCHOR: start_replay
/// Prepares the replay of `plan` and returns the run's id.
pub fn start_replay(billing: &mut Billing, plan: &ReplayPlan) -> i64 {
    let tx = billing.ledger().unchecked_transaction().expect("BEGIN");
    tx.execute(
        "INSERT INTO replay_runs (from_time, to_time, consumer_version) VALUES (?1, ?2, ?3)",
        (plan.from as i64, plan.to as i64, plan.consumer_version),
    )
    .expect("record run");
    let run = tx.last_insert_rowid();
    for message in billing.published_between(plan.from, plan.to) {
        let payment = Payment::parse(&message);
        tx.execute(
            "INSERT INTO replay_expected (run_id, payment_id) VALUES (?1, ?2)",
            (run, &payment.id),
        )
        .expect("record expected payment");
    }
    tx.commit().expect("COMMIT");
    // Only once the run is on record does the operator seek.
    billing.seek_to(plan.from);
    run
}
// ANCHOR_END: start_replay

// ANCHOR: on_payment
/// Handles one delivery of a payment during and after the replay.
pub fn on_payment(billing: &mut Billing, received: &Delivery) -> Result<(), Crash> {
    let run = billing.run();
    let payment = Payment::parse(&received.message);
    let tx = billing.begin();
    let debited = billing.debit_exists(&tx, &payment.id);
    let expected: bool = tx
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM replay_expected WHERE run_id = ?1 AND payment_id = ?2)",
            (run, &payment.id),
            |r| r.get(0),
        )
        .expect("read expected");
    let logged: Option<String> = tx
        .query_row(
            "SELECT outcome FROM replay_log WHERE run_id = ?1 AND payment_id = ?2",
            (run, &payment.id),
            |r| r.get(0),
        )
        .optional()
        .expect("read log");
    if expected && logged.is_none() {
        // Decided from the state before this run touched the payment, and recorded with
        // the debit it leads to: a crash rolls both back, a redelivery finds the decision.
        let complete = debited && billing.receipt_sent(&payment.id);
        let outcome = if complete { "duplicate" } else { "recovered" };
        tx.execute(
            "INSERT INTO replay_log (run_id, payment_id, outcome) VALUES (?1, ?2, ?3)",
            (run, &payment.id, outcome),
        )
        .expect("log outcome");
    }
    if !debited {
        billing.debit(&tx, &payment);
    }
    billing.commit(tx)?;
    // The receipt is another system's effect: look it up by the payment's identity.
    if !billing.receipt_sent(&payment.id) && billing.send_receipt(&payment).is_err() {
        // Unknown whether it went out: ask again on the next delivery.
        billing.nack(received);
        return Ok(());
    }
    billing.ack(received);
    Ok(())
}
// ANCHOR_END: on_payment

// ANCHOR: replay_complete
/// The completion criterion: every expected payment of the run is logged, debited and
/// has its receipt.
pub fn replay_complete(billing: &Billing, run: i64) -> bool {
    let ledger = billing.ledger();
    let pending: Vec<(String, bool, bool)> = ledger
        .prepare(
            "SELECT e.payment_id,
                    EXISTS (SELECT 1 FROM replay_log l WHERE l.run_id = e.run_id AND l.payment_id = e.payment_id),
                    EXISTS (SELECT 1 FROM debits d WHERE d.payment_id = e.payment_id)
             FROM replay_expected e WHERE e.run_id = ?1",
        )
        .and_then(|mut s| {
            s.query_map([run], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        })
        .expect("read run");
    !pending.is_empty()
        && pending
            .iter()
            .all(|(id, logged, debited)| *logged && *debited && billing.receipt_sent(id))
}
// ANCHOR_END: replay_complete
