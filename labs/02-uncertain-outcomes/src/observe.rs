//! The observe phase: a naive settlement, run on every schedule with at most one fault.
//!
//! The naive code charges the payment processor inside a Spanner read-write transaction
//! callback, without an idempotency key, and its caller treats every error as "it did not
//! happen" and tries again. The exploration runs it once per schedule (the fault-free one,
//! then each single fault: a crash, an ABORTED commit, a commit or a charge that times out
//! with each of its hidden truths) and records what each schedule left behind. A second,
//! smaller exploration commits with a transaction the application drives itself and,
//! when that commit fails, commits the same transaction again. Every check, every answer
//! and the crash matrix below are computed from those records; the answer keys live in
//! `lab.toml`.

use crate::harness::{App, Intent, SETTLEMENTS, Stop, World};
use labkit::fault::{self, CrashMatrix, Glyph, Scope, Sim, Verdict, Violation};
use labkit::{Observation, Report};
use sim_spanner::{ChargeRequest, Code, Database, Mutation, PaymentProcessor, Row};

/// The one intent of the observe phase.
pub const S1: Intent = Intent {
    id: "S1",
    amount: 120,
};

// ANCHOR: naive
/// The naive settlement: the charge happens inside the read-write callback, with no
/// idempotency key. `callback_runs` counts how often the runner called the callback.
pub fn settle_naive(
    app: &mut App<'_>,
    intent: &Intent,
    callback_runs: &mut u32,
) -> Result<(), Stop> {
    app.transaction(|txn, outside| {
        *callback_runs += 1;
        if txn.read(SETTLEMENTS, intent.id).is_some() {
            return Ok(()); // already settled
        }
        let receipt = outside.charge(ChargeRequest {
            reference: intent.id.to_string(),
            amount: intent.amount,
            idempotency_key: None,
        })?;
        txn.insert(
            SETTLEMENTS,
            intent.id,
            Row::new()
                .with("amount", intent.amount)
                .with("status", "settled")
                .with("receipt", receipt.id.as_str()),
        );
        Ok(())
    })?;
    Ok(())
}
// ANCHOR_END: naive

/// What one naive schedule left behind.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The faults the schedule took, as `site=option`.
    pub faults: Vec<String>,
    pub callback_runs: u32,
    pub rows: usize,
    /// Receipt ids for S1, in the order the processor issued them.
    pub receipts: Vec<String>,
    /// The receipt the settlement row names.
    pub row_receipt: Option<String>,
    /// For each DEADLINE_EXCEEDED the caller saw: was the row in the database right then?
    pub row_when_deadline_exceeded: Vec<bool>,
}

// ANCHOR: naive_caller
/// One naive schedule: up to three processes call `settle_naive`; the caller reads any
/// error, DEADLINE_EXCEEDED included, as "nothing happened" and tries again. Then the
/// faults heal and the invariants are checked.
pub fn naive_scenario(sim: &mut Sim) -> (Verdict, Facts) {
    let mut world = World::default();
    let mut facts = Facts::default();
    for _process in 1..=3 {
        let result = settle_naive(
            &mut App::new(sim, &mut world),
            &S1,
            &mut facts.callback_runs,
        );
        match result {
            Ok(()) => break,
            Err(Stop::Spanner(Code::DeadlineExceeded)) => {
                // The lab (not the naive code) looks at the truth at this moment.
                let present = world.db.read(SETTLEMENTS, S1.id).is_some();
                facts.row_when_deadline_exceeded.push(present);
                sim.note("app", || {
                    "DEADLINE_EXCEEDED read as a rollback: settle again".into()
                });
            }
            Err(stop @ Stop::Crash(_)) => sim.event("app", Glyph::Recover, || {
                (
                    format!("{stop}; a new process settles again"),
                    String::new(),
                )
            }),
            Err(stop) => sim.note("app", || format!("{stop}: settle again")),
        }
    }
    sim.heal();
    world.land_in_flight(sim);
    facts.faults = sim.fault_list();
    facts.rows = world.db.count(SETTLEMENTS);
    facts.receipts = world
        .processor
        .search(S1.id)
        .into_iter()
        .map(|r| r.id)
        .collect();
    facts.row_receipt = world
        .db
        .read(SETTLEMENTS, S1.id)
        .and_then(|row| row.text("receipt").map(str::to_string));
    let verdict = if facts.receipts.len() > 1 {
        Err(Violation::new(
            "one receipt per intent",
            &[
                format!("Let S1 be the intent to charge {} once.", S1.amount),
                format!(
                    "Then the processor issued {} receipts ({}) while the database holds {} row(s).",
                    facts.receipts.len(),
                    facts.receipts.join(", "),
                    facts.rows
                ),
                "Contradiction: the charge ran once per callback run or per retry.".into(),
            ],
        ))
    } else if facts.row_receipt.is_none() || facts.row_receipt.as_ref() != facts.receipts.first() {
        Err(Violation::new(
            "the row names the receipt",
            &[
                "Let S1 be the intent.".into(),
                format!(
                    "Then its row names {:?} and the processor holds {:?}.",
                    facts.row_receipt, facts.receipts
                ),
                "Contradiction: a settled intent names the receipt that paid for it.".into(),
            ],
        ))
    } else {
        Ok(())
    };
    (verdict, facts)
}
// ANCHOR_END: naive_caller

