//! The Spanner half: reads at a timestamp on the simulated database of chapter 2.

use crate::world::ITEM;
use labkit::fault::Sim;
use sim_spanner::{Code, Row, SpannerError, TimestampBound, run_transaction};

/// What one Spanner read answered: did it show B2, or which error did it get?
pub type Read = std::result::Result<bool, Code>;

/// What the Spanner reads measured.
pub struct StaleReads {
    pub b2_committed_at: u64,
    pub strong_right_after: Read,
    pub stale_right_after: Read,
    pub snapshot_opened_before: Read,
    pub stale_20s_later: Read,
    pub hour_old: Read,
    pub future: Read,
    /// Seconds on the clock the future read took.
    pub future_waited: u64,
}

const RESERVATIONS: &str = "reservations";

// ANCHOR: spanner_reads
pub fn spanner_reads() -> StaleReads {
    let mut sim = Sim::fault_free();
    let mut db = sim_spanner::Database::new();
    sim.advance(600); // ten minutes on the clock, so that "15 s ago" is a real instant
    let shows = |db: &sim_spanner::Database, sim: &mut Sim, bound, id| -> Read {
        db.single_read(sim, bound, RESERVATIONS, id)
            .map(|row| row.is_some())
            .map_err(|e| e.code)
    };
    let stale = TimestampBound::ExactStaleness(15);

    // 1. A read-only transaction opens; B2's reservation commits; reads right after it.
    let snapshot = db
        .read_only_transaction(&mut sim, TimestampBound::Strong)
        .expect("a strong read-only transaction");
    let b2_committed_at = run_transaction(&mut db, &mut sim, |txn, _sim| {
        txn.insert(
            RESERVATIONS,
            "B2",
            Row::new().with("item", ITEM).with("qty", 1),
        );
        Ok::<(), SpannerError>(())
    })
    .expect("a fault-free commit")
    .commit_timestamp;
    let strong_right_after = shows(&db, &mut sim, TimestampBound::Strong, "B2");
    let stale_right_after = shows(&db, &mut sim, stale, "B2");
    let snapshot_opened_before = snapshot
        .read(&db, &mut sim, RESERVATIONS, "B2")
        .map(|row| row.is_some())
        .map_err(|e| e.code);

    let later = later_reads(&db, &mut sim, b2_committed_at);
    StaleReads {
        b2_committed_at,
        strong_right_after,
        stale_right_after,
        snapshot_opened_before,
        stale_20s_later: later.0,
        hour_old: later.1,
        future: later.2,
        future_waited: later.3,
    }
}
// ANCHOR_END: spanner_reads

/// 2. Twenty seconds later, the same stale read; 3. sixty-one minutes after the commit, a
/// read at B2's commit timestamp; 4. a read at a timestamp ten seconds in the future.
fn later_reads(
    db: &sim_spanner::Database,
    sim: &mut Sim,
    b2_committed_at: u64,
) -> (Read, Read, Read, u64) {
    let stale = TimestampBound::ExactStaleness(15);
    let shows = |db: &sim_spanner::Database, sim: &mut Sim, bound, id| -> Read {
        db.single_read(sim, bound, RESERVATIONS, id)
            .map(|row| row.is_some())
            .map_err(|e| e.code)
    };
    // 2. Twenty seconds later, the same stale read.
    sim.advance(20);
    let stale_20s_later = shows(db, sim, stale, "B2");

    // 3. Sixty-one minutes after the commit, a read at B2's commit timestamp.
    sim.advance(61 * 60 - 20);
    let hour_old = shows(
        db,
        sim,
        TimestampBound::ReadTimestamp(b2_committed_at),
        "B2",
    );

    // 4. A read at a timestamp ten seconds in the future.
    let before = sim.now();
    let future = shows(db, sim, TimestampBound::ReadTimestamp(before + 10), "B2");
    (stale_20s_later, hour_old, future, sim.now() - before)
}

pub fn shown(read: &Read) -> &'static str {
    match read {
        Ok(true) => "shows B2",
        Ok(false) => "does not show B2",
        Err(code) => code.name(),
    }
}
