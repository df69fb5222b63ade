//! Each modelled behaviour, pinned to the documentation sentence (or SDK test) it follows.

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

fn offsets(batch: &Batch) -> Vec<i64> {
    batch.messages.iter().map(|m| m.offset).collect()
}

/// A one-partition topic holding producer 0's messages 1..=n.
fn topic_with(n: i64) -> (Ydb, Sim) {
    let mut db = Ydb::in_memory(1, Chaos::NONE);
    db.create_table(SINK);
    let mut sim = Sim::fault_free();
    for seq_no in 1..=n {
        db.write(&mut sim, "w", 0, seq_no.to_string()).unwrap();
    }
    (db, sim)
}

// https://docs.rs/crate/ydb/0.17.0/source/src/client_topic/topicwriter/writer_tx.rs
// "Messages written through this writer are attached to the transaction and become visible
// only after the transaction is committed."
#[test]
fn transactional_writer_messages_are_visible_only_after_commit() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    let mut tx = db.begin();
    tx.write(0, "0:1:0".into());
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

// ydb-python-sdk, tests/topics/test_topic_transactions.py, `TestTopicTransactionalWriter`:
// `test_rollback` writes "123" through `tx_writer` and calls `tx.rollback()`, then
// `with pytest.raises(asyncio.TimeoutError): await wait_for(topic_reader.receive_message(),
// 0.1)`; `test_no_msg_written_in_error_case` does the same when the callee raises
// `BaseException("error")`, which `retry_tx_async` does not retry. A plain write is
// acknowledged on its own (`writer.write_with_ack`): "Messages written through this writer
// are attached to the transaction and become visible only after the transaction is
// committed" holds of the transactional writer only. So a transaction the application
// rolls back stores none of its messages, and a plain write made beside it stays.
#[test]
fn a_rolled_back_transaction_stores_none_of_its_messages_and_a_plain_write_stays() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    let mut tx = db.begin();
    db.write(&mut sim, "w", 0, "plain".into()).unwrap();
    tx.write(0, "in the transaction".into());
    db.upsert(&mut tx, HOT, (0, 0), "1".into());
    db.rollback(&mut sim, "w", tx);
    let payloads: Vec<String> = db.all_messages().into_iter().map(|m| m.payload).collect();
    assert_eq!(payloads, vec!["plain".to_string()]);
    assert_eq!(db.all_rows(HOT), vec![]);
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
            db.write(&mut sim, "w", producer, format!("{producer}:{seq_no}"))
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

// https://ydb.tech/docs/en/concepts/topic#seqno
// "If the server receives a message whose sequence number is less than or equal to the
// maximum number written for the `topic`, `source` pair, the message will be skipped as a
// duplicate. Some sequence numbers in the sequence may be skipped."
// So a number that was never written is skipped too, once a higher one was.
#[test]
fn a_sequence_number_not_above_the_highest_written_is_skipped() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    db.write_with_seq_no(&mut sim, "w", 0, 1, "first".into())
        .unwrap();
    db.write_with_seq_no(&mut sim, "w", 0, 1, "again".into())
        .unwrap();
    db.write_with_seq_no(&mut sim, "w", 0, 3, "a gap is allowed".into())
        .unwrap();
    let mut tx = db.begin();
    tx.write_with_seq_no(0, 2, "never written, but below 3".into());
    tx.write_with_seq_no(0, 3, "already held".into());
    tx.write_with_seq_no(0, 4, "new".into());
    let info = db.commit(&mut sim, "w", tx).unwrap();
    assert_eq!(
        info,
        CommitInfo {
            messages_written: 1,
            messages_deduplicated: 2
        }
    );
    assert_eq!(seqs(&db), vec![(0, 1), (0, 3), (0, 4)]);
    assert_eq!(db.stats().deduplicated, 3);
}

