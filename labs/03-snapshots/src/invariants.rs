//! The invariants the graded scenarios check, each with the "Let … Then …
//! Contradiction" explanation a failing schedule prints.

use crate::scenarios::{REPORT_STOCK, REQUESTS, STOCK};
use crate::world::{ITEM, Reservation, Totals};
use labkit::fault::{Verdict, Violation};
use rusqlite::Connection;

fn one_number(conn: &Connection, sql: &str, param: &str) -> Result<i64, Violation> {
    conn.query_row(sql, [param], |r| r.get(0))
        .map_err(sql_violation)
}

/// The reservation scenario's invariants, on the database its requests left and the
/// answers they gave.
pub fn check_reservations(
    conn: &Connection,
    answers: &[Option<Reservation>],
    crashed: Option<String>,
) -> Verdict {
    let available = one_number(
        conn,
        "SELECT available FROM inventory WHERE item = ?1",
        ITEM,
    )?;
    let reserved = one_number(
        conn,
        "SELECT COALESCE(SUM(qty), 0) FROM reservations WHERE item = ?1",
        ITEM,
    )?;
    let answered = |wanted: Reservation| -> Vec<&str> {
        REQUESTS
            .iter()
            .zip(answers)
            .filter(|(_, a)| **a == Some(wanted))
            .map(|(name, _)| *name)
            .collect()
    };
    let confirmed = answered(Reservation::Confirmed);
    if reserved + available != STOCK {
        return Err(stock_broken(crashed.as_deref(), reserved, available));
    }
    if reserved > STOCK {
        return Err(Violation::new(
            "never more reservations than units",
            &[
                format!("Let {STOCK} units be on sale and {} requests each reserve one.", REQUESTS.len()),
                format!("Then {reserved} units are reserved ({} confirmed).", confirmed.join(", ")),
                "Contradiction: a request decided on an availability that another request changed before this one wrote: the check and the writes were not one transaction.".into(),
            ],
        ));
    }
    answers_match_rows(conn, answers)?;
    let sold_out = answered(Reservation::SoldOut);
    if !sold_out.is_empty() && available > 0 {
        return Err(Violation::new(
            "a request is told sold out only when no unit is left",
            &[
                format!("Let {STOCK} units be on sale and {} requests each reserve one.", REQUESTS.len()),
                format!("Then {} answered SoldOut, and {available} unit(s) are still on sale.", sold_out.join(" and ")),
                "Contradiction: a busy database says \"not now\", not \"none left\"; only a transaction that read the availability and found too few units may answer SoldOut.".into(),
            ],
        ));
    }
    Ok(())
}

/// The stock no longer adds up: after a crash (`crash` says which), or after a lost
/// update.
fn stock_broken(crash: Option<&str>, reserved: i64, available: i64) -> Violation {
    let (given, why) = match crash {
        Some(crash) => (
            format!("Let the stock be {STOCK}, and {crash}."),
            "Contradiction: what the process had committed before the crash stayed and the rest never ran. Each autocommit statement is a transaction of its own; the writes of one reservation belong in one transaction, which SQLite rolls back whole when its connection closes before COMMIT.",
        ),
        None => (
            format!("Let the stock be {STOCK}."),
            "Contradiction: an update of the availability was computed from a value another request had already changed.",
        ),
    };
    Violation::new(
        "reserved + available = stock",
        &[
            given,
            format!("Then {reserved} are reserved and {available} still show as available."),
            why.into(),
        ],
    )
}

fn answers_match_rows(conn: &Connection, answers: &[Option<Reservation>]) -> Verdict {
    for (name, answer) in REQUESTS.iter().zip(answers) {
        let sql = "SELECT COUNT(*) FROM reservations WHERE id = ?1";
        let rows = one_number(conn, sql, name)?;
        let expected = i64::from(*answer == Some(Reservation::Confirmed));
        if rows != expected {
            return Err(Violation::new(
                "a request's answer matches its row",
                &[format!(
                    "Let {name} answer {answer:?}. Then it has {rows} reservation rows, not {expected}."
                )],
            ));
        }
    }
    Ok(())
}

pub fn sql_violation(e: rusqlite::Error) -> Violation {
    Violation::new("no unexpected SQL error", &[e.to_string()])
}

/// The report's invariants: it ended its read transaction (`ended`), no reservation
/// that arrived meanwhile failed on its lock (`blocked` names the error), and its totals
/// agree.
/// The report of a database whose rows and availability disagree: it ended its read
/// transaction, and shows what the tables hold, `(reserved, available)`.
pub fn check_findings(totals: Totals, ended: bool, held: (i64, i64)) -> Verdict {
    check_report_ended(ended)?;
    let (reserved, available) = held;
    if (totals.reserved, totals.available) == held {
        return Ok(());
    }
    Err(Violation::new(
        "the report shows what the database holds",
        &[
            format!("Let the stock be {REPORT_STOCK}, with reservation rows for {reserved} units and {available} units available: a crash between two autocommit statements lost one."),
            format!("Then the report shows {} reserved and {} available.", totals.reserved, totals.available),
            "Contradiction: a reconciliation exists to find such a discrepancy. Each total must be read from the table that holds it, both at one instant; a total worked out from the other agrees with the stock whatever the tables hold, and can never reveal one.".into(),
        ],
    ))
}

fn check_report_ended(ended: bool) -> Verdict {
    match ended {
        true => Ok(()),
        false => Err(Violation::new(
            "the report ends its read transaction",
            &["Let the report return its totals. Then its transaction was still open, pinning an old snapshot.".into()],
        )),
    }
}

pub fn check_report(totals: Totals, ended: bool, blocked: Option<String>) -> Verdict {
    let Totals {
        reserved,
        available,
    } = totals;
    check_report_ended(ended)?;
    if let Some(error) = blocked {
        return Err(Violation::new(
            "the report never blocks a reservation",
            &[
                format!("Let a reservation arrive while the report runs. Then its BEGIN IMMEDIATE failed with {error}."),
                "Contradiction: a read-only report took the write lock; in WAL mode a read transaction needs none.".into(),
            ],
        ));
    }
    if reserved + available != REPORT_STOCK {
        return Err(Violation::new(
            "the report's totals agree",
            &[
                format!("Let the stock be {REPORT_STOCK}."),
                format!("Then the report shows {reserved} reserved and {available} available."),
                "Contradiction: its queries read two different instants; a reservation committed between them.".into(),
            ],
        ));
    }
    Ok(())
}
