//! The Spanner half: reads at a timestamp on the simulated database of chapter 2, whose
//! clock is the fault core's logical clock (one tick a second).

use crate::world::ITEM;
use labkit::fault::Sim;
use sim_spanner::{Code, Database, Row, SpannerError, TimestampBound, run_transaction};

/// What one Spanner read answered: did it show the reservation, or which error?
pub type Read = std::result::Result<bool, Code>;

/// What the Spanner reads measured.
pub struct Spanner {
    pub b2_committed_at: u64,
    pub strong_right_after: Read,
    pub stale_right_after: Read,
    pub snapshot_opened_before: Read,
    pub stale_20s_later: Read,
    pub hour_old: Read,
    pub future: Read,
    /// Seconds on the clock the future read took.
    pub future_waited: u64,
    /// A read-only transaction with 15 s of exact staleness, opened 5 s after the commit.
    pub stale_snapshot_after: Read,
    /// A read with a 15 s staleness bound right after the commit, on each replica the
    /// database may choose (up to date, behind).
    pub bounded: [Read; 2],
    /// A strong read-only transaction reads B3 before and after B3 commits.
    pub snapshot_before_and_after: (Read, Read),
    /// 61 minutes after B2's commit, a read-only transaction with 30 minutes of exact
    /// staleness reads it.
    pub half_hour_stale_an_hour_later: Read,
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
/// ask for it right away, 20 seconds later and 61 minutes later; then a read at a
/// timestamp 10 seconds ahead.
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
    let stale_20s_later = shows(&db, &mut sim, stale, "B2");
    sim.advance(61 * 60 - 20);
    let hour_old = TimestampBound::ReadTimestamp(b2_committed_at);
    let hour_old = shows(&db, &mut sim, hour_old, "B2");
    let before = sim.now();
    let ahead = TimestampBound::ReadTimestamp(before + 10);
    let future = shows(&db, &mut sim, ahead, "B2");
    // ANCHOR_END: spanner_reads
    Spanner {
        b2_committed_at,
        strong_right_after,
        stale_right_after,
        snapshot_opened_before: in_snapshot.map(|row| row.is_some()).map_err(|e| e.code),
        stale_20s_later,
        hour_old,
        future,
        future_waited: sim.now() - before,
        stale_snapshot_after: stale_snapshot_after(),
        bounded: [bounded_read(0), bounded_read(1)],
        snapshot_before_and_after: snapshot_before_and_after(),
        half_hour_stale_an_hour_later: half_hour_stale_an_hour_later(),
    }
}

/// B2 commits; 5 seconds later a read-only transaction with 15 s of exact staleness
/// opens and reads it.
fn stale_snapshot_after() -> Read {
    let mut sim = Sim::fault_free();
    let mut db = Database::new();
    sim.advance(600);
    reserve(&mut db, &mut sim, "B2");
    sim.advance(5);
    let bound = TimestampBound::ExactStaleness(15);
    let snapshot = db
        .read_only_transaction(&mut sim, bound)
        .map_err(|e| e.code)?;
    let row = snapshot.read(&db, &mut sim, RESERVATIONS, "B2");
    row.map(|row| row.is_some()).map_err(|e| e.code)
}

/// B2 commits; right after, a single read with a staleness bound of 15 s. `replica` is
/// the fault core's choice of the replica that serves it (0 up to date, 1 behind).
fn bounded_read(replica: usize) -> Read {
    let mut sim = Sim::replaying(&[0, replica]);
    let mut db = Database::new();
    sim.advance(600);
    reserve(&mut db, &mut sim, "B2");
    shows(&db, &mut sim, TimestampBound::MaxStaleness(15), "B2")
}

/// A strong read-only transaction reads B3 (absent), B3 commits, the same transaction
/// reads B3 again.
fn snapshot_before_and_after() -> (Read, Read) {
    let mut sim = Sim::fault_free();
    let mut db = Database::new();
    sim.advance(600);
    let snapshot = db.read_only_transaction(&mut sim, TimestampBound::Strong);
    let snapshot = snapshot.expect("a strong read-only transaction");
    let read = |db: &Database, sim: &mut Sim| -> Read {
        let row = snapshot.read(db, sim, RESERVATIONS, "B3");
        row.map(|row| row.is_some()).map_err(|e| e.code)
    };
    let before = read(&db, &mut sim);
    reserve(&mut db, &mut sim, "B3");
    (before, read(&db, &mut sim))
}

/// B2 commits; 61 minutes later a read-only transaction with 30 minutes of exact
/// staleness opens and reads B2.
fn half_hour_stale_an_hour_later() -> Read {
    let mut sim = Sim::fault_free();
    let mut db = Database::new();
    sim.advance(600);
    reserve(&mut db, &mut sim, "B2");
    sim.advance(61 * 60);
    let bound = TimestampBound::ExactStaleness(30 * 60);
    let snapshot = db
        .read_only_transaction(&mut sim, bound)
        .map_err(|e| e.code)?;
    let row = snapshot.read(&db, &mut sim, RESERVATIONS, "B2");
    row.map(|row| row.is_some()).map_err(|e| e.code)
}

pub fn shown(read: &Read) -> &'static str {
    match read {
        Ok(true) => "shows the reservation",
        Ok(false) => "does not show it",
        Err(code) => code.name(),
    }
}
