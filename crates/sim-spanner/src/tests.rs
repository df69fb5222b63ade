//! Each modelled behaviour, pinned to the documentation sentence it follows.

use super::*;
use labkit::fault::{Crash, Scope, Sim, Token, explore_all, replay};
use pretty_assertions::assert_eq;

const ORDERS: &str = "orders";

/// The error type of the test callbacks.
#[derive(Debug, PartialEq)]
enum Stop {
    Spanner(SpannerError),
    #[allow(dead_code)]
    Crash(Crash),
}

impl From<SpannerError> for Stop {
    fn from(e: SpannerError) -> Self {
        Stop::Spanner(e)
    }
}

/// Runs `body` on the schedule given by `path` (the indices of the fault core's choices).
fn on_schedule<T>(path: &[usize], body: impl FnOnce(&mut Sim) -> T) -> T {
    let mut sim = Sim::replaying(path);
    body(&mut sim)
}

fn order(amount: i64) -> Row {
    Row::new().with("amount", amount)
}

// The runner's first commit choice: 0 ok, 1 ABORTED, 2 applied + response lost,
// 3 not applied, 4 applied later.
const ABORTED: usize = 1;
const APPLIED_RESPONSE_LOST: usize = 2;
const NOT_APPLIED: usize = 3;
const APPLIED_LATER: usize = 4;

#[test]
fn an_aborted_commit_runs_the_callback_again() {
    // https://cloud.google.com/java/docs/reference/google-cloud-spanner/latest/com.google.cloud.spanner.TransactionRunner
    // "callable will be retried if a transaction attempt aborts; implementations must be
    // prepared to be called more than once."
    // https://cloud.google.com/java/docs/reference/google-cloud-spanner/latest/com.google.cloud.spanner.TransactionRunner.TransactionCallable
    // "This method may be called more than once if previous transaction attempts aborted."
    let (calls, committed) = on_schedule(&[ABORTED], |sim| {
        let mut db = Database::new();
        let mut calls = 0;
        let committed = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            calls += 1;
            txn.insert(ORDERS, "o1", order(10));
            Ok(())
        });
        (calls, committed)
    });
    assert_eq!(calls, 2);
    assert_eq!(committed.unwrap().attempts, 2);
}

#[test]
fn mutations_of_an_aborted_attempt_are_not_applied() {
    // TransactionRunner (URL above): "Any writes buffered by callable will only be
    // applied if the transaction commits successfully."
    // https://cloud.google.com/spanner/docs/transactions
    // "All operations in a transaction are atomic, meaning either they all succeed or they
    // all fail."
    let db = on_schedule(&[ABORTED], |sim| {
        let mut db = Database::new();
        let mut attempt = 0;
        run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            attempt += 1;
            // Each attempt writes its own row; only the committed attempt's row remains.
            txn.insert(ORDERS, &format!("attempt-{attempt}"), order(10));
            Ok(())
        })
        .unwrap();
        db
    });
    assert_eq!(
        db.rows(ORDERS)
            .into_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>(),
        ["attempt-2"]
    );
}

#[test]
fn the_runner_gives_up_after_max_attempts_and_returns_aborted() {
    let (calls, result) = on_schedule(&[ABORTED, ABORTED, ABORTED], |sim| {
        let mut db = Database::new();
        let mut calls = 0;
        let result = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            calls += 1;
            txn.insert(ORDERS, "o1", order(10));
            Ok(())
        });
        (calls, result.map(|_| ()))
    });
    assert_eq!(calls, MAX_ATTEMPTS);
    assert_eq!(
        result,
        Err(Stop::Spanner(SpannerError {
            code: Code::Aborted
        }))
    );
}

#[test]
fn a_callback_error_rolls_back_and_is_returned_without_a_retry() {
    // https://googleapis.dev/java/google-cloud-spanner/latest/com/google/cloud/spanner/TransactionRunner.TransactionCallable.html
    // "Otherwise, the framework will roll back the transaction, releasing any locks held,
    // and yield the exception to the caller".
    let (calls, db) = on_schedule(&[], |sim| {
        let mut db = Database::new();
        let mut calls = 0;
        let result = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            calls += 1;
            txn.insert(ORDERS, "o1", order(10));
            Err(Stop::Spanner(SpannerError {
                code: Code::NotFound,
            }))
        });
        assert!(result.is_err());
        (calls, db)
    });
    assert_eq!(calls, 1);
    assert_eq!(db.count(ORDERS), 0);
}

#[test]
fn deadline_exceeded_on_commit_is_neither_rollback_nor_success() {
    // https://cloud.google.com/spanner/docs/deadline-exceeded
    // "This error indicates that a response has not been received within the configured
    // timeout period."
    // https://cloud.google.com/ruby/docs/reference/google-cloud-errors/latest/Google-Cloud-DeadlineExceededError
    // "For operations that change the state of the system, this error may be returned
    // even if the operation has completed successfully."
    // https://cloud.google.com/spanner/docs/error-codes: "Google APIs, including Spanner,
    // use the canonical error codes defined by google.rpc.Code", whose DEADLINE_EXCEEDED
    // carries the same warning (e.g. gax's DeadlineExceededException: "For operations that
    // change the state of the system, this error may be returned even if the operation has
    // completed successfully.").
    let outcome = |path: &[usize]| {
        on_schedule(path, |sim| {
            let mut db = Database::new();
            let mut calls = 0;
            let seen = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
                calls += 1;
                txn.insert(ORDERS, "o1", order(10));
                Ok(())
            })
            .map(|c| c.commit_timestamp);
            let right_after = db.read(ORDERS, "o1").is_some();
            // Another transaction commits; a commit still in flight lands before it.
            run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
                txn.insert_or_update(ORDERS, "o2", order(20));
                Ok(())
            })
            .unwrap();
            let later = db.read(ORDERS, "o1").is_some();
            (seen, calls, right_after, later)
        })
    };
    let deadline = Err(Stop::Spanner(SpannerError {
        code: Code::DeadlineExceeded,
    }));
    // The caller sees the same error three times; the runner does not call the callback
    // again for DEADLINE_EXCEEDED.
    assert_eq!(outcome(&[APPLIED_RESPONSE_LOST]), (deadline, 1, true, true));
    let deadline = Err(Stop::Spanner(SpannerError {
        code: Code::DeadlineExceeded,
    }));
    assert_eq!(outcome(&[NOT_APPLIED]), (deadline, 1, false, false));
    let deadline = Err(Stop::Spanner(SpannerError {
        code: Code::DeadlineExceeded,
    }));
    assert_eq!(outcome(&[APPLIED_LATER]), (deadline, 1, false, true));
    assert_eq!(outcome(&[]), (Ok(1), 1, true, true));
}

