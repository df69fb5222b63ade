//! The learner's three entry points as the scenarios run them: each attempt is one
//! process with its own handle, logged in the timeline, its outcome kept for the checks.

use super::Protocol;
use crate::invariants::check_report;
use crate::world::{Actor, Dataset, Error, World};
use labkit::fault::Glyph;

/// One consumer run; a report it produces is checked and kept.
pub fn run_consumer(yours: Protocol, world: &mut World) {
    let accepted_from = world.accepted.len() - 1;
    let result = (yours.consume)(&mut world.gcs(Actor::Consumer));
    world
        .sim
        .event("consumer", Glyph::Normal, || match &result {
            Ok(r) => (
                format!(
                    "reports {}: {} accounts, {} positions, total {}",
                    r.run, r.accounts, r.positions, r.total_quantity
                ),
                String::new(),
            ),
            Err(e) => (format!("no report: {e}"), String::new()),
        });
    if let Ok(report) = result {
        if let Err(violation) = check_report(world, &report, accepted_from) {
            world.breach(violation);
        }
        world.reports.push(report);
    }
}

/// One publication attempt by a publisher process.
pub fn run_publisher(yours: Protocol, world: &mut World, data: &Dataset) -> Result<(), Error> {
    run_publisher_in(yours, world, data, Actor::Publisher.lane())
}

/// One publication attempt by a publisher process whose timeline lane is `lane`.
pub fn run_publisher_in(
    yours: Protocol,
    world: &mut World,
    data: &Dataset,
    lane: &'static str,
) -> Result<(), Error> {
    let result = (yours.publish)(&mut world.gcs_in(Actor::Publisher, lane), data);
    if let Err(e) = &result {
        let glyph = if matches!(e, Error::Crashed(_)) {
            Glyph::Recover
        } else {
            Glyph::Error
        };
        world.sim.event(lane, glyph, || {
            (
                format!("attempt for {} ends: {e}", data.run),
                "the bucket keeps what was written".into(),
            )
        });
    }
    result
}

/// One `abandon` attempt by a publisher process.
pub fn run_abandon(yours: Protocol, world: &mut World, run: &str) -> Result<(), Error> {
    let result = (yours.abandon)(&mut world.gcs(Actor::Publisher), run);
    if let Err(e) = &result {
        world.sim.event("publisher", Glyph::Recover, || {
            (format!("abandon {run} ends: {e}"), String::new())
        });
    }
    result
}
