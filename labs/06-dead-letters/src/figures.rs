//! The figures of chapter 6, drawn by the code the lab runs (`cargo labs bless`).

use crate::scenarios::HISTORY;
use labkit::figure::Sequence;

/// The figures of chapter 6.
pub fn figures() -> Vec<(&'static str, String)> {
    let reminders = crate::observe::fewest_reminders_figure();
    vec![
        ("06-dead-letters-reminders.svg", reminders.to_svg()),
        ("06-dead-letters-incident.svg", incident().to_svg()),
    ]
}

/// What consumer v1 did with each payment of the incident, from the graded world's own
/// history.
fn incident() -> Sequence {
    let mut figure = Sequence::new(
        "The incident: v1 acknowledged on receipt, then crashed part-way",
        &["Pub/Sub", "billing v1", "ledger (SQLite)", "mail provider"],
    );
    for (id, amount, done) in HISTORY {
        figure = figure
            .call("Pub/Sub", "billing v1", &format!("{id} {amount}"))
            .call("billing v1", "Pub/Sub", &format!("ack {id}"));
        if done != "nothing" {
            figure = figure.call("billing v1", "ledger (SQLite)", &format!("debit {id}"));
        }
        figure = match done {
            "complete" => figure.call("billing v1", "mail provider", &format!("receipt {id}")),
            _ => figure.crash("billing v1", &format!("crash: {id} {done}")),
        };
    }
    figure.divider("v2 deployed at t = 60 s; P7 arrives, and more during the replay")
}