#[test]
fn a_row_written_after_the_transaction_read_it_aborts_the_commit() {
    // https://googleapis.dev/java/google-cloud-clients/0.94.0-alpha/com/google/cloud/spanner/TransactionContext.html
    // "Cloud Spanner can commit the transaction if all read locks it acquired are still
    // valid at commit time, and it is able to acquire write locks for all writes."
    // Here: the first attempt's commit is applied later; the second transaction read the
    // row before the late commit landed, so its commit aborts and its callback runs again,
    // now seeing the row.
    let seen_by_attempts = on_schedule(&[APPLIED_LATER], |sim| {
        let mut db = Database::new();
        let first = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            txn.insert(ORDERS, "o1", order(10));
            Ok(())
        });
        assert!(first.is_err());
        let mut seen = Vec::new();
        run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            let existing = txn.read(ORDERS, "o1");
            seen.push(existing.is_some());
            if existing.is_none() {
                txn.insert(ORDERS, "o1", order(10));
            }
            Ok(())
        })
        .unwrap();
        seen
    });
    assert_eq!(seen_by_attempts, [false, true]);
}

#[test]
fn an_insert_that_does_not_read_first_meets_a_late_commit_with_already_exists() {
    // https://cloud.google.com/spanner/docs/error-codes, ALREADY_EXISTS: "The entity that a
    // client attempted to create already exists (for example, inserting a row with an
    // existing primary key)." Recommended action: "Don't retry without fixing the
    // problem." Here the first insert's commit ended DEADLINE_EXCEEDED and is applied
    // later: it lands before the second transaction's commit. Without a read of its own,
    // the second transaction is refused, definitely; the same request gets the same
    // answer (chapter 2's job leaves such an intent to an operator).
    let (second, again, amount) = on_schedule(&[APPLIED_LATER], |sim| {
        let mut db = Database::new();
        let insert = |db: &mut Database, sim: &mut Sim| {
            run_transaction(db, sim, |txn, _sim| -> Result<(), Stop> {
                txn.insert(ORDERS, "o1", order(10));
                Ok(())
            })
            .map(|_| ())
        };
        assert!(
            insert(&mut db, sim).is_err(),
            "the first commit is in flight"
        );
        let second = insert(&mut db, sim);
        let again = insert(&mut db, sim);
        (
            second,
            again,
            db.read(ORDERS, "o1").and_then(|r| r.int("amount")),
        )
    });
    let refused = || {
        Err(Stop::Spanner(SpannerError {
            code: Code::AlreadyExists,
        }))
    };
    assert_eq!((second, again, amount), (refused(), refused(), Some(10)));
}

#[test]
fn inserting_an_existing_row_fails_with_already_exists_and_applies_nothing() {
    // https://cloud.google.com/spanner/docs/error-codes (ALREADY_EXISTS; paraphrased): the
    // entity the client tried to create, for example a row with an existing primary key,
    // already exists. A commit applies all of its mutations or none of them.
    let (result, db) = on_schedule(&[], |sim| {
        let mut db = Database::new();
        db.seed(&[Mutation::Insert {
            table: ORDERS,
            key: "o1".into(),
            row: order(10),
        }]);
        let result = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            txn.insert(ORDERS, "o2", order(20));
            txn.insert(ORDERS, "o1", order(99));
            Ok(())
        });
        (result.map(|_| ()), db)
    });
    assert_eq!(
        result,
        Err(Stop::Spanner(SpannerError {
            code: Code::AlreadyExists
        }))
    );
    assert_eq!(db.count(ORDERS), 1, "o2 is not applied either");
    assert_eq!(db.read(ORDERS, "o1").unwrap().int("amount"), Some(10));
}

#[test]
fn updating_a_missing_row_fails_with_not_found_and_applies_nothing() {
    // https://cloud.google.com/spanner/docs/reference/rest/v1/projects.instances.databases.sessions/commit
    // (Mutation.update): "Update existing rows in a table. If any of the rows does not
    // already exist, the transaction fails with error NOT_FOUND."
    let (result, db) = on_schedule(&[], |sim| {
        let mut db = Database::new();
        db.seed(&[Mutation::Insert {
            table: ORDERS,
            key: "o1".into(),
            row: order(10),
        }]);
        let result = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            txn.update(ORDERS, "o1", order(11));
            txn.update(ORDERS, "o2", order(20));
            Ok(())
        });
        (result.map(|_| ()), db)
    });
    assert_eq!(
        result,
        Err(Stop::Spanner(SpannerError {
            code: Code::NotFound
        }))
    );
    assert_eq!(db.count(ORDERS), 1, "o2 is not created");
    assert_eq!(
        db.read(ORDERS, "o1").unwrap().int("amount"),
        Some(10),
        "the update of o1 is not applied either"
    );
}

#[test]
fn reads_do_not_see_the_transactions_own_buffered_mutations() {
    // https://cloud.google.com/spanner/docs/transactions (Semantics): "However, if you use
    // mutations, changes are buffered locally and are only visible after the transaction
    // commits."
    // java-spanner, TransactionContext.buffer: "The effects of this mutation will not be
    // visible to subsequent operations in the transaction."
    let seen = on_schedule(&[], |sim| {
        let mut db = Database::new();
        run_transaction(&mut db, sim, |txn, _sim| -> Result<bool, Stop> {
            txn.insert(ORDERS, "o1", order(10));
            Ok(txn.read(ORDERS, "o1").is_some())
        })
        .unwrap()
        .value
    });
    assert!(!seen);
}

