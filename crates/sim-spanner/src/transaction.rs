//! Read-write transactions: the attempt the runner hands to a callback
//! ([`Transaction`]), and the one an application drives itself
//! ([`ReadWriteTransaction`], after Java's `TransactionManager`), which keeps its
//! lifecycle: once committed, rolled back, aborted or failed, it refuses further use.
//! What an attempt reads and its DML statements are in `dml.rs`.

use crate::{Buffered, Code, CommitResponse, Database, Dml, Mutation, Row, SpannerError};
use labkit::fault::{Glyph, Sim};
use std::rc::Rc;

/// One attempt of a read-write transaction, as the runner hands it to the callback. It
/// reads committed rows (and the results of its own DML statements), runs DML, and
/// buffers mutations; [`Transaction::finish`] hands all of it to the commit.
pub struct Transaction<'db> {
    db: &'db Database,
    parts: Buffered,
}

impl Transaction<'_> {
    /// Reads one row as of the last commit. The read is remembered: if another commit
    /// writes this row before this transaction commits, the commit ends ABORTED. This
    /// transaction's DML writes are visible here; its buffered mutations are not.
    pub fn read(&mut self, table: &'static str, key: &str) -> Option<Row> {
        self.parts.read(self.db, table, key)
    }

    /// Every row of a table, in key order: a read of the whole key range. If another
    /// commit inserts, changes or deletes any row of the table before this transaction
    /// commits, the commit ends ABORTED.
    pub fn scan(&mut self, table: &'static str) -> Vec<(String, Row)> {
        self.parts.scan(self.db, table, None, None)
    }

    /// The rows whose keys lie in `[start, end)`, in key order: a range read, validated
    /// at commit like [`Transaction::scan`], for that range only.
    pub fn scan_range(
        &mut self,
        table: &'static str,
        start: &str,
        end: &str,
    ) -> Vec<(String, Row)> {
        self.parts.scan(self.db, table, Some(start), Some(end))
    }

    /// Runs a DML statement now and returns the rows it changed. Later reads of this
    /// transaction see its effect. It can end ABORTED (the fault core's choice
    /// `spanner:dml`), after which the attempt is over: the commit ends ABORTED too and
    /// the runner calls the callback again, whatever the callback returned.
    pub fn execute_update(&mut self, sim: &mut Sim, dml: Dml) -> Result<u64, SpannerError> {
        self.parts.execute_update(self.db, sim, dml)
    }

    /// True once a statement of this attempt ended ABORTED.
    pub fn is_aborted(&self) -> bool {
        self.parts.aborted
    }

    /// Buffers a mutation; it is applied only if the transaction commits.
    pub fn buffer(&mut self, mutation: Mutation) {
        self.parts.mutations.push(mutation);
    }

    pub fn insert(&mut self, table: &'static str, key: &str, row: Row) {
        self.buffer(Mutation::Insert {
            table,
            key: Rc::from(key),
            row,
        });
    }

    pub fn update(&mut self, table: &'static str, key: &str, row: Row) {
        self.buffer(Mutation::Update {
            table,
            key: Rc::from(key),
            row,
        });
    }

    pub fn insert_or_update(&mut self, table: &'static str, key: &str, row: Row) {
        self.buffer(Mutation::InsertOrUpdate {
            table,
            key: Rc::from(key),
            row,
        });
    }

    pub fn delete(&mut self, table: &'static str, key: &str) {
        self.buffer(Mutation::Delete {
            table,
            key: Rc::from(key),
        });
    }

    /// Ends the callback's use of the transaction: what it read, its DML writes and what
    /// it buffered, ready for [`Database::commit`].
    pub fn finish(self) -> Buffered {
        self.parts
    }
}

/// The isolation level of a read-write transaction (`TransactionOptions.IsolationLevel`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IsolationLevel {
    /// The default: the commit checks every row and range the transaction read.
    #[default]
    Serializable,
    /// Reads see one snapshot (the last commit when the attempt first read); the commit
    /// checks only the rows the transaction writes ("only write-write conflicts are
    /// detected").
    RepeatableRead,
}

impl Database {
    /// Starts one attempt of a read-write transaction. Application code gets one from
    /// [`run_transaction`](crate::run_transaction); this is public for tests and setup.
    pub fn begin(&self) -> Transaction<'_> {
        self.begin_at(IsolationLevel::Serializable)
    }

    /// [`Database::begin`] at an isolation level.
    pub fn begin_at(&self, isolation: IsolationLevel) -> Transaction<'_> {
        Transaction {
            db: self,
            parts: Buffered {
                repeatable_read: isolation == IsolationLevel::RepeatableRead,
                ..Buffered::default()
            },
        }
    }

    /// Starts a read-write transaction the application drives itself: read, run DML,
    /// buffer, then commit or roll back, and start a new one to retry.
    pub fn begin_transaction(&self) -> ReadWriteTransaction {
        ReadWriteTransaction {
            parts: Buffered::default(),
            state: TransactionState::Started,
        }
    }
}

