//! A simulated Spanner database with a read-write transaction runner, read-only
//! transactions and stale reads, and a simulated external payment processor: the world
//! of lab 02 ("Uncertain outcomes and retried callbacks"), and the Spanner half of lab
//! 03's snapshots.
//!
//! What is modelled, in Spanner's vocabulary:
//!
//! * A **read-write transaction** reads committed rows, runs **DML** statements and
//!   buffers **mutations** (`Insert`, `Update`, `InsertOrUpdate`, `Delete`). A DML
//!   statement runs at once: its effect is visible to the transaction's later reads
//!   (read-your-writes) and its constraint (ALREADY_EXISTS for an insert) is checked at
//!   the statement. Mutations are not visible to the transaction's reads. DML results and
//!   mutations are applied atomically at **commit**, which returns a **commit
//!   timestamp**, or not at all.
//! * Every read is remembered and **validated at commit**: a point read, and a **scan**,
//!   which is a read of a whole key range. If another commit wrote a row the transaction
//!   read, or inserted, changed or deleted any row in a range it scanned (a phantom),
//!   after the read, the commit ends ABORTED: empty rows and ranges stay empty at commit.
//! * The **runner** ([`run_transaction`], after the client libraries' `runTransaction`,
//!   `run_in_transaction`, `TransactionRunner.run`) calls the application's **callback**,
//!   commits what it did, and when the commit ends **ABORTED**, or a DML statement inside
//!   the callback did, calls the callback again from the start. A callback therefore runs
//!   once per attempt, and whatever it does outside the database (an HTTP call, a charge)
//!   happens once per attempt.
//! * A commit ends `Ok`, **ABORTED** (definite: nothing applied; either injected through
//!   the fault core or because something the transaction read changed before it
//!   committed), **ALREADY_EXISTS** / **NOT_FOUND** (definite: a mutation's precondition
//!   failed), or **DEADLINE_EXCEEDED**, which is indefinite: the hidden truth is one of
//!   *applied and the response lost*, *not applied*, or *applied later* (the commit is
//!   still in flight and lands before the next commit the database processes). The
//!   runner does not retry DEADLINE_EXCEEDED; the caller sees it. A scenario can make
//!   those commits answer **UNKNOWN** (Spanner lost track of the outcome) or
//!   **CANCELLED** (the client cancelled the call in flight) instead
//!   ([`Database::answer_unknown_commits_with`]): the same three truths, and
//!   [`Code::is_outcome_unknown`] says so for all three codes.
//! * **Isolation.** A read-write transaction is SERIALIZABLE by default; run at
//!   [`IsolationLevel::RepeatableRead`] ([`run_transaction_at`]) its reads see one
//!   snapshot, taken at its first read, and its commit checks only the rows it writes, so
//!   two transactions that read the same rows and write different ones both commit.
//! * A [`ReadWriteTransaction`] is one the application drives itself (Java's
//!   `TransactionManager`): once committed, rolled back, or failed it refuses every further
//!   call, once aborted it answers ABORTED; a retry is a new transaction. The refusal is
//!   the client library's (Java: `IllegalStateException`, "commit can only be invoked if
//!   the transaction is in progress"), so nothing is sent; the simulator reports it as
//!   FAILED_PRECONDITION.
//! * **Reads at a timestamp**: rows keep their older versions, so a [`TimestampBound`]
//!   chooses what a single read or a [`ReadOnlyTransaction`] sees: strong (every commit so
//!   far), exact staleness, a read timestamp (one in the future is waited for, up to the
//!   read's deadline), or bounded staleness (single reads only; the fault core chooses
//!   whether the serving replica is up to date). A read-only transaction reads everything
//!   at one timestamp and takes no lock. Versions are kept for an hour (version GC): a
//!   read at an older timestamp fails with FAILED_PRECONDITION.
//! * The [`PaymentProcessor`] is outside the database: it issues **receipts** for
//!   charges, recognises an optional **idempotency key** (the first result for a key is
//!   saved and returned to every retry with the same key and the same parameters, until
//!   the key is pruned a day after it was first used: a retry after that is a new
//!   charge), and can be searched by the charge's reference. Its calls can time out with
//!   the same three hidden truths.
//!
//! Simplifications, said once here and again in the chapters:
//!
//! * One database, one client, no sessions and no lock waits: locks are not held, every
//!   read is validated at commit instead (the transaction aborts when a row it read, or a
//!   range it scanned, was written by another commit after the read). Spanner by default
//!   takes shared read locks, so a conflicting writer waits or is wounded (ABORTED);
//!   either way no attempt commits on a read that changed, which is what the application
//!   sees here too.
//! * Reads never fail inside a read-write transaction; in Spanner a read can return
//!   ABORTED too (the runner then reruns the callback, as it does here after an aborted
//!   DML statement). A DML statement is one row by key, not SQL.
//! * The runner gives up after [`MAX_ATTEMPTS`] attempts and returns ABORTED; the real
//!   runners retry until the transaction's deadline.
//! * Time is the fault core's logical clock, one tick a second: commit timestamps are
//!   that clock when the commit applied (never the wall clock, no TrueTime uncertainty),
//!   and a read "waits" by moving the clock on.
//! * The processor's search is always available and complete; a real search index can
//!   lag behind.
//!
//! State is kept in plain structs so that an exhaustive exploration runs tens of
//! thousands of schedules per second: [`Database`] and [`PaymentProcessor`] are the
//! durable state (a crash keeps them); everything the application holds in local
//! variables is volatile.

mod database;
mod dml;
mod error;
mod processor;
mod row;
mod runner;
mod snapshot;
mod transaction;

pub use database::{Buffered, Database};
pub use dml::Dml;
pub use error::{Code, CommitResponse, SpannerError};
pub use processor::{
    ChargeRequest, KEY_RETENTION_SECONDS, PaymentProcessor, ProcessorError, Receipt,
};
pub use row::{Mutation, Row, Value};
pub use runner::{Committed, MAX_ATTEMPTS, run_transaction, run_transaction_at};
pub use snapshot::{
    READ_DEADLINE_SECONDS, ReadOnlyTransaction, TimestampBound, VERSION_RETENTION_SECONDS,
};
pub use transaction::{IsolationLevel, ReadWriteTransaction, Transaction, TransactionState};

#[cfg(test)]
mod tests;