#[test]
fn commit_timestamps_come_from_the_logical_clock_and_increase() {
    // https://cloud.google.com/spanner/docs/transactions (Semantics): "The timestamp at
    // which read-write transactions execute matches elapsed time. The serialization order
    // matches this timestamp order."
    // Here elapsed time is the fault core's logical clock (one tick a second, and one tick
    // per choice). A commit that ended DEADLINE_EXCEEDED and lands later is stamped with
    // the time it lands, not the time it was sent.
    let (stamps, clock_at_commits, late) = on_schedule(&[0, 0, APPLIED_LATER], |sim| {
        let mut db = Database::new();
        let mut stamps = Vec::new();
        let mut clock = Vec::new();
        for i in 0..2 {
            sim.advance(40);
            let committed = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
                txn.insert_or_update(ORDERS, "o1", order(i));
                Ok(())
            })
            .unwrap();
            stamps.push(committed.commit_timestamp);
            clock.push(sim.now());
        }
        // A commit still in flight lands ten seconds later, when the faults heal.
        let _ = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            txn.insert_or_update(ORDERS, "o2", order(2));
            Ok(())
        });
        let before = db.last_commit_timestamp();
        sim.advance(10);
        db.land_in_flight(sim);
        (
            stamps,
            clock,
            (before, db.last_commit_timestamp(), sim.now()),
        )
    });
    assert_eq!(stamps, clock_at_commits);
    assert_eq!(stamps, [41, 82]);
    let (before, landed, now) = late;
    assert_eq!((before, landed, now), (82, 93, 93));
}

// ---- Item: a scan is a range read (phantoms abort the reader) ----

const REPORTS: &str = "reports";

/// A reconciliation that scans `ORDERS` (all of it, or `[start, end)`), and records how
/// many orders it saw; returns the count each attempt saw and the committed report.
fn reconcile_while_an_insert_lands(range: Option<(&str, &str)>) -> (Vec<usize>, Option<i64>) {
    // The first commit (o2's insert) is applied later: it lands just before the
    // reconciliation's commit, after its scan.
    on_schedule(&[APPLIED_LATER], |sim| {
        let mut db = Database::new();
        db.seed(&[Mutation::Insert {
            table: ORDERS,
            key: "o1".into(),
            row: order(10),
        }]);
        let insert = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            txn.insert(ORDERS, "o2", order(20));
            Ok(())
        });
        assert!(insert.is_err(), "o2's insert is still in flight");
        let mut seen = Vec::new();
        run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            let orders = match range {
                None => txn.scan(ORDERS),
                Some((start, end)) => txn.scan_range(ORDERS, start, end),
            };
            seen.push(orders.len());
            txn.insert_or_update(
                REPORTS,
                "r1",
                Row::new().with("orders", orders.len() as i64),
            );
            Ok(())
        })
        .unwrap();
        (seen, db.read(REPORTS, "r1").and_then(|r| r.int("orders")))
    })
}

#[test]
fn a_scan_conflicts_with_an_insert_into_its_range() {
    // https://cloud.google.com/spanner/docs/transactions (Semantics, read-write
    // transactions with serializable isolation): after a successful commit, "The
    // transaction returns values that reflect a consistent snapshot at the transaction's
    // commit timestamp." and "Empty rows or ranges remain empty at commit time."
    // A scan that missed a row inserted before its commit would report a snapshot that
    // never existed at the commit timestamp (a phantom); the commit aborts instead, and
    // the runner's second attempt sees the row.
    let (seen, report) = reconcile_while_an_insert_lands(None);
    assert_eq!(seen, [1, 2]);
    assert_eq!(report, Some(2));
}

#[test]
fn a_range_read_does_not_conflict_with_a_write_outside_its_range() {
    // https://cloud.google.com/spanner/docs/transactions (Performance): "By using secondary
    // indexes to limit the scanned rows to a smaller range, Spanner locks fewer rows in the
    // table, thereby enabling greater concurrent modification of rows outside of that
    // specific range."
    // [a, o2) holds o1 only: the insert of o2 lands outside it, the first attempt commits.
    assert_eq!(
        reconcile_while_an_insert_lands(Some(("a", "o2"))),
        (vec![1], Some(1))
    );
    // [a, p) holds o2's key: the insert is a phantom of that range.
    assert_eq!(
        reconcile_while_an_insert_lands(Some(("a", "p"))),
        (vec![1, 2], Some(2))
    );
}

#[test]
fn reading_an_absent_row_conflicts_with_its_insert() {
    // Same page: "Empty rows or ranges remain empty at commit time." A read that found no
    // row is validated like any other read.
    let seen = on_schedule(&[APPLIED_LATER], |sim| {
        let mut db = Database::new();
        let _ = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            txn.insert(ORDERS, "o9", order(90));
            Ok(())
        });
        let mut seen = Vec::new();
        run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            seen.push(txn.read(ORDERS, "o9").is_some());
            txn.insert_or_update(REPORTS, "r1", Row::new().with("o9", true));
            Ok(())
        })
        .unwrap();
        seen
    });
    assert_eq!(seen, [false, true]);
}

// ---- Item: DML inside a read-write transaction ----

fn dml_insert(key: &str, amount: i64) -> Dml {
    Dml::Insert {
        table: ORDERS,
        key: key.into(),
        row: order(amount),
    }
}

#[test]
fn dml_writes_are_visible_to_later_reads_and_mutations_are_not() {
    // https://cloud.google.com/spanner/docs/transactions (Semantics): "Regardless of
    // isolation level, when using DML statements, changes are immediately visible to
    // subsequent read statements within the same transaction. However, if you use
    // mutations, changes are buffered locally and are only visible after the transaction
    // commits."
    // java-spanner, TransactionContext.executeUpdate: "The effects of the DML statement
    // will be visible to subsequent operations in the transaction."
    let (seen, rows) = on_schedule(&[], |sim| {
        let mut db = Database::new();
        let seen = run_transaction(&mut db, sim, |txn, sim| -> Result<_, Stop> {
            txn.insert(ORDERS, "m1", order(1));
            let inserted = txn.execute_update(sim, dml_insert("d1", 2))?;
            let updated = txn.execute_update(
                sim,
                Dml::Update {
                    table: ORDERS,
                    key: "d1".into(),
                    row: order(3),
                },
            )?;
            let missing = txn.execute_update(
                sim,
                Dml::Update {
                    table: ORDERS,
                    key: "nobody".into(),
                    row: order(4),
                },
            )?;
            Ok((
                (inserted, updated, missing),
                txn.read(ORDERS, "m1").is_some(),
                txn.read(ORDERS, "d1").and_then(|r| r.int("amount")),
                txn.scan(ORDERS).len(),
            ))
        })
        .unwrap()
        .value;
        (seen, db.rows(ORDERS))
    });
    assert_eq!(seen, ((1, 1, 0), false, Some(3), 1));
    // Both kinds of write are applied by the commit.
    let amounts: Vec<(String, Option<i64>)> = rows
        .iter()
        .map(|(k, r)| (k.clone(), r.int("amount")))
        .collect();
    assert_eq!(
        amounts,
        [("d1".to_string(), Some(3)), ("m1".to_string(), Some(1))]
    );
}

