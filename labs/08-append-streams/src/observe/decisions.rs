//! Decisions a writer makes on the evidence: a resend after a crash before the request
//! left, the opening's four restart choices after a lost request, ALREADY_EXISTS for a
//! batch it never sent, and proceed, hold or reconcile after a lost response.

use super::{Client, batch, code};
use labkit::Observation;
use labkit::fault::Fate;
use sim_writeapi::Code;

/// A crash after SENT, before the request left: the next process sends A at offset 0.
pub fn a_crash_before_the_request_left(obs: &mut Observation) {
    let mut unsent = Client::new();
    let s = unsent.create();
    let resent = unsent.append(&s, Some(0), batch("A", 1000, 1003));
    obs.ask("The writer journals A as SENT at s1@0 and crashes before its request leaves; the next process sends A at offset 0 of s1. Is it appended?", resent.is_ok() && unsent.positions().len() == 3);
}

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

/// The opening's four restart choices after a lost request.
pub fn four_restart_choices(obs: &mut Observation) {
    let choices = [
        "open a fresh stream",
        "reuse offset 0",
        "skip ahead to offset 3",
        "rebuild the batch",
    ];
    let failing: Vec<&str> = choices.into_iter().filter(|c| !restart(c)).collect();
    let letter = match failing.as_slice() {
        [
            "open a fresh stream",
            "skip ahead to offset 3",
            "rebuild the batch",
        ] => "a",
        ["open a fresh stream"] => "b",
        [] => "c",
        ["skip ahead to offset 3"] => "d",
        _ => "none of these",
    };
    obs.choose("A's first request to s1 was lost before it arrived, and the writer saw DEADLINE_EXCEEDED. The source is unchanged. Which of the opening's four restart choices leave every record of A and B in the table exactly once, once the writer has sent B after it?", letter, format!("the choices that did not: {failing:?}"));
}

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
    obs.choose("The journal says B was PREPARED and never sent, yet its append at its journaled offset answers ALREADY_EXISTS. What would advancing the checkpoint past B do?",
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
