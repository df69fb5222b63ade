//! Each modelled behaviour, pinned to the documentation sentence it follows.

use super::*;
use labkit::fault::{Scope, Sim, Token, explore_all, replay};
use pretty_assertions::assert_eq;

const HOT: &str = "hot";
const SINK: &str = "sink";

fn db(chaos: Chaos) -> Ydb {
    let mut db = Ydb::in_memory(2, chaos);
    db.create_table(HOT);
    db.create_table(SINK);
    db
}

fn seqs(db: &Ydb) -> Vec<(i64, i64)> {
    db.all_messages()
        .iter()
        .map(|m| (m.producer_id, m.seq_no))
        .collect()
}

// https://docs.rs/crate/ydb/0.17.0/source/src/client_topic/topicwriter/writer_tx.rs
// "Messages written through this writer are attached to the transaction and become visible
// only after the transaction is committed."
#[test]
fn transactional_writer_messages_are_visible_only_after_commit() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    let mut tx = db.begin();
    tx.write(0, 1, "0:1:0".into());
    db.upsert(&mut tx, HOT, (0, 0), "1".into());
    assert_eq!(db.all_messages(), vec![], "buffered in the transaction");
    let mut other = db.begin();
    let seen = db
        .receive_batch_with_tx(&mut sim, "r", &mut other, "c", 10)
        .unwrap();
    assert_eq!(
        seen.messages,
        vec![],
        "a reader cannot see it before the commit"
    );
    db.commit(&mut sim, "w", tx).unwrap();
    assert_eq!(seqs(&db), vec![(0, 1)]);
    assert_eq!(db.all_rows(HOT), vec![((0, 0), "1".to_string())]);
}

// https://ydb.tech/docs/en/concepts/topic
// "All messages within a partition have a unique sequence number called an offset. An
// offset monotonically increases as new messages are written."
// "FIFO message processing guarantees for messages published with the same source ID."
#[test]
fn offsets_increase_within_a_partition_and_a_producer_stays_in_order() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    for seq_no in 1..=3 {
        for producer in 0..3 {
            db.write(
                &mut sim,
                "w",
                producer,
                seq_no,
                format!("{producer}:{seq_no}"),
            )
            .unwrap();
        }
    }
    let messages = db.all_messages();
    for partition in 0..2 {
        let offsets: Vec<i64> = messages
            .iter()
            .filter(|m| m.partition == partition)
            .map(|m| m.offset)
            .collect();
        let expected: Vec<i64> = (0..offsets.len() as i64).collect();
        assert_eq!(offsets, expected, "partition {partition}");
    }
    let producer_2: Vec<(i64, i64)> = messages
        .iter()
        .filter(|m| m.producer_id == 2)
        .map(|m| (m.partition, m.seq_no))
        .collect();
    assert_eq!(
        producer_2,
        vec![(0, 1), (0, 2), (0, 3)],
        "one partition, in order"
    );
}

// https://ydb.tech/docs/en/concepts/topic
// "Exactly-once delivery guarantees when publishing messages (to ensure there are no
// duplicate messages)."
#[test]
fn a_repeated_sequence_number_is_deduplicated() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    db.write(&mut sim, "w", 0, 1, "first".into()).unwrap();
    db.write(&mut sim, "w", 0, 1, "again".into()).unwrap();
    let mut tx = db.begin();
    tx.write(0, 1, "in a transaction".into());
    tx.write(0, 2, "new".into());
    let info = db.commit(&mut sim, "w", tx).unwrap();
    assert_eq!(
        info,
        CommitInfo {
            messages_written: 1,
            messages_deduplicated: 1
        }
    );
    assert_eq!(seqs(&db), vec![(0, 1), (0, 2)]);
    assert_eq!(db.stats().deduplicated, 2);
}