// ydb-python-sdk 3.31.2, ydb/_topic_writer/topic_writer.py: `auto_seqno: bool = True`;
// ydb/_topic_writer/topic_writer_asyncio.py: a new writer stream starts from the server's
// `self._last_known_seq_no = stream_writer.last_seqno`, and each message gets
// `self._last_known_seq_no += 1`. The topic-tx SLO workload (ydb-python-sdk, branch
// slo-topic-tx-transactions, tests/slo/TOPIC_TX_SCENARIO.md) opens a `tx_writer` inside the
// retried callee and says "a retried commit is at worst an app-level duplicate". So a
// transaction retried after its commit was applied (the client saw UNAVAILABLE) writes the
// same payload again, under the next sequence number.
#[test]
fn an_automatic_sequence_number_stores_a_retried_message_again() {
    let mut db = Ydb::in_memory(
        1,
        Chaos {
            commit_faults: true,
            ..Chaos::NONE
        },
    );
    // The first commit meets option 2 of those offered without lock breaks, "UNAVAILABLE
    // (connection lost, applied)"; the retry commits.
    let mut sim = Sim::replaying(&[2, 0]);
    let mut first = db.begin();
    first.write(0, "0:1:0:pad".into());
    let error = db.commit(&mut sim, "w", first).unwrap_err();
    assert_eq!(error.status, StatusCode::Unavailable);
    let mut retry = db.begin();
    retry.write(0, "0:1:0:pad".into());
    db.commit(&mut sim, "w", retry).unwrap();
    let stored: Vec<(i64, String)> = db
        .all_messages()
        .into_iter()
        .map(|m| (m.seq_no, m.payload))
        .collect();
    assert_eq!(
        stored,
        vec![(1, "0:1:0:pad".to_string()), (2, "0:1:0:pad".to_string())],
        "the same message twice, under two sequence numbers"
    );
}

// https://docs.rs/ydb/0.13.4/ydb/struct.TopicReader.html (pop_batch_in_tx)
// "Read a batch of messages within a transaction context. The TopicReaderBatch from the
// result will be committed within the tx transaction."
// https://ydb.tech/docs/en/concepts/topic#consumer-offset: "When a new read session is
// established, messages are delivered to the consumer starting with the saved consumer
// offset." ydb-rs-sdk, ydb/src/client_topic/topicreader/reader_tx.rs: when the transaction
// is aborted, the reader hook calls `force_reconnection("query transaction was aborted:
// force new connection")`; ydb/src/topic_reader_tx_test.rs,
// `query_topic_reader_tx_explicit_rollback_redelivers_messages`: after `tx.rollback()` the
// committed offset is 0 and the same reader reads the same payloads again.
#[test]
fn a_batch_read_in_a_transaction_advances_the_offset_only_if_it_commits() {
    let (mut db, mut sim) = topic_with(3);
    let mut tx = db.begin();
    let first = db
        .receive_batch_with_tx(&mut sim, "r", &mut tx, "c", 2)
        .unwrap();
    db.rollback(&mut sim, "r", tx);
    assert_eq!(db.committed_offsets("c"), vec![0]);
    let mut tx = db.begin();
    let again = db
        .receive_batch_with_tx(&mut sim, "r", &mut tx, "c", 2)
        .unwrap();
    assert_eq!(again.messages, first.messages);
    assert_eq!(db.stats().redelivered, 2);
    db.upsert(&mut tx, SINK, (0, 1), "x".into());
    db.commit(&mut sim, "r", tx).unwrap();
    assert_eq!(db.committed_offsets("c"), vec![2]);
    let mut tx = db.begin();
    let rest = db
        .receive_batch_with_tx(&mut sim, "r", &mut tx, "c", 10)
        .unwrap();
    let rest: Vec<i64> = rest.messages.iter().map(|m| m.seq_no).collect();
    assert_eq!(rest, vec![3]);
}

