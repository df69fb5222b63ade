//! Decisions a writer makes on the evidence, for the report's details: the opening's four
//! restart choices after a lost request, ALREADY_EXISTS for a batch it never sent, and
//! proceed, hold or reconcile after a lost response.

use super::{Client, batch, code};
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::Code;

/// A's first request to s1 was lost before it arrived. Each of the opening's restart
/// choices, then B: does every record of A and B end in the table once?
fn restart(choice: &str) -> bool {
    let mut client = Client::with_append_fates(&[Fate::NotApplied]);
    let s1 = client.create();
    let _ = client.append(&s1, Some(0), batch("A", 1000, 1003));
    let mut on = s1;
    match choice {
        "open a fresh stream" => {
            on = client.create();
            let _ = client.append(&on, Some(0), batch("A", 1000, 1003));
        }
        // The source is unchanged: the rebuilt batch has A's rows.
        "reuse offset 0" | "rebuild the batch" => {
            let _ = client.append(&on, Some(0), batch("A", 1000, 1003));
        }
        _ => {} // skip ahead to offset 3
    }
    let _ = client.append(&on, Some(3), batch("B", 1003, 1005));
    let positions = client.positions();
    positions.len() == 5 && client.most_copies() == 1
}

/// The opening's four restart choices after a lost request: the ones that did not leave
/// every record once.
pub fn four_restart_choices(summary: &mut Map<String, Value>) {
    let choices = [
        "open a fresh stream",
        "reuse offset 0",
        "skip ahead to offset 3",
        "rebuild the batch",
    ];
    let failing: Vec<&str> = choices.into_iter().filter(|c| !restart(c)).collect();
    summary.insert(
        "restart_choices_that_fail_after_a_lost_request".into(),
        failing.into(),
    );
}

/// The journal says B was only PREPARED (never sent), yet offset 3 is occupied, by
/// another client's rows: what B's append answers, and how many copies of B there are.
pub fn already_exists_without_proof(summary: &mut Map<String, Value>) {
    let mut drill = Client::new();
    let s = drill.create();
    drill
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A");
    (drill.append(&s, Some(3), batch("X", 7000, 7002))).expect("someone else's rows");
    let b_answer = drill.append(&s, Some(3), batch("B", 1003, 1005));
    summary.insert(
        "b_at_an_offset_someone_else_took".into(),
        format!(
            "{}; copies of B's first row: {}",
            code(&b_answer),
            drill.copies_of("P7:1003")
        )
        .into(),
    );
}

/// After A's lost response and a retry that answers ALREADY_EXISTS, the writer tries
/// each decision: (rows in the table, most copies of one record).
fn decide(choice: &str) -> (usize, usize) {
    let mut world = Client::with_append_fates(&[Fate::AppliedResponseLost]);
    let s = world.create();
    let _ = world.append(&s, Some(0), batch("A", 1000, 1003));
    let retry = world.append(&s, Some(0), batch("A", 1000, 1003));
    let already = retry.is_err_and(|e| e.status.code == Code::AlreadyExists);
    match choice {
        // Proceed: the journal proves A, so confirm it and write B at offset 3.
        "proceed" if already => {
            let _ = world.append(&s, Some(3), batch("B", 1003, 1005));
        }
        // "Reconcile" by replaying on a new stream: A and B on s2.
        "replay on s2" => {
            let s2 = world.create();
            let _ = world.append(&s2, Some(0), batch("A", 1000, 1005));
        }
        // Hold: nothing more happens until a human looks.
        _ => {}
    }
    (world.positions().len(), world.most_copies())
}

/// The proceed / hold / reconcile decision after a lost response: each one tried.
pub fn proceed_hold_or_reconcile(summary: &mut Map<String, Value>) {
    let outcomes: Vec<String> = (["proceed", "hold", "replay on s2"].iter())
        .map(|c| {
            let (rows, copies) = decide(c);
            format!("{c}: {rows} rows, at most {copies} copies of a record")
        })
        .collect();
    summary.insert("decisions_after_a_lost_response".into(), outcomes.into());
}
