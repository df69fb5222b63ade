//! Lab 10 graded suite, compiled into both the learner's crate and the reference solution.
//! Run it with `cargo labs check 10`.

use labkit::fault::{self, Sim, Token};
use pretty_assertions::assert_eq;
use sim_topic::{Chaos, Ydb};
use topic_to_table::harness::{
    CHAOS_SEED, CONSUMER, Config, Consumer, HOT, Producer, SINK, chaos_run, encode_payload,
    explore_small, learner_protocol, small_scope,
};
use topic_to_table::pipeline::{consume, produce, produced};

// The graded tests, in the order they are reported (see `labkit::graded`).
labkit::graded_suite![
    an_aborted_producer_attempt_keeps_its_sequence_number,
    a_rolled_back_consumer_attempt_reads_the_same_batch_again,
    every_schedule_of_the_small_scope_with_two_faults_keeps_exactly_once,
    no_forward_gap_in_any_producer_sequence_under_seeded_chaos,
    the_audit_reads_every_committed_message_back_from_the_sink_exactly_once,
    lock_conflicts_fired_and_the_retry_loop_absorbed_them,
    the_same_seed_gives_the_same_run,
];

fn database() -> Ydb {
    let mut db = Ydb::in_memory(1, Chaos::NONE);
    db.create_table(HOT);
    db.create_table(SINK);
    db
}

fn producer() -> Producer {
    Producer {
        actor: "p0",
        writer_id: 0,
        next_seq_no: 1,
        hot_key: 0,
        now: 0,
    }
}

fn seq_nos(db: &Ydb) -> Vec<i64> {
    db.all_messages().iter().map(|m| m.seq_no).collect()
}

fn an_aborted_producer_attempt_keeps_its_sequence_number() {
    let mut db = database();
    let mut sim = Sim::fault_free();
    let mut p = producer();
    // First attempt: the body runs, then the transaction is rolled back.
    let mut tx = db.begin();
    produce(&mut db, &mut sim, &mut tx, &mut p).unwrap();
    db.rollback(&mut sim, "p0", tx);
    // The retry loop's second attempt commits.
    let mut tx = db.begin();
    produce(&mut db, &mut sim, &mut tx, &mut p).unwrap();
    db.commit(&mut sim, "p0", tx).unwrap();
    produced(&mut p);
    assert_eq!(
        seq_nos(&db),
        vec![1],
        "the committed message is seq_no 1: no gap"
    );
    assert_eq!(p.next_seq_no, 2, "the next message is seq_no 2");
}

fn a_rolled_back_consumer_attempt_reads_the_same_batch_again() {
    let mut db = database();
    let mut sim = Sim::fault_free();
    for seq_no in 1..=2 {
        db.write(&mut sim, "p0", 0, seq_no, encode_payload(0, seq_no, 0))
            .unwrap();
    }
    let consumer = Consumer {
        actor: "consumer",
        reader_id: 0,
        hot_key: 0,
    };
    let mut tx = db.begin();
    let first = consume(&mut db, &mut sim, &mut tx, &consumer).unwrap();
    // Rolled back, as the retry loop does after a failed attempt.
    db.rollback(&mut sim, "consumer", tx);
    let mut tx = db.begin();
    let again = consume(&mut db, &mut sim, &mut tx, &consumer).unwrap();
    db.commit(&mut sim, "consumer", tx).unwrap();
    assert_eq!(
        again.messages, first.messages,
        "the same messages come back"
    );
    assert_eq!(db.all_rows(SINK).len(), 2, "and land in the sink once each");
    assert_eq!(db.committed_offsets(CONSUMER), vec![2]);
}

fn every_schedule_of_the_small_scope_with_two_faults_keeps_exactly_once() {
    let exploration = explore_small(2);
    exploration.assert_ok();
    println!(
        "{} schedules explored ({:?} with 0, 1, 2 faults)",
        exploration.schedules, exploration.per_level
    );
    assert!(
        exploration.schedules <= 50_000,
        "{} schedules",
        exploration.schedules
    );
}

fn replay_hint(failure: &Option<fault::Failure>) -> String {
    match failure {
        Some(failure) => format!("\n{failure}\n"),
        None => String::new(),
    }
}

fn no_forward_gap_in_any_producer_sequence_under_seeded_chaos() {
    let (outcome, report) = chaos_run(CHAOS_SEED, Config::CHAOS, learner_protocol());
    assert_eq!(
        outcome.signals.lost,
        0,
        "{}{}",
        outcome.first_gap.clone().unwrap_or_default(),
        replay_hint(&report)
    );
    assert!(!outcome.stalled, "{}", replay_hint(&report));
}

fn the_audit_reads_every_committed_message_back_from_the_sink_exactly_once() {
    let (outcome, report) = chaos_run(CHAOS_SEED, Config::CHAOS, learner_protocol());
    let audit = &outcome.audit;
    let hint = replay_hint(&report);
    assert_eq!(audit.missing, vec![], "committed but not in the sink{hint}");
    assert_eq!(audit.duplicated, vec![], "in the sink more than once{hint}");
    assert_eq!(
        audit.unexpected,
        vec![],
        "in the sink, never committed{hint}"
    );
    let total = Config::CHAOS.producers as i64 * Config::CHAOS.messages_per_producer;
    assert_eq!(outcome.committed.iter().sum::<i64>(), total);
    assert_eq!(audit.rows as i64, total);
}

fn lock_conflicts_fired_and_the_retry_loop_absorbed_them() {
    let (outcome, _) = chaos_run(CHAOS_SEED, Config::CHAOS, learner_protocol());
    let signals = &outcome.signals;
    assert!(signals.aborts > 0, "no ABORTED: the mechanism never fired");
    assert!(
        signals.unavailable > 0 && signals.undetermined > 0,
        "{signals:?}"
    );
    assert!(!outcome.stalled, "the run did not finish: {signals:?}");
}

fn the_same_seed_gives_the_same_run() {
    let (first, _) = chaos_run(CHAOS_SEED, Config::CHAOS, learner_protocol());
    let (second, _) = chaos_run(CHAOS_SEED, Config::CHAOS, learner_protocol());
    assert_eq!(first.signals, second.signals);
    assert_eq!(first.windows, second.windows);
    let tokens = Token::parse_all(&[
        "v2:",
        "v2:1@be168",
        "v2:0.1.3@d45e3",
        "v2:0.0.0.1.0.1@9323a",
    ]);
    assert_eq!(fault::check_determinism(&tokens, small_scope), Ok(4));
}
