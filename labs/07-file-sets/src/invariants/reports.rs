//! What a consumer's report, and an abandoned run, must satisfy.

use crate::world::{DATA, PUBLISHER, Report, World, dataset, report, run_tag};
use labkit::fault::{Verdict, Violation};

/// A report is of a run the manifest accepted at some moment while the consumer ran:
/// `accepted_from` is where the world's history of accepted runs stood when it started.
pub fn check_report(world: &World, r: &Report, accepted_from: usize) -> Verdict {
    let during = &world.accepted[accepted_from.min(world.accepted.len() - 1)..];
    if during
        .iter()
        .any(|run| run.as_deref() == Some(r.run.as_str()))
    {
        return Ok(());
    }
    let accepted: Vec<&str> = during
        .iter()
        .map(|r| r.as_deref().unwrap_or("none"))
        .collect();
    Err(Violation::new(
        "a consumer reports only a run accepted while it ran",
        &[
            format!("Let a consumer report {}.", r.run),
            format!(
                "Then, while it ran, the manifest accepted only {}.",
                accepted.join(", then ")
            ),
            "Contradiction: files that exist are not an accepted set. Only the manifest says which run is accepted, and only once the publisher validated it.".into(),
        ],
    ))
}

/// Every report a consumer produced is exactly its run's report.
pub fn check_reports(world: &World) -> Verdict {
    for r in &world.reports {
        let Some(data) = dataset(&r.run) else {
            return Err(Violation::new(
                "every report is of a run the publisher published",
                &[format!(
                    "Let a consumer report run `{}`, which nobody published.",
                    r.run
                )],
            ));
        };
        let expected = report(&data.run, &data.accounts, &data.positions);
        if &expected == r {
            continue;
        }
        let incomplete = r.accounts == 0 || r.positions == 0;
        let (invariant, why) = if incomplete {
            (
                "no consumer reports from an incomplete set",
                "the report counts a file as empty that the accepted set does not have empty: a file was missing, and the consumer reported anyway",
            )
        } else {
            (
                "no consumer reports from a mixed or altered set",
                "the report was computed from bytes the publisher never validated: another run's file, or a file replaced after it was accepted",
            )
        };
        return Err(Violation::new(
            invariant,
            &[
                format!("Let a consumer report {}.", r.run),
                format!(
                    "Then it counted {} accounts, {} positions, total {}, but {} has {} accounts, {} positions, total {}.",
                    r.accounts,
                    r.positions,
                    r.total_quantity,
                    r.run,
                    expected.accounts,
                    expected.positions,
                    expected.total_quantity
                ),
                format!(
                    "Contradiction: {why}. Read exactly the generations the manifest names, and refuse what is missing."
                ),
            ],
        ));
    }
    Ok(())
}

/// After `abandon(run)` returned `outcome`: unless the manifest accepts `run`, no object
/// the publisher wrote for it is left, and `abandon` succeeded.
pub fn check_abandoned(world: &World, run: &str, outcome: &Result<(), String>) -> Verdict {
    let accepted = world.manifest().map(|m| m.run);
    if accepted.as_deref() == Some(run) {
        return Ok(());
    }
    let audit = world.store.audit();
    let listed = world
        .store
        .list(crate::world::AUDITOR, DATA, "")
        .unwrap_or_default();
    let leftovers: Vec<String> = listed
        .iter()
        .filter(|m| {
            audit.iter().any(|e| {
                e.principal == PUBLISHER
                    && e.method == "objects.insert"
                    && e.name == m.name
                    && e.generation == Some(m.generation)
            })
        })
        .filter(|m| {
            world
                .origin(DATA, &m.name, Some(m.generation))
                .is_some_and(|(_, bytes)| run_tag(&bytes).as_deref() == Some(run))
        })
        .map(|m| format!("{}#{}", m.name, m.generation))
        .collect();
    if outcome.is_ok() && leftovers.is_empty() {
        return Ok(());
    }
    Err(Violation::new(
        "an abandoned publication leaves nothing behind",
        &[
            format!("Let {run} be abandoned while the manifest accepts {accepted:?}."),
            format!("Then `abandon` returned {outcome:?} and files the publisher wrote for {run} remain: {leftovers:?}."),
            "Contradiction: abandoning a run that was never accepted must remove the files you wrote for it, and only those.".into(),
        ],
    ))
}
