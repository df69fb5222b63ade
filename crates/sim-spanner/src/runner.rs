//! The read-write transaction runner: call the callback, commit, and on ABORTED call the
//! callback again.

use crate::transaction::{IsolationLevel, Transaction};
use crate::{Code, Database, SpannerError};
use labkit::fault::{Glyph, Sim};

/// How many attempts the runner makes before it returns ABORTED to the caller. The real
/// runners retry until the transaction's deadline; a bound keeps every schedule finite.
pub const MAX_ATTEMPTS: u32 = 3;

/// What a committed transaction returns: the callback's value from the attempt that
/// committed, the commit timestamp, and how many times the callback ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed<T> {
    pub value: T,
    pub commit_timestamp: u64,
    pub attempts: u32,
}

/// Runs a read-write transaction, after `TransactionRunner.run` / `run_in_transaction`:
///
/// 1. start a transaction and call `callback` with it;
/// 2. if a DML statement of the attempt ended ABORTED, the attempt is over whatever the
///    callback returned: go back to 1 (at most [`MAX_ATTEMPTS`] attempts);
/// 3. if the callback returns an error, roll back (drop the buffered mutations) and return
///    the error;
/// 4. otherwise commit; on ABORTED go back to 1 (at most [`MAX_ATTEMPTS`] attempts);
///    any other commit error (DEADLINE_EXCEEDED, ALREADY_EXISTS, …) is returned.
///
/// The callback's error type only has to accept a [`SpannerError`], so application code
/// can propagate crashes (`labkit::fault::Crash`) and its own errors through it.
pub fn run_transaction<T, E>(
    db: &mut Database,
    sim: &mut Sim,
    callback: impl FnMut(&mut Transaction<'_>, &mut Sim) -> Result<T, E>,
) -> Result<Committed<T>, E>
where
    E: From<SpannerError>,
{
    run_transaction_at(db, sim, IsolationLevel::Serializable, callback)
}

/// [`run_transaction`] at an isolation level (`TransactionOptions.isolation_level`).
pub fn run_transaction_at<T, E>(
    db: &mut Database,
    sim: &mut Sim,
    isolation: IsolationLevel,
    mut callback: impl FnMut(&mut Transaction<'_>, &mut Sim) -> Result<T, E>,
) -> Result<Committed<T>, E>
where
    E: From<SpannerError>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        let mut txn = db.begin_at(isolation);
        let outcome = callback(&mut txn, sim);
        let aborted_inside = txn.is_aborted();
        let buffered = txn.finish();
        let committed = match outcome {
            // A statement saw the abort: the error the callback returned is a consequence.
            Err(_) if aborted_inside => Err(SpannerError {
                code: Code::Aborted,
            }),
            Err(error) => return Err(error),
            Ok(value) => db.commit(sim, buffered).map(|response| (value, response)),
        };
        match committed {
            Ok((value, response)) => {
                return Ok(Committed {
                    value,
                    commit_timestamp: response.commit_timestamp,
                    attempts: attempt,
                });
            }
            Err(SpannerError {
                code: Code::Aborted,
            }) if attempt < MAX_ATTEMPTS => {
                sim.event("runner", Glyph::Normal, || {
                    (
                        format!(
                            "ABORTED: the runner calls the callback again (attempt {})",
                            attempt + 1
                        ),
                        String::new(),
                    )
                });
            }
            Err(error) => return Err(error.into()),
        }
    }
}