#[test]
fn a_dml_insert_of_an_existing_row_fails_at_the_statement() {
    // https://cloud.google.com/spanner/docs/dml-versus-mutations: "Constraint checking" is
    // done "After every statement" for DML and "At commit time" for mutations; "Spanner
    // checks constraints after every DML statement."
    let results = on_schedule(&[], |sim| {
        let mut db = Database::new();
        db.seed(&[Mutation::Insert {
            table: ORDERS,
            key: "o1".into(),
            row: order(10),
        }]);
        let mut txn = db.begin();
        let first = txn.execute_update(sim, dml_insert("o1", 99));
        let second = txn.execute_update(sim, dml_insert("o2", 20));
        (
            first,
            second,
            txn.read(ORDERS, "o1").and_then(|r| r.int("amount")),
        )
    });
    assert_eq!(
        results,
        (
            Err(SpannerError {
                code: Code::AlreadyExists
            }),
            Ok(1),
            Some(10)
        )
    );
}

#[test]
fn an_aborted_dml_statement_ends_the_attempt_and_the_runner_calls_the_callback_again() {
    // java-spanner, TransactionRunner.run: "However, if a read or query in callable
    // detected that the transaction aborted, callable will be retried even if it raised an
    // exception."
    // https://cloud.google.com/spanner/docs/concurrency-control: locks are acquired "as it
    // is read or written within a transaction", and "When Spanner detects a lock conflict,
    // it uses the wound-wait algorithm to resolve the conflict": the wounded transaction
    // learns it was aborted from the statement it is running, before any commit.
    // Choices: the first attempt's DML statement is aborted (`spanner:dml` option 1).
    let (calls, committed, rows) = on_schedule(&[1], |sim| {
        let mut db = Database::new();
        let mut calls = 0;
        let committed = run_transaction(&mut db, sim, |txn, sim| -> Result<(), Stop> {
            calls += 1;
            txn.execute_update(sim, dml_insert("o1", 10))?;
            txn.insert(ORDERS, &format!("attempt-{calls}"), order(1));
            Ok(())
        })
        .map(|c| c.attempts);
        (calls, committed, db.rows(ORDERS).len())
    });
    assert_eq!(
        (calls, committed, rows),
        (2, Ok(2), 2),
        "o1 and attempt-2 only"
    );
}

// ---- Item: read-only transactions and stale reads ----

fn amount_at(
    db: &Database,
    sim: &mut Sim,
    bound: TimestampBound,
    key: &str,
) -> Result<Option<i64>, SpannerError> {
    db.single_read(sim, bound, ORDERS, key)
        .map(|row| row.and_then(|r| r.int("amount")))
}

fn set_amount(db: &mut Database, sim: &mut Sim, key: &str, amount: i64) -> u64 {
    run_transaction(db, sim, |txn, _sim| -> Result<(), Stop> {
        txn.insert_or_update(ORDERS, key, order(amount));
        Ok(())
    })
    .unwrap()
    .commit_timestamp
}

#[test]
fn a_strong_read_sees_every_commit_and_a_stale_read_sees_the_past() {
    // https://cloud.google.com/spanner/docs/timestamp-bounds (Strong): "Strong reads
    // reflect the effects of all transactions that have committed before the start of the
    // read." (Exact staleness): "Reads at a timestamp reflect a consistent prefix of the
    // global transaction history: they observe modifications done by all transactions with
    // a commit timestamp less than or equal to the read timestamp, and observe none of the
    // modifications done by transactions with a larger commit timestamp."
    on_schedule(&[], |sim| {
        let mut db = Database::new();
        sim.advance(100);
        let committed_at = set_amount(&mut db, sim, "o1", 10);
        assert_eq!(
            amount_at(&db, sim, TimestampBound::Strong, "o1"),
            Ok(Some(10))
        );
        // Right after the commit, 15 s ago is before it.
        let stale = TimestampBound::ExactStaleness(15);
        assert_eq!(amount_at(&db, sim, stale, "o1"), Ok(None));
        sim.advance(20);
        assert_eq!(amount_at(&db, sim, stale, "o1"), Ok(Some(10)));
        let at = |ts| TimestampBound::ReadTimestamp(ts);
        assert_eq!(amount_at(&db, sim, at(committed_at - 1), "o1"), Ok(None));
        assert_eq!(amount_at(&db, sim, at(committed_at), "o1"), Ok(Some(10)));
        // An update keeps the old version for reads in the past.
        let updated_at = set_amount(&mut db, sim, "o1", 11);
        assert_eq!(amount_at(&db, sim, at(updated_at - 1), "o1"), Ok(Some(10)));
        assert_eq!(
            amount_at(&db, sim, TimestampBound::Strong, "o1"),
            Ok(Some(11))
        );
    });
}

