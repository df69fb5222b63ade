//! Two decisions a writer makes on the evidence: ALREADY_EXISTS for a batch it never
//! sent, and proceed, hold or reconcile after a lost response.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use sim_writeapi::Code;

/// The journal says B was only PREPARED (never sent), yet offset 3 is occupied, by
/// another client's rows.
pub fn already_exists_without_proof(obs: &mut Observation) {
    let mut drill = Client::new();
    let s = drill.create();
    drill
        .append(&s, Some(0), batch("A", 1000, 1003))
        .expect("A");
    (drill.append(&s, Some(3), batch("X", 7000, 7002))).expect("someone else's rows");
    let b_answer = drill.append(&s, Some(3), batch("B", 1003, 1005));
    let copies_of_b = drill.copies_of("P7:1003");
    obs.choose("The journal says B (s1@3) was PREPARED and never sent, yet its append answers ALREADY_EXISTS. What would advancing the checkpoint to 1005 do?",
        match copies_of_b {
            0 => "c",
            1 => "a",
            _ => "b",
        },
        format!(
            "B's append answered {}; copies of B's first row in the table: {copies_of_b}",
            code(&b_answer)
        ),
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
        "a" if already => {
            let _ = world.append(&s, Some(3), batch("B", 1003, 1005));
        }
        // Hold: nothing more happens until a human looks.
        "b" => {}
        // "Reconcile" by replaying on a new stream: A and B on s2.
        "c" => {
            let s2 = world.create();
            let _ = world.append(&s2, Some(0), batch("A", 1000, 1005));
        }
        _ => {}
    }
    (world.positions().len(), world.most_copies())
}

/// The proceed / hold / reconcile decision after a lost response: each one tried.
pub fn proceed_hold_or_reconcile(obs: &mut Observation) {
    let outcomes: Vec<(&str, (usize, usize))> =
        ["a", "b", "c"].iter().map(|c| (*c, decide(c))).collect();
    let best = (outcomes.iter())
        .find(|(_, (rows, copies))| *rows == 5 && *copies == 1)
        .map_or("none", |(c, _)| *c);
    obs.choose("After a crash, the journal shows A SENT at s1@0 with fingerprint H(A); the source still reproduces H(A); the retry answers ALREADY_EXISTS. Which decision leaves every record exactly once?",
        best,
        format!("(rows in table, most copies of one record) per decision: {outcomes:?}"),
    );
}
