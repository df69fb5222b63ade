//! The report: two numbers that must describe one instant, read while reservations
//! commit on another connection.

use super::sql::{Result, available, code, reserve_whole, reserved};
use crate::world::Database;
use rusqlite::Connection;

/// What the report schedules measured.
#[derive(Default)]
pub struct Reports {
    pub separate_reads_total: i64,
    /// The open transaction's two reads: the reserved units, the availability.
    pub snapshot_reads: (i64, i64),
    pub open_snapshot_sees_b2: bool,
    pub fresh_read_sees_b2: bool,
    /// The open transaction inserts an audit row right after its first read: that
    /// INSERT, then B2's reservation.
    pub early_audit: (Option<i32>, Option<i32>),
    /// The open transaction inserts an audit row right after its second read: that
    /// INSERT, and B2's reservation (which came before it).
    pub late_audit: (Option<i32>, Option<i32>),
}

impl Reports {
    pub fn snapshot_total(&self) -> i64 {
        self.snapshot_reads.0 + self.snapshot_reads.1
    }
}

pub fn reports() -> Result<Reports> {
    let mut r = Reports::default();
    report(&mut r)?;
    early_audit(&mut r)?;
    late_audit(&mut r)?;
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
    let separate_reserved = reserved(&report)?;
    reserve_whole(&b, "B1")?;
    r.separate_reads_total = separate_reserved + available(&report)?;

    report.execute_batch("BEGIN")?;
    let snapshot_reserved = reserved(&report)?;
    reserve_whole(&b, "B2")?;
    r.snapshot_reads = (snapshot_reserved, available(&report)?);
    r.open_snapshot_sees_b2 = count_b2(&report)? == 1;
    report.execute_batch("COMMIT")?;
    r.fresh_read_sees_b2 = count_b2(&report)? == 1;
    Ok(())
}
// ANCHOR_END: report

/// Where both audit variations start: `report` read once outside a transaction, B1 then
/// reserved, and `report` read again; then `report` opens its transaction and reads
/// `reserved` (returned) for the audit.
fn audit_start() -> Result<(Database, Connection, Connection, i64)> {
    let db = Database::create(10);
    let (report, b) = (db.connect(), db.connect());
    report.execute_batch("CREATE TABLE audits (reserved INTEGER NOT NULL)")?;
    reserved(&report)?;
    reserve_whole(&b, "B1")?;
    available(&report)?;
    report.execute_batch("BEGIN")?;
    let snapshot_reserved = reserved(&report)?;
    Ok((db, report, b, snapshot_reserved))
}

/// B2 tries to reserve; refused, it gives up what it began.
fn b2_tries(b: &Connection) -> Result<Result<()>> {
    let b2 = reserve_whole(b, "B2");
    if !b.is_autocommit() {
        b.execute_batch("ROLLBACK")?; // B2 gives up
    }
    Ok(b2)
}

/// `report`, its open transaction inserting its first read into an audit table right
/// after it.
fn early_audit(r: &mut Reports) -> Result<()> {
    let (_db, report, b, snapshot_reserved) = audit_start()?;
    let audit = report.execute("INSERT INTO audits VALUES (?1)", [snapshot_reserved]);
    let b2 = b2_tries(&b)?;
    r.early_audit = (code(&audit), code(&b2));
    available(&report)?;
    report.execute_batch("COMMIT")
}

/// `report`, its open transaction inserting its first read into an audit table right
/// after its second read.
fn late_audit(r: &mut Reports) -> Result<()> {
    let (_db, report, b, snapshot_reserved) = audit_start()?;
    let b2 = b2_tries(&b)?;
    available(&report)?;
    let audit = report.execute("INSERT INTO audits VALUES (?1)", [snapshot_reserved]);
    r.late_audit = (code(&audit), code(&b2));
    if report.is_autocommit() {
        return Ok(());
    }
    report.execute_batch(if audit.is_ok() { "COMMIT" } else { "ROLLBACK" })
}
