//! The report: two numbers that must describe one instant, read while reservations
//! commit on another connection.

use super::sql::{Result, available, reserve_whole, reserved};
use crate::world::Database;

/// What the report schedules measured.
#[derive(Default)]
pub struct Reports {
    pub separate_reads_total: i64,
    pub snapshot_total: i64,
    pub open_snapshot_sees_b2: bool,
    pub fresh_read_sees_b2: bool,
    /// A read transaction's availability, then its reserved units after B3 and B4
    /// committed, then the availability in a new transaction.
    pub three_readings: (i64, i64, i64),
}

pub fn reports() -> Result<Reports> {
    let mut r = Reports::default();
    report(&mut r)?;
    three_readings(&mut r)?;
    Ok(r)
}

fn count_b2(conn: &rusqlite::Connection) -> Result<i64> {
    conn.query_row(
        "SELECT COUNT(*) FROM reservations WHERE id = 'B2'",
        [],
        |row| row.get(0),
    )
}

// ANCHOR: report
/// Ten units on sale. The report in two autocommit reads while B1 commits; in one
/// read transaction while B2 commits; then that open snapshot and a new read, asked
/// for B2.
fn report(r: &mut Reports) -> Result<()> {
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    let separate_available = available(&report)?;
    reserve_whole(&b, "B1")?;
    r.separate_reads_total = separate_available + reserved(&report)?;

    report.execute_batch("BEGIN")?;
    let snapshot_available = available(&report)?;
    reserve_whole(&b, "B2")?;
    r.snapshot_total = snapshot_available + reserved(&report)?;
    r.open_snapshot_sees_b2 = count_b2(&report)? == 1;
    report.execute_batch("COMMIT")?;
    r.fresh_read_sees_b2 = count_b2(&report)? == 1;
    Ok(())
}
// ANCHOR_END: report

/// Ten units. A read transaction reads the availability; B3 and B4 each reserve one
/// unit and commit; it reads the reserved units and commits; a new transaction reads
/// the availability.
fn three_readings(r: &mut Reports) -> Result<()> {
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    report.execute_batch("BEGIN")?;
    let first = available(&report)?;
    reserve_whole(&b, "B3")?;
    reserve_whole(&b, "B4")?;
    let second = reserved(&report)?;
    report.execute_batch("COMMIT")?;
    r.three_readings = (first, second, available(&report)?);
    Ok(())
}
