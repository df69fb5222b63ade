//! The world the build phase is graded in. Complete code: read it, do not change it.
//!
//! A simulated Spanner database (`sim_spanner::Database`) holds the `settlements` table;
//! a simulated payment processor outside the database issues receipts. The application
//! process reaches both through [`App`], whose every call goes through the fault core:
//! a commit can end ABORTED (the runner calls the callback again) or DEADLINE_EXCEEDED
//! (applied and the response lost, not applied, or applied later); a charge can time out
//! with the same three truths; the process can crash after each step. At a crash the
//! process's memory is gone; the database and the processor keep everything, and the next
//! process runs the learner's code from the start.

use crate::settlement::{reconcile, settle};
use labkit::fault::{
    self, Crash, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict, Violation,
};
use labkit::figure::Sequence;
use sim_spanner::{
    ChargeRequest, Code, Committed, Database, Mutation, PaymentProcessor, ProcessorError, Receipt,
    Row, SpannerError, Transaction, run_transaction,
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

/// The intents every graded settlement schedule starts with.
pub const INTENTS: [Intent; 2] = [
    Intent {
        id: "S1",
        amount: 120,
    },
    Intent {
        id: "S2",
        amount: 80,
    },
];

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

/// The invariants of the settlement scenario, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invariant {
    /// No intent has more than one receipt.
    ChargedAtMostOnce,
    /// Every intent has a receipt once the faults heal.
    ChargedAtLeastOnce,
    /// Every intent's row is settled and names the receipt the processor issued.
    SettledWithItsReceipt,
}

pub const ALL_INVARIANTS: [Invariant; 3] = [
    Invariant::ChargedAtMostOnce,
    Invariant::ChargedAtLeastOnce,
    Invariant::SettledWithItsReceipt,
];

fn receipt_ids(receipts: &[Receipt]) -> String {
    let ids: Vec<&str> = receipts.iter().map(|r| r.id.as_str()).collect();
    ids.join(" and ")
}