#[test]
fn a_read_only_transaction_reads_everything_at_one_timestamp() {
    // https://cloud.google.com/java/docs/reference/google-cloud-spanner/latest/com.google.cloud.spanner.ReadOnlyTransaction
    // "Snapshot read-only transactions do not take locks. Instead, they work by choosing a
    // Cloud Spanner timestamp, then executing all reads at that timestamp."
    // https://cloud.google.com/spanner/docs/timestamp-bounds: "Strong reads are not
    // repeatable: two consecutive strong read-only transactions might return inconsistent
    // results if there are concurrent writes."
    on_schedule(&[], |sim| {
        let mut db = Database::new();
        sim.advance(10);
        set_amount(&mut db, sim, "o1", 10);
        let snapshot = db
            .read_only_transaction(sim, TimestampBound::Strong)
            .unwrap();
        let strong_before = amount_at(&db, sim, TimestampBound::Strong, "o1");
        set_amount(&mut db, sim, "o1", 20);
        set_amount(&mut db, sim, "o2", 5);
        let read = |sim: &mut Sim, key| {
            snapshot
                .read(&db, sim, ORDERS, key)
                .map(|row| row.and_then(|r| r.int("amount")))
        };
        assert_eq!(read(sim, "o1"), Ok(Some(10)));
        assert_eq!(read(sim, "o2"), Ok(None));
        assert_eq!(
            snapshot.scan(&db, sim, ORDERS).map(|rows| rows.len()),
            Ok(1)
        );
        // Two strong reads on either side of the commits disagree.
        assert_eq!(strong_before, Ok(Some(10)));
        assert_eq!(
            amount_at(&db, sim, TimestampBound::Strong, "o1"),
            Ok(Some(20))
        );
    });
}

#[test]
fn a_read_more_than_an_hour_in_the_past_fails_with_failed_precondition() {
    // https://cloud.google.com/spanner/docs/timestamp-bounds (Maximum timestamp staleness):
    // "Version garbage collection reclaims versions after they expire past a database's
    // `version_retention_period`, which defaults to 1 hour, but can be configured up to 1
    // week. This restriction also applies to in-progress reads or SQL queries with
    // timestamps that become too old while executing. Reads and SQL queries with too-old
    // read timestamps fail with the error `FAILED_PRECONDITION`."
    // (The Java client's TimestampBound javadoc still says "four hours"; the service's page
    // and the 2019 transaction.proto comment say one hour.)
    on_schedule(&[], |sim| {
        let mut db = Database::new();
        sim.advance(10);
        let committed_at = set_amount(&mut db, sim, "o1", 10);
        let snapshot = db
            .read_only_transaction(sim, TimestampBound::Strong)
            .unwrap();
        sim.advance(VERSION_RETENTION_SECONDS);
        // Exactly an hour old is still kept.
        let hour = TimestampBound::ExactStaleness(VERSION_RETENTION_SECONDS);
        assert_eq!(amount_at(&db, sim, hour, "o1"), Ok(Some(10)));
        sim.advance(1);
        let gone = SpannerError {
            code: Code::FailedPrecondition,
        };
        assert_eq!(
            amount_at(&db, sim, TimestampBound::ReadTimestamp(committed_at), "o1"),
            Err(gone)
        );
        assert_eq!(snapshot.read(&db, sim, ORDERS, "o1"), Err(gone));
        assert_eq!(
            amount_at(&db, sim, TimestampBound::Strong, "o1"),
            Ok(Some(10))
        );
    });
}

#[test]
fn a_read_at_a_future_timestamp_waits_for_it_modulo_the_deadline() {
    // googleapis google/spanner/v1/transaction.proto (ReadOnly.read_timestamp): "If the
    // timestamp is in the future, the read is blocked until the specified timestamp,
    // modulo the read's deadline."
    // https://cloud.google.com/spanner/docs/timestamp-bounds: "(If you specify a timestamp
    // in the future, Spanner will wait for that timestamp before serving the read.)"
    // googleapis google/spanner/v1/spanner_grpc_service_config.json: the `Read` method's
    // "timeout": "30s".
    on_schedule(&[], |sim| {
        let mut db = Database::new();
        sim.advance(10);
        set_amount(&mut db, sim, "o1", 10);
        let now = sim.now();
        let soon = TimestampBound::ReadTimestamp(now + 10);
        assert_eq!(amount_at(&db, sim, soon, "o1"), Ok(Some(10)));
        assert_eq!(sim.now(), now + 10, "the read waited ten seconds");
        let now = sim.now();
        let too_far = TimestampBound::ReadTimestamp(now + READ_DEADLINE_SECONDS + 1);
        assert_eq!(
            amount_at(&db, sim, too_far, "o1"),
            Err(SpannerError {
                code: Code::DeadlineExceeded
            })
        );
        assert_eq!(sim.now(), now + READ_DEADLINE_SECONDS);
    });
}

#[test]
fn bounded_staleness_lets_the_database_choose_a_timestamp_within_the_bound() {
    // https://cloud.google.com/spanner/docs/timestamp-bounds (Bounded staleness): "Bounded
    // staleness modes allow Spanner to pick the read timestamp, subject to a user- provided
    // staleness bound. Spanner chooses the newest timestamp within the staleness bound
    // that allows execution of the reads at the closest available replica without
    // blocking." "Boundedly stale reads are not repeatable: two stale reads, even if they
    // use the same staleness bound, can execute at different timestamps and thus return
    // inconsistent results." "If you're using bounded staleness with a read-only
    // transaction, you can only use it with single-use read-only transactions, not with
    // general-purpose read-only transactions." (The error code for the refusal is the
    // simulator's choice.)
    // Choices: the commit (ok), then the replica serving the read: 0 up to date, 1 behind
    // by as much as the bound allows.
    let read_right_after_commit = |replica: usize| {
        on_schedule(&[0, replica], |sim| {
            let mut db = Database::new();
            sim.advance(100);
            let committed_at = set_amount(&mut db, sim, "o1", 10);
            let bounded = TimestampBound::MaxStaleness(15);
            let seen = amount_at(&db, sim, bounded, "o1");
            let transaction = db.read_only_transaction(sim, bounded).map(|_| ());
            // A minimum read timestamp holds however far behind the replica is.
            let at_least = TimestampBound::MinReadTimestamp(committed_at);
            let seen_at_least = amount_at(&db, sim, at_least, "o1");
            (seen, transaction, seen_at_least)
        })
    };
    let refused = Err(SpannerError {
        code: Code::InvalidArgument,
    });
    assert_eq!(
        read_right_after_commit(0),
        (Ok(Some(10)), refused, Ok(Some(10)))
    );
    assert_eq!(
        read_right_after_commit(1),
        (Ok(None), refused, Ok(Some(10)))
    );
}

// ---- Item: the lifecycle of a transaction the application drives ----

fn insert_o1() -> Mutation {
    Mutation::Insert {
        table: ORDERS,
        key: "o1".into(),
        row: order(10),
    }
}

