//! The Spanner half: reads at a timestamp on the simulated database of chapter 2, whose
//! clock is the fault core's logical clock (one tick a second).

use crate::world::ITEM;
use labkit::fault::Sim;
use sim_spanner::{
    Code, Database, ReadOnlyTransaction, Row, SpannerError, TimestampBound, run_transaction,
};

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
    /// The read-only `snapshot` of the listing, read once more after its last read.
    pub snapshot_at_the_end: Read,
    /// The listing's stale read after 10 seconds instead of 20.
    pub stale_10s_later: Read,
    /// 20 seconds after the commit, a read with a 15 s staleness bound on the replica
    /// furthest behind.
    pub bounded_20s_later_behind: Read,
    /// Right after the commit, a read no older than B2's commit timestamp on the
    /// replica furthest behind.
    pub min_read_timestamp_behind: Read,
    /// A read-only transaction with 15 s of exact staleness opened right after the
    /// commit: its reads then and 20 seconds later.
    pub stale_snapshot_twice: (Read, Read),
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
    let at_the_end = snapshot.read(&db, &mut sim, RESERVATIONS, "B2");
    Spanner {
        b2_committed_at,
        strong_right_after,
        stale_right_after,
        snapshot_opened_before: in_snapshot.map(|row| row.is_some()).map_err(|e| e.code),
        stale_20s_later,
        hour_old,
        future,
        future_waited: sim.now() - before,
        snapshot_at_the_end: at_the_end.map(|row| row.is_some()).map_err(|e| e.code),
        stale_10s_later: stale_later(10),
        bounded_20s_later_behind: behind(20, |_| TimestampBound::MaxStaleness(15)),
        min_read_timestamp_behind: behind(0, TimestampBound::MinReadTimestamp),
        stale_snapshot_twice: stale_snapshot_twice(),
        half_hour_stale_an_hour_later: half_hour_stale_an_hour_later(),
    }
}

fn read_in(snapshot: &ReadOnlyTransaction, db: &Database, sim: &mut Sim) -> Read {
    let row = snapshot.read(db, sim, RESERVATIONS, "B2");
    row.map(|row| row.is_some()).map_err(|e| e.code)
}

/// The listing's clock and commit, then the 15 s stale read `seconds` later.
fn stale_later(seconds: u64) -> Read {
    let mut sim = Sim::fault_free();
    let mut db = Database::new();
    sim.advance(600);
    reserve(&mut db, &mut sim, "B2");
    sim.advance(seconds);
    shows(&db, &mut sim, TimestampBound::ExactStaleness(15), "B2")
}

/// B2 commits; `seconds` later a bounded-staleness read (`bound` of B2's commit
/// timestamp) that the fault core serves from the replica furthest behind (option 1).
fn behind(seconds: u64, bound: impl Fn(u64) -> TimestampBound) -> Read {
    let mut sim = Sim::replaying(&[0, 1]);
    let mut db = Database::new();
    sim.advance(600);
    let committed_at = reserve(&mut db, &mut sim, "B2");
    sim.advance(seconds);
    shows(&db, &mut sim, bound(committed_at), "B2")
}

/// B2 commits; right after, a read-only transaction with 15 s of exact staleness opens
/// and reads B2, then reads it again 20 seconds later.
fn stale_snapshot_twice() -> (Read, Read) {
    let mut sim = Sim::fault_free();
    let mut db = Database::new();
    sim.advance(600);
    reserve(&mut db, &mut sim, "B2");
    let bound = TimestampBound::ExactStaleness(15);
    let snapshot = db.read_only_transaction(&mut sim, bound);
    let snapshot = snapshot.expect("an exact-staleness read-only transaction");
    let first = read_in(&snapshot, &db, &mut sim);
    sim.advance(20);
    (first, read_in(&snapshot, &db, &mut sim))
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
    read_in(&snapshot, &db, &mut sim)
}

pub fn shown(read: &Read) -> &'static str {
    match read {
        Ok(true) => "shows the reservation",
        Ok(false) => "does not show it",
        Err(code) => code.name(),
    }
}
