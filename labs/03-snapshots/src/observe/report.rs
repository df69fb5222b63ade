//! The report: two numbers that must describe one instant, read while reservations
//! commit on another connection.

use super::sql::{Result, available, code, reserve_whole, reserved};
use crate::world::Database;

/// What the report schedules measured.
#[derive(Default)]
pub struct Reports {
    pub separate_reads_total: i64,
    /// The open transaction's two reads: the availability, the reserved units.
    pub snapshot_reads: (i64, i64),
    pub open_snapshot_sees_b2: bool,
    pub fresh_read_sees_b2: bool,
    /// The autocommit half with its reads swapped: reserved units first.
    pub swapped_reads_total: i64,
    /// The open transaction begun with `BEGIN IMMEDIATE`: B2's reservation.
    pub immediate_report_b2: Option<i32>,
    /// The open transaction inserts an audit row after its two reads.
    pub audit_insert: Option<i32>,
    /// B2 commits between the open transaction's `BEGIN` and its first read.
    pub b2_before_first_read_seen: bool,
}

impl Reports {
    pub fn snapshot_total(&self) -> i64 {
        self.snapshot_reads.0 + self.snapshot_reads.1
    }
}

pub fn reports() -> Result<Reports> {
    let mut r = Reports::default();
    report(&mut r)?;
    swapped_reads(&mut r)?;
    immediate_report(&mut r)?;
    audit_insert(&mut r)?;
    b2_before_first_read(&mut r)?;
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
    r.snapshot_reads = (snapshot_available, reserved(&report)?);
    r.open_snapshot_sees_b2 = count_b2(&report)? == 1;
    report.execute_batch("COMMIT")?;
    r.fresh_read_sees_b2 = count_b2(&report)? == 1;
    Ok(())
}
// ANCHOR_END: report

/// The autocommit half of `report`, the reserved units read first.
fn swapped_reads(r: &mut Reports) -> Result<()> {
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    let reserved_first = reserved(&report)?;
    reserve_whole(&b, "B1")?;
    r.swapped_reads_total = reserved_first + available(&report)?;
    Ok(())
}

/// The open transaction of `report` begun with `BEGIN IMMEDIATE`.
fn immediate_report(r: &mut Reports) -> Result<()> {
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    report.execute_batch("BEGIN IMMEDIATE")?;
    available(&report)?;
    r.immediate_report_b2 = code(&reserve_whole(&b, "B2"));
    reserved(&report)?;
    report.execute_batch("COMMIT")
}

/// The open transaction of `report` inserts its total into an audit table before
/// COMMIT.
fn audit_insert(r: &mut Reports) -> Result<()> {
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    report.execute_batch("CREATE TABLE audits (total INTEGER NOT NULL)")?;
    report.execute_batch("BEGIN")?;
    let total = available(&report)?;
    reserve_whole(&b, "B2")?;
    let total = total + reserved(&report)?;
    let insert = report.execute("INSERT INTO audits VALUES (?1)", [total]);
    r.audit_insert = code(&insert);
    report.execute_batch("ROLLBACK")
}

/// B2 commits between the open transaction's `BEGIN` and its first read.
fn b2_before_first_read(r: &mut Reports) -> Result<()> {
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    report.execute_batch("BEGIN")?;
    reserve_whole(&b, "B2")?;
    available(&report)?;
    reserved(&report)?;
    r.b2_before_first_read_seen = count_b2(&report)? == 1;
    report.execute_batch("COMMIT")
}