const REFUSED: Result<(), SpannerError> = Err(SpannerError {
    code: Code::FailedPrecondition,
});

#[test]
fn a_committed_or_rolled_back_transaction_refuses_further_use() {
    // python-spanner google/cloud/spanner_v1/transaction.py, `_check_state`: raises
    // ValueError("Transaction is already committed") and ValueError("Transaction is
    // already rolled back"), checked before every read, query, DML, commit and rollback
    // (tests/unit/test_transaction.py: test_commit_already_committed,
    // test_rollback_already_committed, test_commit_already_rolled_back, …).
    // java-spanner TransactionManagerImplTest: rollbackAfterCommitFails,
    // commitAfterRollbackFails.
    // The service answers such a request with FAILED_PRECONDITION ("Cannot start a read or
    // query within a transaction after Commit() or Rollback() has been called.", the
    // message the gcpug/handy-spanner emulator's server tests expect); the simulator uses
    // that code for the client libraries' refusal too.
    on_schedule(&[], |sim| {
        let mut db = Database::new();
        let mut committed = db.begin_transaction();
        committed.buffer(insert_o1()).unwrap();
        committed.commit(&mut db, sim).unwrap();
        assert_eq!(committed.state(), TransactionState::Committed);
        assert_eq!(committed.read(&db, ORDERS, "o1").map(|_| ()), REFUSED);
        assert_eq!(committed.buffer(insert_o1()), REFUSED);
        assert_eq!(committed.commit(&mut db, sim).map(|_| ()), REFUSED);
        assert_eq!(committed.rollback(), REFUSED);

        let mut rolled_back = db.begin_transaction();
        rolled_back
            .buffer(Mutation::Delete {
                table: ORDERS,
                key: "o1".into(),
            })
            .unwrap();
        rolled_back.rollback().unwrap();
        assert_eq!(rolled_back.state(), TransactionState::RolledBack);
        assert_eq!(rolled_back.commit(&mut db, sim).map(|_| ()), REFUSED);
        assert_eq!(rolled_back.read(&db, ORDERS, "o1").map(|_| ()), REFUSED);
        assert_eq!(rolled_back.rollback(), REFUSED);
        assert_eq!(db.count(ORDERS), 1, "the rolled-back delete was never sent");
    });
}

#[test]
fn a_failed_commit_leaves_the_transaction_unusable() {
    // java-spanner TransactionManager.TransactionState: "COMMIT_FAILED: Transaction failed
    // during commit with an error other than ABORTED. Transaction cannot be retried in this
    // state. This is a terminal state." "ABORTED: Transaction failed during commit with
    // ABORTED and can be retried." — by a new transaction: resetForRetry "Creates a new
    // transaction for retry. This should only be called if the previous transaction failed
    // with ABORTED." TransactionManagerImpl.commit refuses an aborted transaction with
    // ABORTED ("Transaction already aborted"); TransactionManagerImplTest.resetAfterErrorFails.
    // googleapis google/spanner/v1/spanner.proto (Rollback): "`Rollback` returns `OK` if it
    // successfully aborts the transaction, the transaction was already aborted, or the
    // transaction is not found."
    let commit_twice = |fate: usize| {
        on_schedule(&[fate], |sim| {
            let mut db = Database::new();
            let mut txn = db.begin_transaction();
            txn.buffer(insert_o1()).unwrap();
            let first = txn.commit(&mut db, sim).map(|_| ());
            let state = txn.state();
            let again = txn.commit(&mut db, sim).map(|_| ());
            let read = txn.read(&db, ORDERS, "o1").map(|_| ());
            let rollback = txn.rollback();
            let applied = db.read(ORDERS, "o1").is_some();
            (first, state, again, read, rollback, applied)
        })
    };
    // java-spanner TransactionManagerImpl.commit: `Preconditions.checkState(txnState ==
    // TransactionState.STARTED, "commit can only be invoked if the transaction is in
    // progress…")`: a second commit is refused by the client (IllegalStateException) and
    // nothing is sent. The simulator models that client-side refusal and reports it as
    // FAILED_PRECONDITION (REFUSED below); its timeline says "nothing sent".
    let code = |code| Err(SpannerError { code });
    // DEADLINE_EXCEEDED: the same refusal whether or not the first commit applied, so the
    // transaction cannot tell; rolling back changes nothing either.
    for (fate, applied) in [(APPLIED_RESPONSE_LOST, true), (NOT_APPLIED, false)] {
        assert_eq!(
            commit_twice(fate),
            (
                code(Code::DeadlineExceeded),
                TransactionState::CommitFailed,
                REFUSED,
                REFUSED,
                Ok(()),
                applied
            )
        );
    }
    // ABORTED: the attempt stays aborted; a new transaction is the retry.
    assert_eq!(
        commit_twice(ABORTED),
        (
            code(Code::Aborted),
            TransactionState::Aborted,
            code(Code::Aborted),
            code(Code::Aborted),
            Ok(()),
            false
        )
    );
    let retried = on_schedule(&[ABORTED], |sim| {
        let mut db = Database::new();
        let mut first = db.begin_transaction();
        first.buffer(insert_o1()).unwrap();
        assert!(first.commit(&mut db, sim).is_err());
        let mut retry = db.begin_transaction();
        retry.buffer(insert_o1()).unwrap();
        retry.commit(&mut db, sim).map(|_| db.count(ORDERS))
    });
    assert_eq!(retried, Ok(1));
}

#[test]
fn an_aborted_dml_statement_aborts_the_transaction_the_application_drives() {
    // TransactionManagerImpl.commit (java-spanner): "if (txn.isAborted()) … throw …
    // ErrorCode.ABORTED, "Transaction already aborted"".
    let outcome = on_schedule(&[1], |sim| {
        let mut db = Database::new();
        let mut txn = db.begin_transaction();
        let statement = txn.execute_update(&db, sim, dml_insert("o1", 10));
        let commit = txn.commit(&mut db, sim).map(|_| ());
        (statement, txn.state(), commit, db.count(ORDERS))
    });
    let aborted = SpannerError {
        code: Code::Aborted,
    };
    assert_eq!(
        outcome,
        (Err(aborted), TransactionState::Aborted, Err(aborted), 0)
    );
}

