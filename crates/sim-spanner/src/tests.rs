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
    // https://googleapis.dev/java/google-cloud-clients/0.94.0-alpha/com/google/cloud/spanner/TransactionContext.html
    // "Writes can only be done at commit time, after all reads have been completed."
    // Mutations are buffered, so a read in the same transaction does not see them.
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
fn commit_timestamps_increase_with_every_commit() {
    // https://cloud.google.com/spanner/docs/transactions (paraphrased): a read-write
    // transaction's writes take effect at its commit timestamp, and a transaction that
    // commits after another one finished gets a later timestamp (external consistency).
    let stamps = on_schedule(&[], |sim| {
        let mut db = Database::new();
        (0..3)
            .map(|i| {
                run_transaction(&mut db, sim, |txn, _sim| -> Result<(), Stop> {
                    txn.insert_or_update(ORDERS, "o1", order(i));
                    Ok(())
                })
                .unwrap()
                .commit_timestamp
            })
            .collect::<Vec<_>>()
    });
    assert_eq!(stamps, [1, 2, 3]);
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
