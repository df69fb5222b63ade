//! Lab 01 graded suite, compiled into both the learner's crate and the reference
//! solution. Run it with `cargo labs check 01`.

use labkit::fault::{self, Token};
use outbox::harness::{
    ALL_INVARIANTS, Delivery, Invariant, RECEIVER_SCHEMA, ReceiverError, explore_relay,
    relay_scenario,
};
use outbox::relay::apply_effect;
use pretty_assertions::assert_eq;
use rusqlite::Connection;

// The graded tests, in the order they are reported (see `labkit::graded`).
labkit::graded_suite![
    a_retried_identity_is_recognised,
    a_different_amount_under_the_same_identity_is_rejected,
    the_fault_free_relay_delivers_every_intent_once,
    no_effect_is_lost_when_a_response_is_lost_or_the_relay_crashes,
    no_effect_is_applied_twice_when_the_relay_crashes,
    exactly_once_under_every_schedule_with_two_faults,
    every_schedule_replays_identically,
];

fn receiver() -> Connection {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(RECEIVER_SCHEMA).unwrap();
    db
}

fn effects(db: &Connection) -> Vec<(String, i64)> {
    db.prepare("SELECT order_id, amount FROM effects ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn deliver(db: &mut Connection, order_id: &str, amount: i64) -> Result<Delivery, ReceiverError> {
    let tx = db.transaction().unwrap();
    let answer = apply_effect(&tx, order_id, amount)?;
    tx.commit().unwrap();
    Ok(answer)
}

fn a_retried_identity_is_recognised() {
    let mut db = receiver();
    assert_eq!(deliver(&mut db, "S1", 120).unwrap(), Delivery::Applied);
    assert_eq!(deliver(&mut db, "S1", 120).unwrap(), Delivery::Existing);
    assert_eq!(deliver(&mut db, "S2", 120).unwrap(), Delivery::Applied);
    assert_eq!(
        effects(&db),
        vec![("S1".to_string(), 120), ("S2".to_string(), 120)]
    );
}

fn a_different_amount_under_the_same_identity_is_rejected() {
    let mut db = receiver();
    deliver(&mut db, "S1", 120).unwrap();
    let collision = deliver(&mut db, "S1", 999);
    assert!(
        matches!(
            collision,
            Err(ReceiverError::IdentityCollision {
                held: 120,
                offered: 999,
                ..
            })
        ),
        "expected an identity collision, got {collision:?}"
    );
    assert_eq!(effects(&db), vec![("S1".to_string(), 120)]);
}

fn the_fault_free_relay_delivers_every_intent_once() {
    explore_relay(0, &ALL_INVARIANTS).assert_ok();
}

fn no_effect_is_lost_when_a_response_is_lost_or_the_relay_crashes() {
    explore_relay(1, &[Invariant::NoEffectLost]).assert_ok();
}

fn no_effect_is_applied_twice_when_the_relay_crashes() {
    explore_relay(1, &[Invariant::NoEffectTwice]).assert_ok();
}

fn exactly_once_under_every_schedule_with_two_faults() {
    explore_relay(2, &ALL_INVARIANTS).assert_ok_reaching(2);
}

fn every_schedule_replays_identically() {
    let sample = Token::parse_all(&[
        "v2:",
        "v2:0.2@a805e",
        "v2:0.1.0.0.1@4b74c",
        "v2:0.4.1@1dce9",
        "v2:0.0.0.1.0.2@b0575",
    ]);
    let checked = fault::check_determinism(&sample, |sim| relay_scenario(sim, &ALL_INVARIANTS));
    assert_eq!(checked, Ok(sample.len()));
}