// https://ydb.tech/docs/en/reference/ydb-sdk/topic (Reading messages): "You can read
// messages without a commit as well. In this case, all uncommited messages, including those
// processed, will be read if there is a new connection." A live session goes on past
// uncommitted messages; they come back only with a new session.
#[test]
fn a_reader_session_reads_on_past_uncommitted_messages_until_it_ends() {
    let (mut db, mut sim) = topic_with(4);
    let first = db.receive_batch(&mut sim, "r", "c", 2).unwrap();
    let next = db.receive_batch(&mut sim, "r", "c", 2).unwrap();
    assert_eq!(offsets(&first), vec![0, 1]);
    assert_eq!(
        offsets(&next),
        vec![2, 3],
        "nothing was committed, yet it reads on"
    );
    assert_eq!(db.committed_offsets("c"), vec![0]);
    assert_eq!(db.read_positions("c"), vec![4]);
    db.end_read_session(&mut sim, "r", "c");
    let anew = db.receive_batch(&mut sim, "r", "c", 10).unwrap();
    assert_eq!(
        offsets(&anew),
        vec![0, 1, 2, 3],
        "a new session starts at the committed offset"
    );
    assert_eq!(db.stats().read_sessions_ended, 1);
}

// ydb-rs-sdk, ydb/src/topic_reader_tx_test.rs,
// `query_topic_reader_tx_rewrap_same_reader_same_tx_commits_all_offsets`: two `read_batch`
// calls (batch size 1) in one transaction, then the commit; the test waits for the committed
// offset to reach both messages. And an open transaction does not hold the session back:
// the next transaction's read continues after it.
#[test]
fn a_transaction_reads_several_batches_and_the_session_reads_past_an_open_transaction() {
    let (mut db, mut sim) = topic_with(5);
    let mut first = db.begin();
    let a = db
        .receive_batch_with_tx(&mut sim, "r", &mut first, "c", 1)
        .unwrap();
    let b = db
        .receive_batch_with_tx(&mut sim, "r", &mut first, "c", 1)
        .unwrap();
    assert_eq!((offsets(&a), offsets(&b)), (vec![0], vec![1]));
    let mut second = db.begin();
    let c = db
        .receive_batch_with_tx(&mut sim, "r", &mut second, "c", 2)
        .unwrap();
    assert_eq!(
        offsets(&c),
        vec![2, 3],
        "read while the first is still open"
    );
    db.commit(&mut sim, "r", first).unwrap();
    assert_eq!(db.committed_offsets("c"), vec![2], "both batches committed");
    db.commit(&mut sim, "r", second).unwrap();
    assert_eq!(db.committed_offsets("c"), vec![4]);
}

// https://ydb.tech/docs/en/concepts/topic#topic-transactions-read: "within transactional
// reads from a topic, only the offset commit is a true transactional operation. The
// postponed offset commit occurs automatically at the transaction commit."
// ydb-python-sdk 3.31.2, ydb/_topic_reader/topic_reader_asyncio.py, `_commit_batches_with_tx`:
// "The reader reconnected between receive_batch_with_tx() and tx.commit(), so these offsets
// belong to a partition session that no longer exists." ... "Fail the tx instead
// (retriable) without sending the request"; tests/topics/test_topic_transactions.py,
// `test_tx_commit_after_reconnect_does_not_commit_stale_offsets`: "The consumer offset must
// not have advanced: the message is read again." Two transactions that read the same
// offsets through two sessions: the one from the ended session fails, the other commits.
#[test]
fn a_batch_from_an_ended_session_fails_its_commit_before_it_is_sent() {
    let (mut db, mut sim) = topic_with(2);
    let mut old = db.begin();
    db.receive_batch_with_tx(&mut sim, "r", &mut old, "c", 10)
        .unwrap();
    db.end_read_session(&mut sim, "r", "c");
    let error = db.commit(&mut sim, "r", old).unwrap_err();
    assert_eq!(error.status, StatusCode::ClientInternalError);
    assert_eq!(db.committed_offsets("c"), vec![0], "not advanced");
    assert_eq!(db.stats().commits, 0, "the commit was never sent");
    let mut new = db.begin();
    let again = db
        .receive_batch_with_tx(&mut sim, "r", &mut new, "c", 10)
        .unwrap();
    assert_eq!(offsets(&again), vec![0, 1], "the messages are read again");
    db.commit(&mut sim, "r", new).unwrap();
    assert_eq!(db.committed_offsets("c"), vec![2]);
}

