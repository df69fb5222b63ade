//! What the graded suite demands of a key design, and how each violation explains
//! itself: Let (the design and the workload) … Then (what was measured) …
//! Contradiction (the rule it broke).

use crate::scenarios::{LIVE, Measurement, SPLITS};
use crate::world::{Key, Order, Part};
use labkit::fault::{Verdict, Violation, output_width, wrap_indented};
use sim_ranges::{Status, Table};

fn let_line(shards: u32) -> String {
    format!(
        "Let the key design use N = {shards} shards, over {LIVE} live inserts and {SPLITS} splits."
    )
}

/// The busiest split takes at most 1.5/N of the live inserts.
pub fn busiest_split(m: &Measurement, shards: u32) -> Verdict {
    let limit = 1.5 / shards as f64;
    if m.busiest_share <= limit {
        return Ok(());
    }
    Err(Violation::new(
        "the busiest split takes at most 1.5/N of the inserts",
        &[
            let_line(shards),
            format!(
                "Then the busiest split took {:.3} of them (at most {limit:.3} allowed): writes per split {:?}.",
                m.busiest_share, m.writes_per_split
            ),
            "Contradiction: one split is served by one server, so its share is that server's share of the work. The new keys must not all sort into a few places.".into(),
        ],
    ))
}

/// The time-range query reads at most N splits.
pub fn fan_out(m: &Measurement, shards: u32) -> Verdict {
    if m.query_splits.len() <= shards as usize {
        return Ok(());
    }
    Err(Violation::new(
        "the query reads at most N splits",
        &[
            let_line(shards),
            format!(
                "Then the query for one time window read {} of the {SPLITS} splits: {:?}.",
                m.query_splits.len(),
                m.query_splits
            ),
            "Contradiction: every split a read touches costs a round trip. One window must be one contiguous range per shard, and there may be at most N shards.".into(),
        ],
    ))
}

/// The query reads at most twice the rows it returns.
pub fn rows_read(m: &Measurement) -> Verdict {
    let returned = m.query_result.len().max(1);
    if m.rows_read <= 2 * returned {
        return Ok(());
    }
    Err(Violation::new(
        "the query reads at most twice the rows it returns",
        &[
            "Let the query ask for the orders created in the middle half of the live period.".into(),
            format!(
                "Then its ranges held {} rows, and {} of them were in the window.",
                m.rows_read,
                m.query_result.len()
            ),
            "Contradiction: a query that filters most of what it reads scans the table. The ranges must follow the key's time order.".into(),
        ],
    ))
}

/// The query returns exactly the orders created in the window.
pub fn exact_result(m: &Measurement) -> Verdict {
    if m.query_result == m.expected_result {
        return Ok(());
    }
    let missing: Vec<&String> = m
        .expected_result
        .iter()
        .filter(|id| !m.query_result.contains(id))
        .collect();
    let sample: Vec<&str> = missing.iter().take(3).map(|id| id.as_str()).collect();
    Err(Violation::new(
        "the query returns exactly the orders in the window",
        &[
            format!(
                "Let {} orders be created in the query's window.",
                m.expected_result.len()
            ),
            format!(
                "Then the query returned {}; {} are missing (the first: {}).",
                m.query_result.len(),
                missing.len(),
                sample.join(", ")
            ),
            "Contradiction: the ranges must cover every key the design gives an order created in the window, from its first millisecond (an order created at the start belongs to it) up to its end, which does not.".into(),
        ],
    ))
}

/// Every design invariant a measurement must meet, in order.
pub fn design(m: &Measurement, shards: u32) -> Verdict {
    busiest_split(m, shards)?;
    fan_out(m, shards)?;
    rows_read(m)?;
    exact_result(m)
}

/// Every order of the workload got a row of its own.
pub fn every_order_stored(m: &Measurement) -> Verdict {
    let Some((refused, holder)) = m.collisions.first() else {
        return Ok(());
    };
    Err(Violation::new(
        "every order gets a row of its own",
        &[
            format!("Let orders {refused} and {holder} be two different orders."),
            format!(
                "Then the insert of {refused} failed with ALREADY_EXISTS, because {holder} holds the same key ({} orders refused in all).",
                m.collisions.len()
            ),
            "Contradiction: two business keys, one physical key. Orders can share a millisecond and a shard; only the business key tells them apart.".into(),
        ],
    ))
}

/// After every retry, the table holds exactly one row per order.
pub fn one_row_per_business_key(table: &Table, orders: &[Order]) -> Verdict {
    for order in orders {
        let id = Part::from(order.order_id.as_str());
        let rows: Vec<&Key> = table
            .data()
            .rows()
            .filter(|(_, row)| row.get("order_id") == Some(&id))
            .map(|(key, _)| key)
            .collect();
        if rows.len() != 1 {
            let keys: Vec<String> = rows.iter().map(|k| k.to_string()).collect();
            let (n, keys) = (rows.len(), keys.join(", "));
            return Err(Violation::new(
                "one row per business key",
                &[
                    format!("Let order {} be written once and retried once.", order.order_id),
                    format!("Then the table holds {n} rows for it: {keys}."),
                    "Contradiction: the retry computed another physical key, so the store could not recognise it.".into(),
                ],
            ));
        }
    }
    Ok(())
}

/// What an insert did, for a timeline's truth column.
pub fn describe(result: &Result<(), Status>) -> String {
    match result {
        Ok(()) => "row inserted".into(),
        Err(status) => status.to_string(),
    }
}

/// The report of a violated measurement, `width` columns wide, in the form of a
/// schedule's failure: the invariant, what was measured, the explanation.
pub fn report(violation: &Violation, shards: u32, m: &Measurement, width: usize) -> String {
    let header = format!(
        "invariant violated: {} (lab 04, N = {shards})",
        violation.invariant
    );
    let mut out = wrap_indented(&header, width, "", "  ");
    out.push('\n');
    let measured = [
        format!("live writes per split: {:?}", m.writes_per_split),
        format!(
            "query: splits {:?}, {} rows read, {} returned",
            m.query_splits,
            m.rows_read,
            m.query_result.len()
        ),
    ];
    for line in &measured {
        out.push_str(&wrap_indented(line, width, "  ", "    "));
    }
    out.push('\n');
    for line in &violation.explanation {
        out.push_str(&wrap_indented(line, width, "  ", "    "));
    }
    out
}

/// Panics with the report of a violated measurement, as wide as the terminal.
pub fn assert_holds(verdict: Verdict, shards: u32, m: &Measurement) {
    if let Err(violation) = verdict {
        panic!("\n{}", report(&violation, shards, m, output_width()));
    }
}