pub fn scope() -> Scope {
    Scope {
        lab: "02",
        scenario: "naive",
        max_faults: 1,
    }
}

/// Every one-fault schedule of the naive settlement: the exploration, the crash matrix and
/// the facts of each schedule (in exploration order).
pub fn explore_naive() -> (fault::Exploration, CrashMatrix, Vec<Facts>) {
    let mut all_facts = Vec::new();
    let exploration = fault::explore_all(scope(), |sim| {
        let (verdict, facts) = naive_scenario(sim);
        all_facts.push(facts);
        verdict
    });
    let matrix = CrashMatrix::from_exploration(&exploration);
    (exploration, matrix, all_facts)
}

/// What one schedule of [`commit_twice`] showed.
#[derive(Clone, Debug)]
pub struct CommitTwice {
    /// The fault the schedule took, as `site=option` (`none` without one).
    pub fault: String,
    pub first: Result<(), Code>,
    /// Was the row in the database when the first commit returned?
    pub applied: bool,
    pub again: Result<(), Code>,
}

// ANCHOR: commit_twice
/// S1's pending row, committed by a transaction the application drives itself (begin,
/// buffer, commit); when that commit fails, the same transaction is committed again.
pub fn commit_twice(sim: &mut Sim) -> CommitTwice {
    let mut db = Database::new();
    let mut txn = db.begin_transaction();
    txn.buffer(Mutation::Insert {
        table: SETTLEMENTS,
        key: S1.id.into(),
        row: Row::new()
            .with("amount", S1.amount)
            .with("status", "pending"),
    })
    .expect("a new transaction is open");
    let first = txn.commit(&mut db, sim).map(|_| ()).map_err(|e| e.code);
    let applied = db.read(SETTLEMENTS, S1.id).is_some();
    let again = if first.is_err() {
        txn.commit(&mut db, sim).map(|_| ()).map_err(|e| e.code)
    } else {
        Ok(())
    };
    CommitTwice {
        fault: sim.fault_list().pop().unwrap_or_else(|| "none".into()),
        first,
        applied,
        again,
    }
}
// ANCHOR_END: commit_twice

/// Every schedule of [`commit_twice`] with at most one fault (each outcome of its commit).
pub fn explore_commit_twice() -> Vec<CommitTwice> {
    let mut all = Vec::new();
    let scope = Scope {
        lab: "02",
        scenario: "commit-twice",
        max_faults: 1,
    };
    fault::explore_all(scope, |sim| {
        all.push(commit_twice(sim));
        Ok(())
    });
    all
}

fn code_name(result: &Result<(), Code>) -> &'static str {
    match result {
        Ok(()) => "ok",
        Err(code) => code.name(),
    }
}

