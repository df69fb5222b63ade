//! The invariants the graded scenarios check, each with the "Let … Then …
//! Contradiction" explanation a failing schedule prints.

use crate::scenarios::{REPORT_STOCK, REQUESTS, STOCK};
use crate::world::{ITEM, Reservation, Totals};
use labkit::fault::{Verdict, Violation};
use rusqlite::Connection;

pub fn check_reservations(conn: &Connection, answers: &[Option<Reservation>]) -> Verdict {
    let available: i64 = conn
        .query_row(
            "SELECT available FROM inventory WHERE item = ?1",
            [ITEM],
            |r| r.get(0),
        )
        .map_err(sql_violation)?;
    let reserved: i64 = conn
        .query_row("SELECT COALESCE(SUM(qty), 0) FROM reservations", [], |r| {
            r.get(0)
        })
        .map_err(sql_violation)?;
    let confirmed: Vec<&str> = REQUESTS
        .iter()
        .zip(answers)
        .filter(|(_, a)| **a == Some(Reservation::Confirmed))
        .map(|(name, _)| *name)
        .collect();
    if reserved > STOCK {
        return Err(Violation::new(
            "never more reservations than units",
            &[
                format!("Let {STOCK} units be on sale and {} requests each reserve one.", REQUESTS.len()),
                format!("Then {reserved} units are reserved ({} confirmed).", confirmed.join(", ")),
                "Contradiction: each request checked availability before a write it did not make atomic with the check.".into(),
            ],
        ));
    }
    if reserved + available != STOCK {
        return Err(Violation::new(
            "reserved + available = stock",
            &[
                format!("Let the stock be {STOCK}."),
                format!("Then {reserved} are reserved and {available} still show as available."),
                "Contradiction: an update of the availability was computed from a value another request had already changed.".into(),
            ],
        ));
    }
    for (name, answer) in REQUESTS.iter().zip(answers) {
        let rows: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM reservations WHERE id = ?1",
                [name],
                |r| r.get(0),
            )
            .map_err(sql_violation)?;
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
pub fn check_report(totals: Totals, ended: bool, blocked: Option<String>) -> Verdict {
    let Totals {
        reserved,
        available,
    } = totals;
    if !ended {
        return Err(Violation::new(
            "the report ends its read transaction",
            &["Let the report return its totals. Then its transaction was still open, pinning an old snapshot.".into()],
        ));
    }
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