/// Where a [`ReadWriteTransaction`] is in its life (the states of Java's
/// `TransactionManager.TransactionState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransactionState {
    /// Begun, not yet committed or rolled back.
    Started,
    /// Committed. Terminal.
    Committed,
    /// The commit failed with an error other than ABORTED. Terminal: it cannot be retried.
    CommitFailed,
    /// The commit, or a statement before it, ended ABORTED: retry with a new transaction.
    Aborted,
    /// Rolled back. Terminal.
    RolledBack,
}

/// A read-write transaction the application drives itself. Every call checks the
/// transaction is still open: after a commit, a rollback or a failed commit it answers
/// FAILED_PRECONDITION; after an ABORTED it answers ABORTED. Retrying means a new
/// transaction ([`Database::begin_transaction`]), whose reads see the database anew.
#[derive(Debug)]
pub struct ReadWriteTransaction {
    parts: Buffered,
    state: TransactionState,
}

impl ReadWriteTransaction {
    pub fn state(&self) -> TransactionState {
        self.state
    }

    fn open(&self) -> Result<(), SpannerError> {
        match self.state {
            TransactionState::Started if !self.parts.aborted => Ok(()),
            TransactionState::Started | TransactionState::Aborted => {
                Err(SpannerError::new(Code::Aborted))
            }
            TransactionState::Committed
            | TransactionState::CommitFailed
            | TransactionState::RolledBack => Err(SpannerError::new(Code::FailedPrecondition)),
        }
    }

    /// Reads one row, like [`Transaction::read`], if the transaction is still open.
    pub fn read(
        &mut self,
        db: &Database,
        table: &'static str,
        key: &str,
    ) -> Result<Option<Row>, SpannerError> {
        self.open()?;
        Ok(self.parts.read(db, table, key))
    }

    /// Scans a table, like [`Transaction::scan`], if the transaction is still open.
    pub fn scan(
        &mut self,
        db: &Database,
        table: &'static str,
    ) -> Result<Vec<(String, Row)>, SpannerError> {
        self.open()?;
        Ok(self.parts.scan(db, table, None, None))
    }

    /// Runs a DML statement, like [`Transaction::execute_update`], if the transaction is
    /// still open.
    pub fn execute_update(
        &mut self,
        db: &Database,
        sim: &mut Sim,
        dml: Dml,
    ) -> Result<u64, SpannerError> {
        self.open()?;
        let result = self.parts.execute_update(db, sim, dml);
        if self.parts.aborted {
            self.state = TransactionState::Aborted;
        }
        result
    }

    /// Buffers a mutation, if the transaction is still open.
    pub fn buffer(&mut self, mutation: Mutation) -> Result<(), SpannerError> {
        self.open()?;
        self.parts.mutations.push(mutation);
        Ok(())
    }

    /// Commits, if the transaction is still open; see [`Database::commit`]. Afterwards the
    /// transaction is over whatever the outcome: `Committed`, `Aborted`, or `CommitFailed`
    /// (DEADLINE_EXCEEDED included: committing again cannot tell whether it applied).
    pub fn commit(
        &mut self,
        db: &mut Database,
        sim: &mut Sim,
    ) -> Result<CommitResponse, SpannerError> {
        if let Err(refused) = self.open() {
            sim.event("spanner", Glyph::Error, || {
                (
                    format!("commit -> {refused}"),
                    format!("the transaction is {:?}: nothing sent", self.state),
                )
            });
            return Err(refused);
        }
        let result = db.commit(sim, std::mem::take(&mut self.parts));
        self.state = match result {
            Ok(_) => TransactionState::Committed,
            Err(SpannerError {
                code: Code::Aborted,
            }) => TransactionState::Aborted,
            Err(_) => TransactionState::CommitFailed,
        };
        result
    }

    /// Rolls back: drops what the transaction buffered. After an ABORTED or a failed
    /// commit it is allowed and does nothing (the service answers OK for a transaction
    /// already aborted or not found; it cannot undo a commit that applied). After a
    /// commit or a rollback it is refused with FAILED_PRECONDITION.
    pub fn rollback(&mut self) -> Result<(), SpannerError> {
        match self.state {
            TransactionState::Started => {
                self.parts = Buffered::default();
                self.state = TransactionState::RolledBack;
                Ok(())
            }
            TransactionState::Aborted | TransactionState::CommitFailed => Ok(()),
            TransactionState::Committed | TransactionState::RolledBack => {
                Err(SpannerError::new(Code::FailedPrecondition))
            }
        }
    }
}