fn passes(matrix: &CrashMatrix, fault: &str) -> bool {
    matrix
        .cell(fault)
        .unwrap_or_else(|| {
            panic!(
                "the crash matrix has no row `{fault}`:\n{}",
                matrix.render()
            )
        })
        .broken
        .is_none()
}

fn facts_for<'a>(all: &'a [Facts], fault: &str) -> &'a Facts {
    all.iter()
        .find(|f| f.faults.len() == 1 && f.faults[0] == fault)
        .unwrap_or_else(|| panic!("no schedule with the single fault `{fault}`"))
}

pub fn run() -> Report {
    let mut obs = Observation::new("uncertain-outcomes");
    let (exploration, matrix, all) = explore_naive();

    // ANCHOR: observe_retried
    // 1. The commit ends ABORTED once; the runner calls the callback again.
    let aborted = facts_for(&all, "spanner:commit=rejected (definite)");
    obs.check(
        "the callback runs once per settlement",
        aborted.callback_runs == 1,
    );
    obs.check(
        "the charge inside the callback repeats when the runner retries",
        aborted.receipts.len() == 2,
    );
    obs.check(
        "the row written by the aborted attempt is not in the database",
        aborted.rows == 1 && aborted.row_receipt.as_ref() == aborted.receipts.last(),
    );
    // ANCHOR_END: observe_retried

    // 2. DEADLINE_EXCEEDED on commit, over every schedule where the caller saw it.
    let seen: Vec<bool> = all
        .iter()
        .flat_map(|f| f.row_when_deadline_exceeded.iter().copied())
        .collect();
    obs.check(
        "a DEADLINE_EXCEEDED commit was rolled back",
        !seen.is_empty() && seen.iter().all(|present| !present),
    );
    obs.check(
        "a DEADLINE_EXCEEDED commit was applied",
        !seen.is_empty() && seen.iter().all(|present| *present),
    );
    let one_row_two_receipts = all.iter().any(|f| f.rows == 1 && f.receipts.len() > 1);
    obs.check("one committed row means one receipt", !one_row_two_receipts);

    // 3. The crash matrix: each single fault, pass or the invariant it broke.
    obs.check(
        "DEADLINE_EXCEEDED on a commit that applied leaves one receipt",
        passes(&matrix, "spanner:commit=applied, response lost"),
    );
    obs.check(
        "DEADLINE_EXCEEDED on a commit not applied leaves one receipt",
        passes(&matrix, "spanner:commit=not applied"),
    );
    obs.check(
        "an ABORTED commit leaves one receipt",
        passes(&matrix, "spanner:commit=rejected (definite)"),
    );
    obs.check(
        "a crash after the commit leaves one receipt",
        passes(&matrix, "app:after-commit=crash"),
    );
    obs.check(
        "a charge timeout with nothing charged leaves one receipt",
        passes(&matrix, "processor:charge=not applied"),
    );
    obs.check(
        "a charge whose response is lost leaves one receipt",
        passes(&matrix, "processor:charge=applied, response lost"),
    );

    // ANCHOR: observe_key
    // 4. The same retry, with an idempotency key: the first response is lost.
    let mut sim = Sim::replaying(&[1]);
    let mut processor = PaymentProcessor::new();
    let keyed = |key: &str| ChargeRequest {
        reference: S1.id.to_string(),
        amount: S1.amount,
        idempotency_key: Some(key.to_string()),
    };
    let first = processor.charge(&mut sim, keyed("settle-S1"));
    let retry = processor.charge(&mut sim, keyed("settle-S1"));
    let after_retry = processor.search(S1.id).len();
    obs.check(
        "retrying with the same idempotency key returns the first receipt",
        first.is_err() && retry.is_ok() && after_retry == 1,
    );
    processor
        .charge(&mut sim, keyed("settle-S1-again"))
        .expect("fault-free charge");
    obs.check(
        "a new idempotency key for the same intent is a second charge",
        processor.search(S1.id).len() == 2,
    );
    // ANCHOR_END: observe_key

    // 5. The same transaction committed again after its commit failed.
    let twice = explore_commit_twice();
    let after_deadline: Vec<&CommitTwice> = twice
        .iter()
        .filter(|t| t.first == Err(Code::DeadlineExceeded))
        .collect();
    let (applied, not_applied): (Vec<&CommitTwice>, Vec<&CommitTwice>) =
        after_deadline.iter().partition(|t| t.applied);
    // It tells only if every applied schedule answers differently from every other one.
    let second_commit_tells = !applied.is_empty()
        && !not_applied.is_empty()
        && applied
            .iter()
            .all(|a| not_applied.iter().all(|n| a.again != n.again));
    obs.check(
        "committing the same transaction again after DEADLINE_EXCEEDED tells whether the first commit applied",
        second_commit_tells,
    );

    // Questions, answered from the same records.
    let settlement_case = match (aborted.rows, aborted.receipts.len()) {
        (1, 1) => "a",
        (1, 2) => "b",
        (2, 2) => "c",
        (0, 1) => "d",
        _ => "?",
    };
    obs.answer(
        "settlement-case",
        settlement_case,
        format!(
            "after one ABORTED commit: {} row(s), {} receipt(s), callback ran {} times",
            aborted.rows,
            aborted.receipts.len(),
            aborted.callback_runs
        ),
    );
    let deadline_truths = match (seen.iter().any(|p| *p), seen.iter().any(|p| !p)) {
        (true, false) => "a",
        (false, true) => "b",
        (true, true) => "c",
        (false, false) => "?",
    };
    obs.answer(
        "deadline-truths",
        deadline_truths,
        format!(
            "{} DEADLINE_EXCEEDED commits seen: {} with the row present, {} without",
            seen.len(),
            seen.iter().filter(|p| **p).count(),
            seen.iter().filter(|p| !**p).count()
        ),
    );
    let one_fault = exploration.per_level.get(1).copied().unwrap_or(0);
    let one_fault_answer = match one_fault {
        5 => "a",
        9 => "b",
        12 => "c",
        15 => "d",
        _ => "?",
    };
    obs.answer(
        "one-fault-schedules",
        one_fault_answer,
        format!("{one_fault} schedules with exactly one fault"),
    );
    let failing = matrix.rows.iter().filter(|r| r.broken.is_some()).count();
    let failing_answer = match failing {
        0 => "a",
        1..=3 => "b",
        4..=6 => "c",
        _ => "d",
    };
    obs.answer(
        "matrix-failures",
        failing_answer,
        format!(
            "{failing} of {} single faults break an invariant",
            matrix.rows.len()
        ),
    );

    let after_abort = twice
        .iter()
        .find(|t| t.first == Err(Code::Aborted))
        .expect("a schedule whose commit ends ABORTED");
    obs.answer(
        "commit-again-after-aborted",
        match after_abort.again {
            Ok(()) => "a",
            Err(Code::Aborted) => "b",
            Err(Code::DeadlineExceeded) => "c",
            Err(Code::AlreadyExists) => "d",
            Err(_) => "?",
        },
        format!(
            "the second commit of the aborted transaction returned {}",
            code_name(&after_abort.again)
        ),
    );

    let matrix_lines: Vec<String> = matrix.render().lines().map(str::to_string).collect();
    let commit_twice_lines: Vec<String> = twice
        .iter()
        .map(|t| {
            let row = if t.applied { "present" } else { "absent" };
            match t.first {
                Ok(()) => format!("{}: first commit ok (row {row})", t.fault),
                Err(_) => format!(
                    "{}: first commit {} (row {row}), the same transaction again {}",
                    t.fault,
                    code_name(&t.first),
                    code_name(&t.again)
                ),
            }
        })
        .collect();
    let summary = serde_json::json!({
        "schedules": exploration.schedules,
        "per_fault_count": exploration.per_level,
        "crash_matrix": matrix_lines,
        "deadline_exceeded_seen": seen.len(),
        "commit_twice": commit_twice_lines,
        "scope": "Simulated Spanner read-write transactions (runner with ABORTED retries, \
                  DEADLINE_EXCEEDED with a hidden truth) and a simulated payment processor; \
                  one intent, one client, every schedule with at most one fault.",
    });
    obs.finish(None, summary)
}
