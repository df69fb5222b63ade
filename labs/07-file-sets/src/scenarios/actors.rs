//! The actors a scenario runs: the learner's publisher, consumer and `abandon`, each
//! logged in the timeline, and the analyst's edits.

use crate::publication::{abandon, consume, publish};
use crate::world::{
    Actor, DATA, Dataset, Error, FileRef, Gcs, MANIFEST, Manifest, Peer, RELEASES, World,
};
use labkit::fault::Glyph;
use sim_storage::{DeleteRequest, Upload};

/// What the analyst tries: "fix" the accepted accounts file by hand, then replace the
/// manifest, create one, delete it.
fn analyst_edits(gcs: &mut Gcs) {
    if let Ok((_, bytes)) = gcs.get_media(RELEASES, MANIFEST, None)
        && let Ok(accepted) = Manifest::parse(&bytes)
    {
        let fixed = format!(
            "# run={}\naccount,owner\nA1,Ada (fixed by hand)\n",
            accepted.run
        );
        let _ = gcs.insert(DATA, &accepted.accounts.name, Upload::new(fixed));
    }
    let forged = Manifest {
        run: "run-hand-fixed".into(),
        accounts: FileRef {
            name: "latest/accounts.csv".into(),
            generation: None,
        },
        positions: FileRef {
            name: "latest/positions.csv".into(),
            generation: None,
        },
    };
    let _ = gcs.insert(RELEASES, MANIFEST, Upload::new(forged.to_json()));
    let _ = gcs.insert(
        RELEASES,
        MANIFEST,
        Upload::new(forged.to_json()).if_generation_match(0),
    );
    let _ = gcs.delete(RELEASES, MANIFEST, DeleteRequest::default());
}

/// A consumer run, switched in before a request of the publisher.
pub struct ConsumerRuns;

impl Peer for ConsumerRuns {
    fn label(&self) -> &'static str {
        "the consumer runs now"
    }
    fn run(self: Box<Self>, world: &mut World) {
        run_consumer(world);
    }
}

/// A whole publication attempt, switched in before a request of the consumer.
pub struct PublicationRuns(pub Dataset);

impl Peer for PublicationRuns {
    fn label(&self) -> &'static str {
        "a publication attempt runs now"
    }
    fn run(self: Box<Self>, world: &mut World) {
        let _ = run_publisher(world, &self.0);
    }
}

/// The analyst's edits, switched in before a request of the publisher.
pub struct AnalystEdits;

impl Peer for AnalystEdits {
    fn label(&self) -> &'static str {
        "the analyst edits now"
    }
    fn run(self: Box<Self>, world: &mut World) {
        analyst_edits(&mut world.gcs(Actor::Analyst));
    }
}

/// One consumer run; a report it produces is kept for the checks.
pub fn run_consumer(world: &mut World) {
    let result = consume(&mut world.gcs(Actor::Consumer));
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
        world.reports.push(report);
    }
}

/// One publication attempt by a publisher process.
pub fn run_publisher(world: &mut World, data: &Dataset) -> Result<(), Error> {
    let result = publish(&mut world.gcs(Actor::Publisher), data);
    if let Err(e) = &result {
        let glyph = if matches!(e, Error::Crashed(_)) {
            Glyph::Recover
        } else {
            Glyph::Error
        };
        world.sim.event("publisher", glyph, || {
            (
                format!("attempt for {} ends: {e}", data.run),
                "the bucket keeps what was written".into(),
            )
        });
    }
    result
}

pub fn run_abandon(world: &mut World, run: &str) -> Result<(), Error> {
    let result = abandon(&mut world.gcs(Actor::Publisher), run);
    if let Err(e) = &result {
        world.sim.event("publisher", Glyph::Recover, || {
            (format!("abandon {run} ends: {e}"), String::new())
        });
    }
    result
}
