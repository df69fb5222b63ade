//! The Spanner half: reads at a timestamp on the simulated database of chapter 2, whose
//! clock is the fault core's logical clock (one tick a second).

use crate::world::ITEM;
use labkit::fault::Sim;
use sim_spanner::{
    Code, Database, IsolationLevel, ReadOnlyTransaction, Row, SpannerError, TimestampBound,
    run_transaction,
};

/// What one Spanner read answered: did it show the reservation, or which error?
pub type Read = std::result::Result<bool, Code>;

/// What the Spanner reads measured.
pub struct Spanner {
    pub b2_committed_at: u64,
    pub strong_right_after: Read,
    pub stale_right_after: Read,
    pub snapshot_opened_before: Read,
    pub stale_again: Read,
    pub at_commit: Read,
    pub future: Read,
    /// Seconds on the clock the future read took.
    pub future_waited: u64,
    /// 12 seconds after B2's commit, a read with the listing's `stale` (exact staleness).
    pub stale_12s_on: Read,
    /// 18 seconds after B2's commit, a read with a staleness bound of the listing's
    /// `stale` seconds, on the replica furthest behind.
    pub bounded_18s_on_behind: Read,
    /// Right after the commit, a read no older than the listing's `snapshot`'s read
    /// timestamp, on the replica furthest behind.
    pub min_snapshot_timestamp_behind: Read,
    /// A read-only transaction with the listing's `stale` bound, opened at the point of
    /// `stale_again`: its read then and its read 60 minutes and 3 seconds after B2's
    /// commit.
    pub stale_snapshot_reads: (Read, Read),
}

const RESERVATIONS: &str = "reservations";

fn reserve(db: &mut Database, sim: &mut Sim, id: &str) -> u64 {
    run_transaction(db, sim, |txn, _sim| {
        let row = Row::new().with("item", ITEM).with("qty", 1);
        txn.insert(RESERVATIONS, id, row);
        Ok::<(), SpannerError>(())
    })
    .expect("a fault-free commit")
    .commit_timestamp
}

fn shows(db: &Database, sim: &mut Sim, bound: TimestampBound, id: &str) -> Read {
    db.single_read(sim, bound, RESERVATIONS, id)
        .map(|row| row.is_some())
        .map_err(|e| e.code)
}

// ANCHOR: spanner_reads
/// A read-only transaction opens; B2's reservation commits; reads with several bounds
/// ask for it right away, 20 seconds later and 61 minutes after the commit; then a read
/// at a timestamp 10 seconds ahead.
pub fn spanner() -> Spanner {
    let mut sim = Sim::fault_free();
    let mut db = Database::new();
    sim.advance(600); // ten minutes on the clock: "15 s ago" is a real instant
    let stale = TimestampBound::ExactStaleness(15);
    let snapshot = db.read_only_transaction(&mut sim, TimestampBound::Strong);
    let snapshot = snapshot.expect("a strong read-only transaction");
    let b2_committed_at = reserve(&mut db, &mut sim, "B2");
    let strong_right_after = shows(&db, &mut sim, TimestampBound::Strong, "B2");
    let stale_right_after = shows(&db, &mut sim, stale, "B2");
    let in_snapshot = snapshot.read(&db, &mut sim, RESERVATIONS, "B2");
    sim.advance(20);
    let stale_again = shows(&db, &mut sim, stale, "B2");
    sim.advance(61 * 60 - 20);
    let at_commit = TimestampBound::ReadTimestamp(b2_committed_at);
    let at_commit = shows(&db, &mut sim, at_commit, "B2");
    let before = sim.now();
    let ahead = TimestampBound::ReadTimestamp(before + 10);
    let future = shows(&db, &mut sim, ahead, "B2");
    // … and returns what each read showed.
    // ANCHOR_END: spanner_reads
    Spanner {
        b2_committed_at,
        strong_right_after,
        stale_right_after,
        snapshot_opened_before: in_snapshot.map(|row| row.is_some()).map_err(|e| e.code),
        stale_again,
        at_commit,
        future,
        future_waited: sim.now() - before,
        stale_12s_on: exact_stale(12, 15),
        bounded_18s_on_behind: bounded_behind(18, 15),
        min_snapshot_timestamp_behind: min_snapshot_timestamp_behind(),
        stale_snapshot_reads: stale_snapshot_reads(),
    }
}