fn request(key: Option<&str>, amount: i64) -> ChargeRequest {
    ChargeRequest {
        reference: "S1".into(),
        amount,
        idempotency_key: key.map(str::to_string),
    }
}

#[test]
fn the_same_idempotency_key_returns_the_saved_receipt() {
    // https://docs.stripe.com/idempotency
    // "Stripe's idempotency works by saving the resulting status code and body of the
    // first request made for any given idempotency key, regardless of whether it succeeds
    // or fails. Subsequent requests with the same key return the same result".
    on_schedule(&[], |sim| {
        let mut processor = PaymentProcessor::new();
        let first = processor
            .charge(sim, request(Some("settle-S1"), 120))
            .unwrap();
        let again = processor
            .charge(sim, request(Some("settle-S1"), 120))
            .unwrap();
        assert_eq!(first, again);
        assert_eq!(processor.receipts().len(), 1);
        assert_eq!(processor.calls(), 2);
    });
}

#[test]
fn the_same_key_with_other_parameters_is_refused() {
    // https://docs.stripe.com/idempotency
    // "The idempotency layer compares incoming parameters to those of the original request
    // and errors if they're not the same to prevent accidental misuse."
    on_schedule(&[], |sim| {
        let mut processor = PaymentProcessor::new();
        processor
            .charge(sim, request(Some("settle-S1"), 120))
            .unwrap();
        let other = processor.charge(sim, request(Some("settle-S1"), 121));
        assert_eq!(other, Err(ProcessorError::IdempotencyKeyReused));
        assert_eq!(processor.receipts().len(), 1);
    });
}

#[test]
fn without_a_key_or_with_a_new_key_every_charge_is_a_new_receipt() {
    // https://docs.stripe.com/idempotency: the key is what "the server uses to recognize
    // subsequent retries of the same request"; without it, or with a new one, a repeat
    // is a new request.
    on_schedule(&[], |sim| {
        let mut processor = PaymentProcessor::new();
        processor.charge(sim, request(None, 120)).unwrap();
        processor.charge(sim, request(None, 120)).unwrap();
        processor.charge(sim, request(Some("k1"), 120)).unwrap();
        processor.charge(sim, request(Some("k2"), 120)).unwrap();
        assert_eq!(processor.search("S1").len(), 4);
    });
}

#[test]
fn a_key_is_kept_for_a_day_and_a_retry_after_it_is_pruned_is_a_new_charge() {
    // https://docs.stripe.com/api/idempotent_requests (the same text on
    // https://docs.stripe.com/idempotency): "You can remove keys from the system
    // automatically after they’re at least 24 hours old. We generate a new request if a
    // key is reused after the original is pruned."
    // The simulator prunes a key at the first moment the sentence allows (24 hours of the
    // logical clock, one tick a second), the case an application has to survive.
    on_schedule(&[], |sim| {
        let mut processor = PaymentProcessor::new();
        let first = processor
            .charge(sim, request(Some("settle-S1"), 120))
            .unwrap();
        sim.advance(KEY_RETENTION_SECONDS - 10);
        assert!(processor.remembers("settle-S1", sim.now()));
        let within_a_day = processor
            .charge(sim, request(Some("settle-S1"), 120))
            .unwrap();
        assert_eq!(
            within_a_day, first,
            "a retry within the day gets the saved result"
        );
        sim.advance(10);
        assert!(!processor.remembers("settle-S1", sim.now()));
        let a_day_later = processor
            .charge(sim, request(Some("settle-S1"), 120))
            .unwrap();
        assert_ne!(
            a_day_later.id, first.id,
            "a retry after pruning is a new charge"
        );
        assert_eq!(processor.search("S1").len(), 2);
        // The new charge saved its result again, for another day.
        let right_after = processor
            .charge(sim, request(Some("settle-S1"), 120))
            .unwrap();
        assert_eq!(right_after, a_day_later);
    });
}

#[test]
fn a_charge_that_lands_late_saves_its_key_when_it_lands() {
    // https://docs.stripe.com/api/idempotent_requests: "We save results only after the
    // execution of an endpoint begins." A request still in flight saves nothing until the
    // processor performs it; a retry that arrives after it landed gets its saved result,
    // whenever the first attempt was sent.
    on_schedule(&[3], |sim| {
        let mut processor = PaymentProcessor::new();
        let lost = processor.charge(sim, request(Some("settle-S1"), 120));
        assert_eq!(lost, Err(ProcessorError::Timeout));
        sim.advance(2 * KEY_RETENTION_SECONDS);
        let retry = processor
            .charge(sim, request(Some("settle-S1"), 120))
            .unwrap();
        assert_eq!(processor.search("S1"), vec![retry]);
    });
}

#[test]
fn a_charge_timeout_hides_one_of_three_truths() {
    // https://docs.stripe.com/idempotency: "if a connection error occurs, you can safely
    // repeat the request" with the key, because the first request may have been performed.
    // Charge choice: 0 ok, 1 applied + response lost, 2 not applied, 3 applied later.
    let receipts_after = |fate: usize| {
        on_schedule(&[fate], |sim| {
            let mut processor = PaymentProcessor::new();
            let seen = processor.charge(sim, request(None, 120));
            let right_after = processor.receipts().len();
            processor.land_in_flight(sim);
            (seen.is_ok(), right_after, processor.receipts().len())
        })
    };
    assert_eq!(receipts_after(0), (true, 1, 1));
    assert_eq!(receipts_after(1), (false, 1, 1));
    assert_eq!(receipts_after(2), (false, 0, 0));
    assert_eq!(receipts_after(3), (false, 0, 1));
}

#[test]
fn an_external_call_inside_the_callback_repeats_with_every_attempt() {
    // The two documented behaviours together (TransactionRunner above; the processor is
    // outside the transaction): the settlement case of the chapter. One row, two receipts.
    let (rows, receipts) = on_schedule(&[0, ABORTED], |sim| {
        let mut db = Database::new();
        let mut processor = PaymentProcessor::new();
        run_transaction(&mut db, sim, |txn, sim| -> Result<(), Stop> {
            let receipt = processor.charge(sim, request(None, 120)).expect("charged");
            txn.insert(
                ORDERS,
                "S1",
                order(120).with("receipt", receipt.id.as_str()),
            );
            Ok(())
        })
        .unwrap();
        (db.count(ORDERS), processor.search("S1").len())
    });
    assert_eq!((rows, receipts), (1, 2));
}