// https://docs.rs/ydb/0.13.4/ydb/struct.TopicReader.html (pop_batch_in_tx)
// "Read a batch of messages within a transaction context. The TopicReaderBatch from the
// result will be committed within the tx transaction."
// https://ydb.tech/docs/ru/concepts/topic (read position): "При установке новой сессии
// чтения сообщения поступают читателю начиная с сохраненной позиции чтения." (messages are
// delivered starting from the saved read position)
#[test]
fn a_batch_read_in_a_transaction_advances_the_offset_only_if_it_commits() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    for seq_no in 1..=3 {
        db.write(&mut sim, "w", 0, seq_no, seq_no.to_string())
            .unwrap();
    }
    // Rolled back (dropped without commit): the offset stays, the same messages come back.
    let mut tx = db.begin();
    let first = db
        .receive_batch_with_tx(&mut sim, "r", &mut tx, "c", 2)
        .unwrap();
    drop(tx);
    let mut tx = db.begin();
    let again = db
        .receive_batch_with_tx(&mut sim, "r", &mut tx, "c", 2)
        .unwrap();
    assert_eq!(again.messages, first.messages);
    assert_eq!(db.stats().redelivered, 2);
    db.upsert(&mut tx, SINK, (0, 1), "x".into());
    db.commit(&mut sim, "r", tx).unwrap();
    assert_eq!(db.committed_offsets("c"), vec![2, 0]);
    let mut tx = db.begin();
    let rest = db
        .receive_batch_with_tx(&mut sim, "r", &mut tx, "c", 10)
        .unwrap();
    let rest: Vec<i64> = rest.messages.iter().map(|m| m.seq_no).collect();
    assert_eq!(rest, vec![3]);
}

// https://ydb.tech/docs/en/troubleshooting/performance/queries/transaction-lock-invalidation
// "If the locks check during the commit phase reveals conflicting modifications, the
// committing transaction rolls back and must be restarted. In this case, YDB returns a
// transaction locks invalidated error."
#[test]
fn a_changed_read_version_aborts_the_commit_and_applies_nothing() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    let mut victim = db.begin();
    let mut breaker = db.begin();
    db.select(&mut sim, "v", &mut victim, HOT, (0, 0)).unwrap();
    db.select(&mut sim, "b", &mut breaker, HOT, (0, 0)).unwrap();
    db.upsert(&mut victim, HOT, (0, 0), "victim".into());
    victim.write(1, 1, "victim's message".into());
    db.upsert(&mut breaker, HOT, (0, 0), "breaker".into());
    db.commit(&mut sim, "b", breaker).unwrap();
    let error = db.commit(&mut sim, "v", victim).unwrap_err();
    assert_eq!(error.status, StatusCode::Aborted);
    assert!(error.is_locks_invalidated());
    assert_eq!(db.all_rows(HOT), vec![((0, 0), "breaker".to_string())]);
    assert_eq!(
        db.all_messages(),
        vec![],
        "the victim's message rolled back too"
    );
    assert_eq!(db.stats().locks_invalidated, 1);
}

// Same page: "Transaction lock invalidation (TLI) occurs when one transaction (the breaker)
// writes data and breaks the optimistic locks of another transaction (the victim)." Two
// consumer transactions that read the same offsets conflict the same way.
#[test]
fn two_transactions_reading_the_same_offsets_cannot_both_commit() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    db.write(&mut sim, "w", 0, 1, "m".into()).unwrap();
    let mut a = db.begin();
    let mut b = db.begin();
    db.receive_batch_with_tx(&mut sim, "a", &mut a, "c", 10)
        .unwrap();
    db.receive_batch_with_tx(&mut sim, "b", &mut b, "c", 10)
        .unwrap();
    db.commit(&mut sim, "a", a).unwrap();
    assert!(
        db.commit(&mut sim, "b", b)
            .unwrap_err()
            .is_locks_invalidated()
    );
}

// https://ydb.tech/docs/en/reference/ydb-sdk/ydb-status-codes
// ABORTED: "Retryable | Fast Backoff … Retry the entire transaction."
// UNAVAILABLE: "Retryable | Fast Backoff … A part of the system is not available."
// UNDETERMINED: "conditionally-retryable", and
// https://ydb.tech/en/docs/reference/ydb-sdk/error_handling: conditionally retryable errors
// "Only idempotent operations can be fixed with a retry."
#[test]
fn the_retry_policy_follows_the_status_code_table() {
    let policy = RetryPolicy::default();
    let aborted = YdbError {
        status: StatusCode::Aborted,
        issue: TLI,
    };
    let unavailable = YdbError {
        status: StatusCode::Unavailable,
        issue: "connection killed",
    };
    let undetermined = YdbError {
        status: StatusCode::Undetermined,
        issue: "commit outcome unknown",
    };
    assert_eq!(policy.next_delay(&aborted, 1), Some(2));
    assert_eq!(policy.next_delay(&aborted, 3), Some(8), "backoff doubles");
    assert_eq!(policy.next_delay(&unavailable, 1), Some(2));
    assert_eq!(policy.next_delay(&undetermined, 1), Some(2));
    let not_idempotent = RetryPolicy {
        idempotent: false,
        ..policy
    };
    assert_eq!(not_idempotent.next_delay(&undetermined, 1), None);
    assert_eq!(
        policy.next_delay(&aborted, policy.max_attempts),
        None,
        "gives up"
    );
}

