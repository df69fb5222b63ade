//! The world your settlement talks to. Complete code: read it, do not change it.
//!
//! A simulated Spanner database (`sim_spanner::Database`) holds the `settlements` table;
//! a simulated payment processor outside the database issues receipts. The application
//! process reaches both through [`App`], whose every call goes through the fault core:
//! a commit can end ABORTED (the runner calls the callback again) or DEADLINE_EXCEEDED
//! (applied and the response lost, not applied, or applied later); a charge can time out
//! with the same three truths; the process can crash after each step. At a crash the
//! process's memory is gone; the database and the processor keep everything, and the next
//! process runs your code from the start.

use labkit::fault::{Crash, Sim};
use sim_spanner::{
    ChargeRequest, Code, Committed, Database, PaymentProcessor, ProcessorError, Receipt, Row,
    SpannerError, Transaction, run_transaction,
};

/// The table of settlements, keyed by intent id. Columns: `amount`, `status`
/// (`pending` or `settled`), `receipt` (once settled) and `idempotency_key`.
pub const SETTLEMENTS: &str = "settlements";

/// The reconciliation table, keyed by receipt id. Columns: `intent`, `attempt` (the
/// idempotency key the charge was sent with, or `no key`), `amount`, `recorded` (the
/// settlement row names this receipt) and `finding`.
pub const RECONCILIATION: &str = "reconciliation";

/// The finding for a receipt that the settlement row names.
pub const RECORDED: &str = "recorded";
/// The finding for a receipt that no settlement row names: evidence for an owner to
/// confirm, never to delete or to compensate on the code's own initiative.
pub const UNRECORDED: &str = "unrecorded: owner to confirm";

/// An intent to settle an order: charge `amount` once and record the receipt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Intent {
    pub id: &'static str,
    pub amount: i64,
}

/// Why a step of the application stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The process crashed: its memory is gone.
    Crash(Crash),
    /// The database returned an error code (ABORTED after the runner's last attempt,
    /// DEADLINE_EXCEEDED, ALREADY_EXISTS, NOT_FOUND).
    Spanner(Code),
    /// The processor returned an error (a timeout, or a reused key).
    Processor(ProcessorError),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Crash(crash) => write!(f, "{crash}"),
            Stop::Spanner(code) => f.write_str(code.name()),
            Stop::Processor(error) => write!(f, "processor: {error}"),
        }
    }
}

impl From<Crash> for Stop {
    fn from(c: Crash) -> Self {
        Stop::Crash(c)
    }
}

impl From<SpannerError> for Stop {
    fn from(e: SpannerError) -> Self {
        Stop::Spanner(e.code)
    }
}

impl From<ProcessorError> for Stop {
    fn from(e: ProcessorError) -> Self {
        Stop::Processor(e)
    }
}

/// One day on the fault core's logical clock (one tick a second). The processor keeps an
/// idempotency key's result for a day (`sim_spanner::KEY_RETENTION_SECONDS`).
pub const DAY: u64 = 24 * 60 * 60;

/// The durable world: what survives a crash of the application.
#[derive(Clone, Debug, Default)]
pub struct World {
    pub db: Database,
    pub processor: PaymentProcessor,
}

impl World {
    /// Lands every commit and charge still in flight (the faults have healed).
    pub fn land_in_flight(&mut self, sim: &mut Sim) {
        self.db.land_in_flight(sim);
        self.processor.land_in_flight(sim);
    }

    /// A day passes. Nothing stays in flight that long: what was still on its way lands
    /// first, and the day passes after it.
    pub fn pass_a_day(&mut self, sim: &mut Sim) {
        self.land_in_flight(sim);
        sim.advance(DAY);
    }
}

/// What a callback may do outside the database: charge. It is handed to the callback
/// because a callback can call out, not because it should.
pub struct Outside<'a> {
    sim: &'a mut Sim,
    processor: &'a mut PaymentProcessor,
}

impl Outside<'_> {
    /// Charges from inside a callback; a crash point follows a successful charge.
    pub fn charge(&mut self, request: ChargeRequest) -> Result<Receipt, Stop> {
        let receipt = self.processor.charge(self.sim, request)?;
        self.sim.crash_point("app:after-charge")?;
        Ok(receipt)
    }
}

/// The application process: its handle on the database and the processor. Each step that
/// changes something outside the process is followed by a crash point.
pub struct App<'a> {
    sim: &'a mut Sim,
    world: &'a mut World,
}

impl<'a> App<'a> {
    pub fn new(sim: &'a mut Sim, world: &'a mut World) -> Self {
        App { sim, world }
    }

    // ANCHOR: app_steps
    /// Runs a read-write transaction through the runner: the callback runs once per
    /// attempt and again after every ABORTED commit. Returns the committed attempt's
    /// value, or the error that ended the transaction (DEADLINE_EXCEEDED: unknown outcome).
    pub fn transaction<T>(
        &mut self,
        mut callback: impl FnMut(&mut Transaction<'_>, &mut Outside<'_>) -> Result<T, Stop>,
    ) -> Result<Committed<T>, Stop> {
        let processor = &mut self.world.processor;
        let committed = run_transaction(&mut self.world.db, self.sim, |txn, sim| {
            callback(txn, &mut Outside { sim, processor })
        })?;
        self.sim.crash_point("app:after-commit")?;
        Ok(committed)
    }

    /// Charges outside any transaction. A timeout is an unknown outcome.
    pub fn charge(&mut self, request: ChargeRequest) -> Result<Receipt, Stop> {
        let receipt = self.world.processor.charge(self.sim, request)?;
        self.sim.crash_point("app:after-charge")?;
        Ok(receipt)
    }

    /// A strong read of one row, outside any transaction.
    pub fn read(&mut self, table: &'static str, key: &str) -> Option<Row> {
        let row = self.world.db.read(table, key);
        self.sim.note("app", || {
            let found = if row.is_some() { "found" } else { "no row" };
            format!("read {table}/{key}: {found}")
        });
        row
    }

    /// Every receipt the processor issued for `reference` (searching is always allowed
    /// and changes nothing).
    pub fn search(&mut self, reference: &str) -> Vec<Receipt> {
        let found = self.world.processor.search(reference);
        self.sim.note("app", || {
            let ids: Vec<&str> = found.iter().map(|r| r.id.as_str()).collect();
            format!("search receipts for {reference}: [{}]", ids.join(", "))
        });
        found
    }

    /// Every receipt the processor issued, for reconciliation.
    pub fn all_receipts(&self) -> Vec<Receipt> {
        self.world.processor.receipts().to_vec()
    }
    // ANCHOR_END: app_steps
}
