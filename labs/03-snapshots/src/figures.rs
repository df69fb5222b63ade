//! The figures of chapter 3, drawn as sequence diagrams.

use labkit::figure::Sequence;

fn oversell() -> Sequence {
    Sequence::new(
        "A separate check, then the writes: one unit, two reservations",
        &["request A", "reservations.db", "request B"],
    )
    .call("request A", "reservations.db", "SELECT available")
    .reply("reservations.db", "request A", "1")
    .call("request B", "reservations.db", "SELECT available")
    .reply("reservations.db", "request B", "1")
    .call(
        "request B",
        "reservations.db",
        "BEGIN; INSERT B; UPDATE available = 0; COMMIT",
    )
    .call(
        "request A",
        "reservations.db",
        "BEGIN; INSERT A; UPDATE available = 0; COMMIT",
    )
    .note("reservations.db", "2 reservations, available 0: oversold")
}

fn busy_snapshot() -> Sequence {
    Sequence::new(
        "A deferred transaction that reads, then writes (WAL mode)",
        &["request A", "reservations.db", "request B"],
    )
    .call(
        "request A",
        "reservations.db",
        "BEGIN DEFERRED; SELECT available",
    )
    .reply("reservations.db", "request A", "1 (snapshot taken)")
    .call(
        "request B",
        "reservations.db",
        "BEGIN IMMEDIATE; INSERT B; UPDATE; COMMIT",
    )
    .call("request A", "reservations.db", "INSERT A")
    .reply("reservations.db", "request A", "SQLITE_BUSY_SNAPSHOT (517)")
    .note(
        "reservations.db",
        "A's snapshot is stale: A rolls back, runs it all again",
    )
    .call(
        "request A",
        "reservations.db",
        "BEGIN IMMEDIATE; SELECT available",
    )
    .reply("reservations.db", "request A", "0: sold out")
    .call("request A", "reservations.db", "ROLLBACK")
}

fn report() -> Sequence {
    Sequence::new(
        "A reconciliation report: two reads, or one snapshot",
        &["report", "reservations.db", "request B"],
    )
    .divider("two separate reads")
    .call("report", "reservations.db", "SELECT SUM(qty)")
    .reply("reservations.db", "report", "0")
    .call("request B", "reservations.db", "reserve 1 unit; COMMIT")
    .call("report", "reservations.db", "SELECT available")
    .reply("reservations.db", "report", "9: totals 9 of 10")
    .divider("one read transaction")
    .call("report", "reservations.db", "BEGIN; SELECT SUM(qty)")
    .reply("reservations.db", "report", "1 (snapshot taken)")
    .call("request B", "reservations.db", "reserve 1 unit; COMMIT")
    .call("report", "reservations.db", "SELECT available; COMMIT")
    .reply("reservations.db", "report", "9: totals 10 of 10")
}

/// The figures of chapter 3.
pub fn figures() -> Vec<(&'static str, String)> {
    vec![
        ("03-oversell.svg", oversell().to_svg()),
        ("03-busy-snapshot.svg", busy_snapshot().to_svg()),
        ("03-snapshot-report.svg", report().to_svg()),
    ]
}
