//! A simulated Spanner database with a read-write transaction runner, and a simulated
//! external payment processor: the world of lab 02 ("Uncertain outcomes and retried
//! callbacks").
//!
//! What is modelled, in Spanner's vocabulary:
//!
//! * A **read-write transaction** reads committed rows and buffers **mutations**
//!   (`Insert`, `Update`, `InsertOrUpdate`, `Delete`); the mutations are applied
//!   atomically at **commit**, which returns a **commit timestamp**, or not at all.
//!   Reads do not see the transaction's own buffered mutations.
//! * The **runner** ([`run_transaction`], after the client libraries' `runTransaction`,
//!   `run_in_transaction`, `TransactionRunner.run`) calls the application's **callback**,
//!   commits what it buffered, and when the commit ends **ABORTED** calls the callback
//!   again from the start. A callback therefore runs once per attempt, and whatever it
//!   does outside the database (an HTTP call, a charge) happens once per attempt.
//! * A commit ends `Ok`, **ABORTED** (definite: nothing applied; either injected through
//!   the fault core or because a row the transaction read changed before it committed),
//!   **ALREADY_EXISTS** / **NOT_FOUND** (definite: a mutation's precondition failed), or
//!   **DEADLINE_EXCEEDED**, which is indefinite: the hidden truth is one of *applied and
//!   the response lost*, *not applied*, or *applied later* (the commit is still in flight
//!   and lands before the next commit the database processes). The runner does not retry
//!   DEADLINE_EXCEEDED; the caller sees it.
//! * The [`PaymentProcessor`] is outside the database: it issues **receipts** for
//!   charges, recognises an optional **idempotency key** (the first result for a key is
//!   saved and returned to every retry with the same key and the same parameters), and
//!   can be searched by the charge's reference. Its calls can time out with the same
//!   three hidden truths.
//!
//! Simplifications, said once here and again in the chapter:
//!
//! * One database, one client, no sessions; reads never fail; locks are not held, a read
//!   is validated at commit instead (the transaction aborts when a row it read was
//!   written by another commit after the read, which is what Spanner's lock-based
//!   concurrency control guarantees the application sees).
//! * The runner gives up after [`MAX_ATTEMPTS`] attempts and returns ABORTED; the real
//!   runners retry until the transaction's deadline.
//! * Time is the fault core's logical clock; commit timestamps are a counter that
//!   increases with every applied commit.
//! * The processor's search is always available and complete; a real search index can
//!   lag behind.
//!
//! State is kept in plain structs so that an exhaustive exploration runs tens of
//! thousands of schedules per second: [`Database`] and [`PaymentProcessor`] are the
//! durable state (a crash keeps them); everything the application holds in local
//! variables is volatile.

mod database;
mod processor;
mod runner;

pub use database::{
    Buffered, Code, CommitResponse, Database, Mutation, Row, SpannerError, Transaction, Value,
};
pub use processor::{ChargeRequest, PaymentProcessor, ProcessorError, Receipt};
pub use runner::{Committed, MAX_ATTEMPTS, run_transaction};

#[cfg(test)]
mod tests;