// The offset check at commit, for two transactions of the same live session: the second
// read continues after the first, so if the first never commits, the second's range does
// not continue the committed offset. (A paraphrase: the documentation does not spell this
// case out; the server refuses an offset range with a gap, which the Python SDK's comment
// above calls "server \"Gap\"".)
#[test]
fn an_offset_range_that_does_not_continue_the_committed_offset_is_aborted() {
    let (mut db, mut sim) = topic_with(4);
    let mut first = db.begin();
    db.receive_batch_with_tx(&mut sim, "r", &mut first, "c", 2)
        .unwrap();
    let mut second = db.begin();
    db.receive_batch_with_tx(&mut sim, "r", &mut second, "c", 2)
        .unwrap();
    drop(first);
    let error = db.commit(&mut sim, "r", second).unwrap_err();
    assert_eq!(error.status, StatusCode::Aborted, "{error}");
    assert_eq!(db.committed_offsets("c"), vec![0]);
}

// ydb-rs-sdk, ydb/src/client_topic/topicreader/reader_tx.rs: `QueryTxCommitStatus::Aborted`
// forces a reconnection of the reader, and ydb/src/client_query/mod.rs notifies the hooks
// with `Aborted` when the commit returns an error. So after a failed commit (here a definite
// OVERLOADED) the reader starts again at the committed offset.
#[test]
fn a_failed_commit_ends_the_reader_session() {
    let mut db = Ydb::in_memory(
        1,
        Chaos {
            commit_faults: true,
            ..Chaos::NONE
        },
    );
    let mut sim = Sim::replaying(&[1]); // the commit's first fault option: OVERLOADED
    for seq_no in 1..=2 {
        db.write(&mut sim, "w", 0, seq_no.to_string()).unwrap();
    }
    let mut tx = db.begin();
    db.receive_batch_with_tx(&mut sim, "r", &mut tx, "c", 10)
        .unwrap();
    assert_eq!(db.read_positions("c"), vec![2]);
    let error = db.commit(&mut sim, "r", tx).unwrap_err();
    assert_eq!(error.status, StatusCode::Overloaded);
    assert_eq!(
        db.read_positions("c"),
        vec![0],
        "the next session starts at 0"
    );
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
    victim.write(1, "victim's message".into());
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

// https://ydb.tech/docs/en/reference/ydb-sdk/ydb-status-codes
// ABORTED: "Retryable | Fast Backoff … Retry the entire transaction."
// OVERLOADED: "Retryable | Slow Backoff … A part of the system is overloaded. Retry the last
// action (query) and reduce the query rate."
// UNDETERMINED: "conditionally-retryable"; https://ydb.tech/en/docs/reference/ydb-sdk/error_handling:
// conditionally retryable errors "Only idempotent operations can be fixed with a retry."
// https://ydb.tech/docs/en/reference/ydb-sdk/grpc-status-codes: "14 UNAVAILABLE
// conditionally-retryable fast" (the transport's code, not the server's 400050).
// google/rpc/code.proto, UNAVAILABLE: "Note that it is not always safe to retry
// non-idempotent operations."
// The lab runs inside the Python SDK, whose retry loop differs for a broken connection.
// ydb-python-sdk 3.31.2, ydb/_errors.py: `_errors_retriable_fast_backoff_types = [
// issues.Unavailable, issues.ClientInternalError, issues.SessionExpired, ]`,
// `_errors_retriable_slow_backoff_types = [ issues.Aborted, …, issues.Overloaded, …,
// issues.ConnectionError, issues.ConnectionLost, ]`, and only
// `_errors_retriable_slow_backoff_idempotent_types = [ issues.Undetermined, ]` is behind
// `if retry_settings.idempotent:`. ydb/connection.py, `_rpc_error_handler`: a gRPC
// UNAVAILABLE becomes `issues.Unavailable(rpc_error.details())` on a stream
// (`use_unavailable=True`) and `issues.ConnectionLost("Rpc error, reason …")` otherwise.
// So with `idempotent=False` an UNAVAILABLE is retried; an UNDETERMINED is not.
#[test]
fn the_retry_policy_follows_the_python_sdk() {
    let policy = RetrySettings::default();
    let aborted = YdbError {
        status: StatusCode::Aborted,
        issue: TLI,
    };
    let overloaded = YdbError {
        status: StatusCode::Overloaded,
        issue: "a shard's queue is full",
    };
    let unavailable = YdbError {
        status: StatusCode::Unavailable,
        issue: "connection lost during commit",
    };
    let undetermined = YdbError {
        status: StatusCode::Undetermined,
        issue: "commit outcome unknown",
    };
    assert_eq!(policy.next_delay(&aborted, 1), Some(2));
    assert_eq!(policy.next_delay(&aborted, 3), Some(8), "backoff doubles");
    assert_eq!(policy.next_delay(&overloaded, 1), Some(8), "slow backoff");
    assert_eq!(policy.next_delay(&unavailable, 1), Some(2));
    assert_eq!(policy.next_delay(&undetermined, 1), Some(2));
    let not_idempotent = RetrySettings {
        idempotent: false,
        ..policy
    };
    assert_eq!(
        not_idempotent.next_delay(&undetermined, 1),
        None,
        "only UNDETERMINED waits for idempotent=True"
    );
    assert_eq!(
        not_idempotent.next_delay(&unavailable, 1),
        Some(2),
        "a broken connection is retried whatever idempotent says"
    );
    assert_eq!(not_idempotent.next_delay(&aborted, 1), Some(2));
    assert_eq!(
        not_idempotent.next_delay(&overloaded, 1),
        Some(8),
        "nothing was applied: safe to repeat"
    );
    assert!(unavailable.status.is_indefinite() && undetermined.status.is_indefinite());
    assert!(!aborted.status.is_indefinite() && !overloaded.status.is_indefinite());
    assert_eq!(
        policy.next_delay(&aborted, policy.max_retries + 1),
        None,
        "gives up after max_retries retries"
    );
    let client = YdbError {
        status: StatusCode::ClientInternalError,
        issue: "Topic reader partition session expired before tx commit",
    };
    assert_eq!(
        not_idempotent.next_delay(&client, 1),
        Some(2),
        "fast backoff"
    );
    assert!(!client.status.is_indefinite(), "the commit was never sent");
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
    tx.write(0, "m".into());
    let result = db.commit(sim, "w", tx);
    (result, seqs(&db))
}

// https://ydb.tech/docs/en/reference/ydb-sdk/ydb-status-codes (UNDETERMINED is
// "conditionally-retryable": the client cannot tell whether the commit happened), the
// grpc-status-codes page (the transport's UNAVAILABLE is conditionally retryable too),
// google/rpc/code.proto's UNAVAILABLE ("not always safe to retry non-idempotent
// operations") and https://ydb.tech/docs/en/troubleshooting/performance/schemas/overloaded-shards
// ("If a data shard already has 10000 operations in its queue, new queries will return an
// "overloaded" error": refused, so nothing applied). Every fate of one commit, with the
// truth beside what the client saw: UNAVAILABLE and UNDETERMINED each come applied and not
// applied; ABORTED and OVERLOADED apply nothing.
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
    assert_eq!(exploration.schedules, 7);
    let mut seen = Vec::new();
    for index in 0..7 {
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
            (2, Some("OVERLOADED"), 0),
            (3, Some("UNAVAILABLE"), 1),
            (4, Some("UNAVAILABLE"), 0),
            (5, Some("UNDETERMINED"), 1),
            (6, Some("UNDETERMINED"), 0),
        ]
    );
}