fn check_settlements(world: &World, invariants: &[Invariant]) -> Verdict {
    for intent in INTENTS {
        let id = intent.id;
        let receipts = world.processor.search(id);
        let row = world.db.read(SETTLEMENTS, id);
        for invariant in invariants {
            match invariant {
                Invariant::ChargedAtMostOnce if receipts.len() > 1 => {
                    let rows = if row.is_some() {
                        "one settlement row"
                    } else {
                        "no settlement row"
                    };
                    return Err(Violation::new(
                        "no intent is charged twice",
                        &[
                            format!("Let {id} be the intent to charge {} once.", intent.amount),
                            format!(
                                "Then the processor issued {} receipts for {id} ({}), and the database holds {rows}.",
                                receipts.len(),
                                receipt_ids(&receipts)
                            ),
                            "Contradiction: one intent, one charge. A callback runs again after ABORTED, and DEADLINE_EXCEEDED is not a rollback: locate the original identity's state, and resend only under the same idempotency key.".into(),
                        ],
                    ));
                }
                Invariant::ChargedAtLeastOnce if receipts.is_empty() => {
                    return Err(Violation::new(
                        "every intent is charged once the faults heal",
                        &[
                            format!("Let {id} be the intent to charge {}.", intent.amount),
                            format!("Then, after the faults healed and the application ran twice more, the processor holds no receipt for {id}."),
                            "Contradiction: a healed application must finish its work. An unknown outcome must be resolved, not abandoned.".into(),
                        ],
                    ));
                }
                Invariant::SettledWithItsReceipt => {
                    let status = row
                        .as_ref()
                        .and_then(|r| r.text("status").map(str::to_string));
                    let named = row
                        .as_ref()
                        .and_then(|r| r.text("receipt").map(str::to_string));
                    let issued = receipts.first().map(|r| r.id.clone());
                    if status.as_deref() != Some("settled") || named.is_none() || named != issued {
                        return Err(Violation::new(
                            "every intent is settled with the receipt the processor issued",
                            &[
                                format!("Let {id} be the intent, with receipt(s) [{}] at the processor.", receipt_ids(&receipts)),
                                format!(
                                    "Then its settlement row is {}.",
                                    match (&status, &named) {
                                        (None, _) => "missing".to_string(),
                                        (Some(s), None) => format!("`{s}` without a receipt"),
                                        (Some(s), Some(r)) => format!("`{s}` naming receipt {r}"),
                                    }
                                ),
                                "Contradiction: once the faults heal, every intent's row must be `settled` and name the one receipt that pays for it.".into(),
                            ],
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Runs `step` as one application process; a stop is recorded in the timeline and the
/// next process starts from the durable state. Returns whether the step finished.
fn process(
    sim: &mut Sim,
    what: &str,
    step: impl FnOnce(&mut App<'_>) -> Result<(), Stop>,
    world: &mut World,
) -> bool {
    let result = {
        let mut app = App::new(sim, world);
        step(&mut app)
    };
    let finished = result.is_ok();
    if let Err(stop) = result {
        let glyph = if matches!(stop, Stop::Crash(_)) {
            Glyph::Recover
        } else {
            Glyph::Normal
        };
        sim.event("app", glyph, || {
            (
                format!("{what} stopped ({stop}); a new process starts from the database"),
                String::new(),
            )
        });
    }
    finished
}

/// One graded settlement schedule: passes over the intents (each settlement in its own
/// process) until one pass finishes every intent, at most three while faults happen; then
/// the faults heal (commits and charges in flight land) and passes run again until one
/// finishes everything, at most two; then the invariants.
pub fn settlement_scenario(sim: &mut Sim, invariants: &[Invariant]) -> Verdict {
    let mut world = World::default();
    for phase_passes in [3, 2] {
        for _pass in 0..phase_passes {
            let mut finished = true;
            for intent in INTENTS {
                finished &= process(sim, "settle", |app| settle(app, &intent), &mut world);
            }
            if finished {
                break;
            }
        }
        if !sim.is_healed() {
            sim.heal();
            world.land_in_flight(sim);
        }
    }
    check_settlements(&world, invariants)
}

/// The history the reconciliation starts from, written by an older, naive settlement
/// job: S7 charged twice (the callback ran again after ABORTED), S8 charged once, S9
/// charged but its settlement never recorded (the commit ended DEADLINE_EXCEEDED, not
/// applied).
pub fn legacy_world() -> World {
    // Built once per thread and copied for each schedule: it never changes.
    thread_local! {
        static LEGACY: World = build_legacy_world();
    }
    LEGACY.with(World::clone)
}

fn build_legacy_world() -> World {
    let mut world = World::default();
    let charge = |world: &mut World, reference: &str, amount: i64| {
        world.processor.seed(ChargeRequest {
            reference: reference.to_string(),
            amount,
            idempotency_key: None,
        })
    };
    let _first_attempt = charge(&mut world, "S7", 120);
    let s7 = charge(&mut world, "S7", 120);
    let s8 = charge(&mut world, "S8", 60);
    let _s9 = charge(&mut world, "S9", 45);
    let settled = |id: &str, amount: i64, receipt: &Receipt| Mutation::Insert {
        table: SETTLEMENTS,
        key: id.into(),
        row: Row::new()
            .with("amount", amount)
            .with("status", "settled")
            .with("receipt", receipt.id.as_str()),
    };
    world.db.seed(&[
        settled("S7", 120, &s7),
        settled("S8", 60, &s8),
        Mutation::Insert {
            table: SETTLEMENTS,
            key: "S9".into(),
            row: Row::new().with("amount", 45).with("status", "pending"),
        },
    ]);
    world
}

/// The invariants of the reconciliation scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// The settlement rows and the processor's receipts are exactly as before, and the
    /// reconciliation charged nothing (no deletion, no invented compensation).
    Untouched,
    /// One reconciliation row per receipt, relating it to its intent and attempt, with
    /// the right finding.
    EveryReceiptRelated,
}

pub const ALL_EVIDENCE: [Evidence; 2] = [Evidence::Untouched, Evidence::EveryReceiptRelated];

fn check_reconciliation(before: &World, after: &World, invariants: &[Evidence]) -> Verdict {
    for invariant in invariants {
        match invariant {
            Evidence::Untouched => {
                if !before.db.same_rows(&after.db, SETTLEMENTS) {
                    let (rows_before, rows_after) =
                        (before.db.rows(SETTLEMENTS), after.db.rows(SETTLEMENTS));
                    return Err(Violation::new(
                        "reconciliation deletes and rewrites no evidence",
                        &[
                            format!("Let the settlements table hold {} row(s) before reconciliation.", rows_before.len()),
                            format!("Then afterwards it holds {} row(s), and they differ from the originals.", rows_after.len()),
                            "Contradiction: reconciliation records what it found beside the evidence; it never changes or deletes the evidence itself.".into(),
                        ],
                    ));
                }
                let calls = after.processor.calls() - before.processor.calls();
                if calls > 0 || after.processor.receipts() != before.processor.receipts() {
                    return Err(Violation::new(
                        "reconciliation invents no compensation",
                        &[
                            format!("Let the processor hold {} receipt(s) before reconciliation.", before.processor.receipts().len()),
                            format!("Then reconciliation sent {calls} charge request(s) to the processor."),
                            "Contradiction: a duplicate charge is for an owner to confirm and settle; reconciliation only records the relation between intent, attempt and effect.".into(),
                        ],
                    ));
                }
            }
            Evidence::EveryReceiptRelated => {
                for receipt in after.processor.receipts() {
                    let line = after.db.read(RECONCILIATION, &receipt.id);
                    let recorded_receipt = after
                        .db
                        .read(SETTLEMENTS, &receipt.reference)
                        .and_then(|r| r.text("receipt").map(str::to_string));
                    let recorded = recorded_receipt.as_deref() == Some(receipt.id.as_str());
                    let attempt = receipt.idempotency_key.as_deref().unwrap_or("no key");
                    let finding = if recorded { RECORDED } else { UNRECORDED };
                    let matches = line.as_ref().is_some_and(|l| {
                        l.text("intent") == Some(receipt.reference.as_str())
                            && l.text("attempt") == Some(attempt)
                            && l.int("amount") == Some(receipt.amount)
                            && l.bool("recorded") == Some(recorded)
                            && l.text("finding") == Some(finding)
                    });
                    if !matches {
                        return Err(Violation::new(
                            "every receipt is related to its intent and attempt",
                            &[
                                format!(
                                    "Let {} be the processor's receipt for {} ({}), sent with {attempt}; the settlement row {} it.",
                                    receipt.id,
                                    receipt.reference,
                                    receipt.amount,
                                    if recorded { "names" } else { "does not name" }
                                ),
                                match &line {
                                    None => format!(
                                        "Then the reconciliation table has no row for {}.",
                                        receipt.id
                                    ),
                                    Some(l) => format!("Then its reconciliation row is {l:?}."),
                                },
                                format!(
                                    "Contradiction: every receipt is evidence; its row must say intent {}, attempt {attempt}, amount {}, recorded {recorded}, finding `{finding}`.",
                                    receipt.reference, receipt.amount
                                ),
                            ],
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// One graded reconciliation schedule: the legacy history; reconciliation runs until one
/// finishes (at most three runs while faults happen); the faults heal; one more run (a
/// reconciliation can always be run again); then the invariants.
pub fn reconciliation_scenario(sim: &mut Sim, invariants: &[Evidence]) -> Verdict {
    let before = legacy_world();
    let mut world = before.clone();
    sim.note("history", || {
        let rows: Vec<String> = before
            .db
            .rows(SETTLEMENTS)
            .iter()
            .map(|(id, row)| {
                let status = row.text("status").unwrap_or("?");
                match row.text("receipt") {
                    Some(receipt) => format!("{id} {status} ({receipt})"),
                    None => format!("{id} {status}"),
                }
            })
            .collect();
        format!("settlement rows: {}", rows.join(", "))
    });
    sim.note("history", || {
        let receipts: Vec<String> = before
            .processor
            .receipts()
            .iter()
            .map(|r| format!("{} for {} ({})", r.id, r.reference, r.amount))
            .collect();
        format!("receipts: {}", receipts.join(", "))
    });
    for _run in 1..=3 {
        if process(sim, "reconcile", reconcile, &mut world) {
            break;
        }
    }
    sim.heal();
    world.land_in_flight(sim);
    process(sim, "reconcile", reconcile, &mut world);
    check_reconciliation(&before, &world, invariants)
}

pub fn settlement_scope(max_faults: usize) -> Scope {
    Scope {
        lab: "02",
        scenario: "settlement",
        max_faults,
    }
}

pub fn reconciliation_scope(max_faults: usize) -> Scope {
    Scope {
        lab: "02",
        scenario: "reconciliation",
        max_faults,
    }
}

/// Explores every settlement schedule with up to `max_faults` faults.
pub fn explore_settlement(max_faults: usize, invariants: &'static [Invariant]) -> Exploration {
    fault::explore(settlement_scope(max_faults), |sim| {
        settlement_scenario(sim, invariants)
    })
}

/// Explores every reconciliation schedule with up to `max_faults` faults.
pub fn explore_reconciliation(max_faults: usize, invariants: &'static [Evidence]) -> Exploration {
    fault::explore(reconciliation_scope(max_faults), |sim| {
        reconciliation_scenario(sim, invariants)
    })
}

fn replay_settlement(token: &Token) -> Replay {
    fault::replay(token, |sim| settlement_scenario(sim, &ALL_INVARIANTS))
}

fn replay_reconciliation(token: &Token) -> Replay {
    fault::replay(token, |sim| reconciliation_scenario(sim, &ALL_EVIDENCE))
}

fn replay_naive(token: &Token) -> Replay {
    fault::replay(token, |sim| crate::observe::naive_scenario(sim).0)
}

/// The scenarios `cargo labs replay 02 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[
    ("settlement", replay_settlement),
    ("reconciliation", replay_reconciliation),
    ("naive", replay_naive),
];

/// The figures of chapter 2.
pub fn figures() -> Vec<(&'static str, String)> {
    let retried = Sequence::new(
        "The settlement case: a retried callback charges twice, one row remains",
        &["application", "runner", "processor", "Spanner"],
    )
    .call("application", "runner", "run_transaction(callback)")
    .divider("attempt 1")
    .call("runner", "Spanner", "read settlements/S7: no row")
    .call("runner", "processor", "charge S7 120 (no key)")
    .reply("processor", "runner", "receipt ch_1")
    .call("runner", "Spanner", "commit: insert S7 (receipt ch_1)")
    .reply("Spanner", "runner", "ABORTED (nothing applied)")
    .divider("attempt 2: the runner calls the callback again")
    .call("runner", "Spanner", "read settlements/S7: no row")
    .call("runner", "processor", "charge S7 120 (no key)")
    .reply("processor", "runner", "receipt ch_2")
    .call("runner", "Spanner", "commit: insert S7 (receipt ch_2)")
    .reply("Spanner", "runner", "ok, commit timestamp 1")
    .reply("runner", "application", "committed")
    .note("processor", "two receipts: ch_1, ch_2")
    .note("Spanner", "one row: S7 -> ch_2");
    let recovery = Sequence::new(
        "Recovery by the original identity: intent first, one key, look before resending",
        &["application", "Spanner", "processor"],
    )
    .call(
        "application",
        "Spanner",
        "commit: insert S1 pending, key settle-S1",
    )
    .reply("Spanner", "application", "ok")
    .call("application", "processor", "charge S1 120, key settle-S1")
    .note("processor", "charges: receipt ch_1")
    .lost("processor", "application", "receipt ch_1")
    .crash("application", "timeout, then the process crashes")
    .divider("next process: locate the original identity")
    .call("application", "Spanner", "read settlements/S1")
    .reply("Spanner", "application", "pending, key settle-S1")
    .call("application", "processor", "search receipts for S1")
    .reply("processor", "application", "[ch_1, key settle-S1]")
    .call("application", "Spanner", "commit: S1 settled, receipt ch_1")
    .lost("Spanner", "application", "DEADLINE_EXCEEDED")
    .call("application", "Spanner", "read settlements/S1")
    .reply("Spanner", "application", "settled, receipt ch_1: done");
    vec![
        (
            "02-uncertain-outcomes-retried-callback.svg",
            retried.to_svg(),
        ),
        ("02-uncertain-outcomes-recovery.svg", recovery.to_svg()),
    ]
}