/// The listing's clock, then B2's commit.
fn committed() -> (Sim, Database) {
    committed_replaying(Sim::fault_free())
}

fn committed_replaying(mut sim: Sim) -> (Sim, Database) {
    let mut db = Database::new();
    sim.advance(600);
    reserve(&mut db, &mut sim, "B2");
    (sim, db)
}

fn read_in(snapshot: &ReadOnlyTransaction, db: &Database, sim: &mut Sim) -> Read {
    let row = snapshot.read(db, sim, RESERVATIONS, "B2");
    row.map(|row| row.is_some()).map_err(|e| e.code)
}

/// B2 commits; `seconds` later a read with `staleness` seconds of exact staleness.
fn exact_stale(seconds: u64, staleness: u64) -> Read {
    let (mut sim, db) = committed();
    sim.advance(seconds);
    shows(
        &db,
        &mut sim,
        TimestampBound::ExactStaleness(staleness),
        "B2",
    )
}

/// B2 commits; `seconds` later a read with a staleness bound of `bound` seconds that the
/// fault core serves from the replica furthest behind (option 1 of the choice after the
/// commit).
fn bounded_behind(seconds: u64, bound: u64) -> Read {
    let (mut sim, db) = committed_replaying(Sim::replaying(&[0, 1]));
    sim.advance(seconds);
    shows(&db, &mut sim, TimestampBound::MaxStaleness(bound), "B2")
}

/// A strong read-only transaction opens, B2 commits, and right after a read no older
/// than the transaction's read timestamp is served by the replica furthest behind.
fn min_snapshot_timestamp_behind() -> Read {
    let mut sim = Sim::replaying(&[0, 1]);
    let mut db = Database::new();
    sim.advance(600);
    let snapshot = db.read_only_transaction(&mut sim, TimestampBound::Strong);
    let snapshot = snapshot.expect("a strong read-only transaction");
    reserve(&mut db, &mut sim, "B2");
    let bound = TimestampBound::MinReadTimestamp(snapshot.read_timestamp());
    shows(&db, &mut sim, bound, "B2")
}

/// B2 commits; 20 seconds later a read-only transaction with 15 s of exact staleness
/// opens and reads B2; it reads B2 again 60 minutes and 3 seconds after the commit.
fn stale_snapshot_reads() -> (Read, Read) {
    let mut sim = Sim::fault_free();
    let mut db = Database::new();
    sim.advance(600);
    let committed_at = reserve(&mut db, &mut sim, "B2");
    sim.advance(committed_at + 20 - sim.now());
    let bound = TimestampBound::ExactStaleness(15);
    let snapshot = db.read_only_transaction(&mut sim, bound);
    let snapshot = snapshot.expect("an exact-staleness read-only transaction");
    let first = read_in(&snapshot, &db, &mut sim);
    sim.advance(committed_at + 60 * 60 + 3 - sim.now());
    (first, read_in(&snapshot, &db, &mut sim))
}

pub fn shown(read: &Read) -> &'static str {
    match read {
        Ok(true) => "shows the reservation",
        Ok(false) => "does not show it",
        Err(code) => code.name(),
    }
}

/// The last unit twice on Spanner: A and B each open a read-write transaction at
/// `isolation`, count the item's reservations, and insert their own row if none is there
/// (a stock of one); A reads, B reads, A commits, B commits. Returns the reservation rows
/// the table ends with.
pub fn last_unit_twice(isolation: IsolationLevel) -> Vec<String> {
    let mut sim = Sim::fault_free();
    let mut db = Database::new();
    let attempts = ["A", "B"].map(|id| {
        let mut txn = db.begin_at(isolation);
        if txn.scan(RESERVATIONS).is_empty() {
            txn.insert(
                RESERVATIONS,
                id,
                Row::new().with("item", ITEM).with("qty", 1),
            );
        }
        txn.finish()
    });
    for attempt in attempts {
        let _aborted_or_not = db.commit(&mut sim, attempt);
    }
    (db.rows(RESERVATIONS).into_iter())
        .map(|(id, _)| id)
        .collect()
}