// https://ydb.tech/docs/en/reference/ydb-sdk/grpc-status-codes: "14 UNAVAILABLE
// conditionally-retryable"; google/rpc/code.proto: UNAVAILABLE "is most likely a transient
// condition ... Note that it is not always safe to retry non-idempotent operations." A killed
// connection fails a query with UNAVAILABLE; a plain write or offset commit that fails
// UNAVAILABLE was applied in some schedules and not in others. A run without chaos never
// consults the fault core.
#[test]
fn a_killed_connection_fails_the_call_and_leaves_a_plain_write_unknown() {
    let mut db = db(Chaos::ALL);
    let mut sim = Sim::replaying(&[1]);
    let mut tx = db.begin();
    let error = db.select(&mut sim, "w", &mut tx, HOT, (0, 0)).unwrap_err();
    assert_eq!(error.status, StatusCode::Unavailable);

    let mut written = Vec::new();
    for path in [1, 2] {
        let mut fresh = Ydb::in_memory(1, Chaos::ALL);
        let mut sim = Sim::replaying(&[path]);
        let error = fresh.write(&mut sim, "w", 0, "m".into()).unwrap_err();
        assert_eq!(error.status, StatusCode::Unavailable);
        written.push(seqs(&fresh).len());
    }
    assert_eq!(
        written,
        vec![0, 1],
        "not applied, then applied: the same answer"
    );

    let quiet = db_no_chaos_run();
    assert_eq!(quiet.path().len(), 0);
}

