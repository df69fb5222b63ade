//! Lab 01 graded suite, compiled into both the learner's crate and the reference
//! solution (each one's `src/graded.rs` makes it a module).
//! Run it with `cargo labs check 01`.

use labkit::fault::{self, Token, Violation};
use outbox::invariants::{ALL_INVARIANTS, Invariant, report};
use outbox::scenarios::{Protocol, explore_refused, explore_relay, relay_scenario};
use outbox::world::{Delivery, Faults, RECEIVER_SCHEMA, ReceiverError};
use rusqlite::Connection;

/// Your `relay_outbox` and `apply_effect` (`src/relay.rs`), as the scenarios take them.
const YOURS: Protocol = outbox::learner!();

// The graded tests, in the order they are reported (see the `graded` crate).
graded::suite![
    a_retried_identity_is_recognised,
    a_different_amount_under_the_same_identity_is_rejected,
    the_fault_free_relay_delivers_every_intent_once,
    no_effect_is_lost_when_the_network_fails,
    no_effect_is_lost_when_the_relay_crashes,
    no_effect_is_applied_twice_when_a_response_is_lost_or_the_relay_crashes,
    exactly_once_under_every_schedule_with_two_faults,
    a_refused_intent_stays_unsent,
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

/// One delivery to the receiver alone, in its own transaction, logged as a line of the
/// report: the answer, or the refusal as it reads.
fn deliver(
    db: &mut Connection,
    order_id: &str,
    amount: i64,
    log: &mut Vec<String>,
) -> Result<Delivery, String> {
    let tx = db.transaction().unwrap();
    let answer = (YOURS.apply_effect)(&tx, order_id, amount).map_err(|e| match e {
        ReceiverError::IdentityCollision { held, .. } => format!("IdentityCollision (held {held})"),
        other => format!("{other:?}"),
    });
    if answer.is_ok() {
        tx.commit().unwrap();
    }
    log.push(format!("deliver {order_id} ({amount}) -> {answer:?}"));
    answer
}

fn held(db: &Connection) -> String {
    let rows: Vec<String> = effects(db)
        .iter()
        .map(|(id, amount)| format!("({id}, {amount})"))
        .collect();
    if rows.is_empty() {
        "nothing".into()
    } else {
        rows.join(", ")
    }
}

fn a_retried_identity_is_recognised() {
    let (mut db, mut log) = (receiver(), Vec::new());
    let answers = [
        deliver(&mut db, "S1", 120, &mut log),
        deliver(&mut db, "S1", 120, &mut log),
        deliver(&mut db, "S2", 120, &mut log),
    ];
    let expected = [("S1".to_string(), 120), ("S2".to_string(), 120)];
    let (applied, existing) = (Ok(Delivery::Applied), Ok(Delivery::Existing));
    if answers != [applied.clone(), existing, applied] || effects(&db) != expected {
        log.push(format!("the receiver holds {}", held(&db)));
        let violation = Violation::new(
            "a retried identity is recognised",
            &[
                "Let S1 (120) be delivered twice, then S2 (120), a new identity with the same amount.".into(),
                format!("Then the receiver answered {answers:?} and holds {}.", held(&db)),
                "Contradiction: the second S1 is the same intent: it must be recognised (answered as already held) and add nothing, while S2 is a new one and takes effect.".into(),
            ],
        );
        panic!("\n{}", report(&violation, &log));
    }
}

fn a_different_amount_under_the_same_identity_is_rejected() {
    let (mut db, mut log) = (receiver(), Vec::new());
    let _ = deliver(&mut db, "S1", 120, &mut log);
    let answer = deliver(&mut db, "S1", 999, &mut log);
    let refused = answer == Err("IdentityCollision (held 120)".to_string());
    if !refused || effects(&db) != [("S1".to_string(), 120)] {
        log.push(format!("the receiver holds {}", held(&db)));
        let violation = Violation::new(
            "a different amount under the same identity is rejected",
            &[
                "Let S1 (120) be applied, then S1 (999) arrive.".into(),
                format!("Then the receiver answered {answer:?} and holds {}.", held(&db)),
                "Contradiction: the same identity with another amount is not a retry but a different intent that reused the name: it must be refused as a collision, and the held effect must stay (S1, 120).".into(),
            ],
        );
        panic!("\n{}", report(&violation, &log));
    }
}

fn the_fault_free_relay_delivers_every_intent_once() {
    explore_relay(YOURS, 0, Faults::All, &ALL_INVARIANTS).assert_ok();
}

fn no_effect_is_lost_when_the_network_fails() {
    explore_relay(YOURS, 1, Faults::NetworkOnly, &[Invariant::NoEffectLost]).assert_ok();
}

fn no_effect_is_lost_when_the_relay_crashes() {
    explore_relay(YOURS, 1, Faults::CrashesOnly, &[Invariant::NoEffectLost]).assert_ok();
}

fn no_effect_is_applied_twice_when_a_response_is_lost_or_the_relay_crashes() {
    explore_relay(YOURS, 1, Faults::All, &[Invariant::NoEffectTwice]).assert_ok();
}

fn exactly_once_under_every_schedule_with_two_faults() {
    explore_relay(YOURS, 2, Faults::All, &ALL_INVARIANTS).assert_ok_reaching(2);
}

fn a_refused_intent_stays_unsent() {
    explore_refused(YOURS, 1).assert_ok_reaching(1);
}

fn every_schedule_replays_identically() {
    let sample = Token::parse_all(&[
        "v2:",
        "v2:0.2@a805e",
        "v2:0.1.0.0.1@4b74c",
        "v2:0.4.1@1dce9",
        "v2:0.0.0.1.0.2@b0575",
    ]);
    let checked = fault::check_determinism(&sample, |sim| {
        relay_scenario(YOURS, sim, Faults::All, &ALL_INVARIANTS)
    });
    match checked {
        Ok(n) => assert!(
            n == sample.len(),
            "{n} of {} schedules were replayed",
            sample.len()
        ),
        Err(difference) => panic!("\nthe same token, two timelines: {difference}"),
    }
}