#[test]
fn every_schedule_of_one_commit_replays_identically() {
    let scope = Scope {
        lab: "sim",
        scenario: "one-commit",
        max_faults: 2,
    };
    let scenario = |sim: &mut Sim| {
        let mut db = Database::new();
        let _ = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
            txn.insert(ORDERS, "o1", order(10));
            Ok(())
        });
        db.land_in_flight(sim);
        Ok(())
    };
    let all = explore_all(scope, scenario);
    // 1 fault-free + 4 single faults; two faults: ABORTED then any of 4.
    assert_eq!(all.per_level, vec![1, 4, 4]);
    for run in &all.runs {
        let a = replay(&run.token, scenario);
        let b = replay(&Token::parse(&run.token.to_string()).unwrap(), scenario);
        assert_eq!(a.timeline(), b.timeline());
    }
}

#[test]
fn the_fault_labels_are_the_fault_cores_own() {
    // Crash matrices and replay tokens name faults by these labels; they must be the ones
    // `Sim::fate` would record.
    for (fate, label) in crate::database::COMMIT_FATES
        .iter()
        .zip(crate::database::COMMIT_LABELS)
    {
        assert_eq!(fate.label(), label);
    }
    for (fate, label) in crate::processor::CHARGE_FATES
        .iter()
        .zip(crate::processor::CHARGE_LABELS)
    {
        assert_eq!(fate.label(), label);
    }
}

#[test]
fn unknown_and_cancelled_commits_leave_the_outcome_unknown() {
    // googleapis google/spanner/v1/spanner.proto (Commit): "On very rare occasions,
    // `Commit` might return `UNKNOWN`. This can happen, for example, if the client job
    // experiences a 1+ hour networking failure. At that point, Cloud Spanner has lost track
    // of the transaction outcome and we recommend that you perform another read from the
    // database to see the state of things as they are now."
    // google-cloud-go commit 2159af9 ("spanner: return transaction outcome unknown"): "If a
    // DEADLINE_EXCEEDED or CANCELED error occurs while a COMMIT request is in flight, the
    // outcome of the transaction is unknown as the request might have been received and
    // processed by the server." nodejs-spanner #1388: "Unknown errors that are returned
    // during a transaction should not cause the entire transaction to be automatically
    // retried". So UNKNOWN and CANCELLED at commit are outcome-unknown, like
    // DEADLINE_EXCEEDED, and the runner returns them instead of calling the callback again.
    for code in [Code::Unknown, Code::Cancelled] {
        assert!(code.is_outcome_unknown());
        for (fate, applied) in [(APPLIED_RESPONSE_LOST, true), (NOT_APPLIED, false)] {
            let (calls, result, found) = on_schedule(&[fate], |sim| {
                let mut db = Database::new();
                db.answer_unknown_commits_with(code);
                let mut calls = 0;
                let result = run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
                    calls += 1;
                    txn.insert(ORDERS, "o1", order(10));
                    Ok(())
                });
                let result = result.map(|_| ()).map_err(|e| match e {
                    Stop::Spanner(e) => e.code,
                    Stop::Crash(_) => unreachable!("no crash point here"),
                });
                (calls, result, db.read(ORDERS, "o1").is_some())
            });
            assert_eq!((calls, result, found), (1, Err(code), applied));
        }
    }
    assert!(Code::DeadlineExceeded.is_outcome_unknown());
    assert!(!Code::Aborted.is_outcome_unknown() && !Code::FailedPrecondition.is_outcome_unknown());
}

#[test]
fn repeatable_read_detects_only_write_write_conflicts() {
    // googleapis google/spanner/v1/transaction.proto, TransactionOptions.IsolationLevel
    // (https://cloud.google.com/spanner/docs/isolation-levels): REPEATABLE_READ: "All reads
    // performed during the transaction observe a consistent snapshot of the database, and
    // the transaction is only successfully committed in the absence of conflicts between its
    // updates and any concurrent updates that have occurred since that snapshot.
    // Consequently, in contrast to SERIALIZABLE transactions, only write-write conflicts are
    // detected in snapshot transactions." SERIALIZABLE is the default ("Serializable
    // isolation is the default isolation level in Spanner").
    let last_unit = |isolation: IsolationLevel| {
        on_schedule(&[], |sim| {
            let mut db = Database::new();
            let attempts = ["o1", "o2"].map(|id| {
                let mut txn = db.begin_at(isolation);
                if txn.scan(ORDERS).is_empty() {
                    txn.insert(ORDERS, id, order(10));
                }
                txn.finish()
            });
            let codes: Vec<Option<Code>> = attempts
                .map(|a| db.commit(sim, a).err().map(|e| e.code))
                .into();
            (codes, db.count(ORDERS))
        })
    };
    assert_eq!(
        last_unit(IsolationLevel::Serializable),
        (vec![None, Some(Code::Aborted)], 1),
        "the second commit's scan changed"
    );
    assert_eq!(
        last_unit(IsolationLevel::RepeatableRead),
        (vec![None, None], 2),
        "different rows written: no conflict (write skew)"
    );
    // The same row written by both is still a conflict.
    on_schedule(&[], |sim| {
        let mut db = Database::new();
        db.seed(&[Mutation::Insert {
            table: ORDERS,
            key: "o1".into(),
            row: order(10),
        }]);
        let mut first = db.begin_at(IsolationLevel::RepeatableRead);
        let mut second = db.begin_at(IsolationLevel::RepeatableRead);
        assert_eq!(first.read(ORDERS, "o1"), Some(order(10)));
        assert_eq!(second.read(ORDERS, "o1"), Some(order(10)));
        first.update(ORDERS, "o1", order(20));
        second.update(ORDERS, "o1", order(30));
        let (first, second) = (first.finish(), second.finish());
        db.commit(sim, first).unwrap();
        let error = db.commit(sim, second).unwrap_err();
        assert_eq!(error.code, Code::Aborted, "a write-write conflict");
        assert_eq!(db.read(ORDERS, "o1"), Some(order(20)));
    });
}