// ydb_topic.proto: a plain offset commit is `StreamReadMessage.CommitOffsetRequest`, a
// message of the read stream ("Signal for server that client processed some read data"),
// naming the "partition session with data to commit". So a killed connection during it is
// a broken read stream: the session ends, and the answer says nothing about the commit.
#[test]
fn a_killed_offset_commit_is_unknown_and_ends_the_session() {
    let mut committed = Vec::new();
    for path in [1, 2] {
        let mut db = Ydb::in_memory(1, Chaos::ALL);
        // The write and the read answer (option 0); the offset commit meets `path`.
        let mut sim = Sim::replaying(&[0, 0, path]);
        db.write(&mut sim, "w", 0, "m".into()).unwrap();
        let batch = db.receive_batch(&mut sim, "r", "c", 10).unwrap();
        assert_eq!(db.read_positions("c"), vec![1], "the session read on");
        let error = db.commit_with_ack(&mut sim, "r", "c", &batch).unwrap_err();
        assert_eq!(error.status, StatusCode::Unavailable);
        committed.push(db.committed_offsets("c"));
        assert_eq!(
            db.read_positions("c"),
            db.committed_offsets("c"),
            "a new session starts at the committed offset"
        );
    }
    assert_eq!(
        committed,
        vec![vec![0], vec![1]],
        "not applied, then applied"
    );
}

fn db_no_chaos_run() -> Sim {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    let mut tx = db.begin();
    db.select(&mut sim, "w", &mut tx, HOT, (0, 0)).unwrap();
    tx.write(0, "m".into());
    db.commit(&mut sim, "w", tx).unwrap();
    sim
}

#[test]
fn the_same_token_replays_the_same_timeline() {
    let token = Token::unverified(vec![5]);
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

// ydb-python-sdk 3.31.2, ydb/_topic_writer/topic_writer.py: `producer_id: Optional[str] =
// None,  # default - random` and, in `PublicWriterSettings.__post_init__`,
// `self.producer_id = uuid.uuid4().hex`. https://ydb.tech/docs/en/concepts/topic#seqno:
// duplicates are skipped per "`topic`, `source` pair"; the same page (producer-id): "We
// strongly recommend that you don't use random or pseudo-random source IDs." So a writer
// that restarts with the default id writes a message again under a pair the topic has never
// seen, and the topic stores it again, while a named producer's retry is skipped.
#[test]
fn a_writer_restarted_with_a_random_producer_id_is_not_deduplicated() {
    let mut db = db(Chaos::NONE);
    let mut sim = Sim::fault_free();
    let first = db.random_producer_id();
    let second = db.random_producer_id();
    assert_ne!(first, second, "every writer gets a new id");
    assert!(first >= RANDOM_PRODUCER_IDS_FROM);
    db.write_with_seq_no(&mut sim, "w", first, 1, "0:1".into())
        .unwrap();
    db.write_with_seq_no(&mut sim, "w", second, 1, "0:1".into())
        .unwrap();
    db.write_with_seq_no(&mut sim, "w", 7, 1, "7:1".into())
        .unwrap();
    db.write_with_seq_no(&mut sim, "w", 7, 1, "7:1".into())
        .unwrap();
    let payloads: Vec<String> = db.all_messages().into_iter().map(|m| m.payload).collect();
    let copies = |p: &str| payloads.iter().filter(|q| *q == p).count();
    assert_eq!(copies("0:1"), 2, "a new producer id: a new sequence");
    assert_eq!(copies("7:1"), 1, "the same producer id: skipped");
    assert_eq!(db.stats().deduplicated, 1);
}