fn one_commit(sim: &mut Sim) -> (Result<CommitInfo, YdbError>, Vec<(i64, i64)>) {
    let mut db = db(Chaos {
        kill_connections: false,
        commit_faults: true,
        lock_breaks: true,
    });
    let mut tx = db.begin();
    let hot = db.select(sim, "w", &mut tx, HOT, (0, 0)).unwrap();
    assert_eq!(hot, None);
    db.upsert(&mut tx, HOT, (0, 0), "1".into());
    tx.write(0, 1, "m".into());
    let result = db.commit(sim, "w", tx);
    (result, seqs(&db))
}

// https://ydb.tech/docs/en/reference/ydb-sdk/ydb-status-codes (UNDETERMINED is
// "conditionally-retryable": the client cannot tell whether the commit happened). Every fate
// of one commit, with the truth beside what the client saw.
#[test]
fn every_commit_fate_matches_its_hidden_truth() {
    let scope = Scope {
        lab: "10",
        scenario: "one-commit",
        max_faults: 1,
    };
    let exploration = explore_all(scope, |sim| {
        let _ = one_commit(sim);
        Ok(())
    });
    assert_eq!(exploration.schedules, 5);
    let mut seen = Vec::new();
    for index in 0..5 {
        let mut sim = Sim::replaying(&[index]);
        let (result, messages) = one_commit(&mut sim);
        let status = result.err().map(|e| e.status.name());
        seen.push((index, status, messages.len()));
    }
    assert_eq!(
        seen,
        vec![
            (0, None, 1),
            (1, Some("ABORTED"), 0),
            (2, Some("UNAVAILABLE"), 0),
            (3, Some("UNDETERMINED"), 1),
            (4, Some("UNDETERMINED"), 0),
        ]
    );
}

// https://ydb.tech/docs/en/reference/ydb-sdk/ydb-status-codes
// UNAVAILABLE: "A part of the system is not available." A killed connection fails the query
// with UNAVAILABLE, and a run without chaos never consults the fault core.
#[test]
fn a_killed_connection_fails_the_call_and_a_fault_free_run_makes_no_choices() {
    let mut db = db(Chaos::ALL);
    let mut sim = Sim::replaying(&[1]);
    let mut tx = db.begin();
    let error = db.select(&mut sim, "w", &mut tx, HOT, (0, 0)).unwrap_err();
    assert_eq!(error.status, StatusCode::Unavailable);

    let quiet = db_no_chaos_run();
    assert_eq!(quiet.path().len(), 0);
}

fn db_no_chaos_run() -> Sim {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    let mut tx = db.begin();
    db.select(&mut sim, "w", &mut tx, HOT, (0, 0)).unwrap();
    tx.write(0, 1, "m".into());
    db.commit(&mut sim, "w", tx).unwrap();
    sim
}

#[test]
fn the_same_token_replays_the_same_timeline() {
    let token = Token::unverified(vec![3]);
    let run = |sim: &mut Sim| {
        let _ = one_commit(sim);
        Ok(())
    };
    let first = replay(&token, run);
    let second = replay(&token, run);
    assert_eq!(first.timeline(), second.timeline());
    assert!(first.timeline().contains("UNDETERMINED"));
}

#[test]
fn percentiles_use_the_nearest_rank() {
    let values: Vec<u64> = (1..=100).collect();
    assert_eq!(percentile(&values, 50), 50);
    assert_eq!(percentile(&values, 99), 99);
    assert_eq!(percentile(&[7], 99), 7);
    assert_eq!(percentile(&[], 50), 0);
}
