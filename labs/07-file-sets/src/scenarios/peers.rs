//! The actors a switch may run in the middle of another's attempt: a consumer, another
//! publication attempt, the analyst, the consumer's housekeeping job, and the
//! restatement job that shares the bucket (it restates positions, or stages a file).

use super::Protocol;
use super::actors::{run_consumer, run_publisher_in};
use crate::world::{
    Actor, DATA, Dataset, FileRef, Gcs, MANIFEST, Manifest, Peer, RELEASES, RUN_2, World, dataset,
};
use sim_storage::{DeleteRequest, Upload};

/// A consumer run.
pub struct ConsumerRuns(pub Protocol);

impl Peer for ConsumerRuns {
    fn label(&self) -> &'static str {
        "the consumer runs now"
    }
    fn run(self: Box<Self>, world: &mut World) {
        run_consumer(self.0, world);
    }
}

/// A whole publication attempt of `data` by another publisher process, in its own
/// timeline lane when it runs beside the scenario's publisher.
pub struct PublicationRuns {
    pub yours: Protocol,
    pub data: Dataset,
    pub label: &'static str,
    pub lane: &'static str,
}

impl Peer for PublicationRuns {
    fn label(&self) -> &'static str {
        self.label
    }
    fn run(self: Box<Self>, world: &mut World) {
        let _ = run_publisher_in(self.yours, world, &self.data, self.lane);
    }
}

/// The analyst's edits.
pub struct AnalystEdits;

impl Peer for AnalystEdits {
    fn label(&self) -> &'static str {
        "the analyst edits now"
    }
    fn run(self: Box<Self>, world: &mut World) {
        analyst_edits(&mut world.gcs(Actor::Analyst));
    }
}

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
    let unpinned = |name: &str| FileRef {
        name: name.into(),
        generation: None,
    };
    let forged = Manifest {
        run: "run-hand-fixed".into(),
        sequence: 99,
        accounts: unpinned("latest/accounts.csv"),
        positions: unpinned("latest/positions.csv"),
    };
    let _ = gcs.insert(RELEASES, MANIFEST, Upload::new(forged.to_json()));
    let create = Upload::new(forged.to_json()).if_generation_match(0);
    let _ = gcs.insert(RELEASES, MANIFEST, create);
    let _ = gcs.delete(RELEASES, MANIFEST, DeleteRequest::default());
    // Without reading anything: a hand-fixed accounts file staged for tonight's run,
    // under the name the chapter gives run-2's accounts.
    let staged = format!("# run={RUN_2}\naccount,owner\nA1,Ada (fixed by hand)\n");
    let _ = gcs.insert(DATA, "runs/run-2/accounts.csv", Upload::new(staged));
}

/// The consumer's housekeeping job, written as if the bucket were a queue: it deletes
/// the files of the run the manifest accepts once that run has been reported.
pub struct ConsumerHousekeeping;

impl Peer for ConsumerHousekeeping {
    fn label(&self) -> &'static str {
        "the consumer's housekeeping runs now"
    }
    fn run(self: Box<Self>, world: &mut World) {
        let mut gcs = world.gcs(Actor::Consumer);
        let Ok((_, bytes)) = gcs.get_media(RELEASES, MANIFEST, None) else {
            return;
        };
        let Ok(accepted) = Manifest::parse(&bytes) else {
            return;
        };
        for file in [accepted.accounts, accepted.positions] {
            let _ = gcs.delete(DATA, &file.name, DeleteRequest::default());
        }
    }
}

/// The restatement job corrects the accepted positions in place: it overwrites the
/// positions file the manifest names with new quantities, under the same run tag.
pub struct Restatement;

impl Peer for Restatement {
    fn label(&self) -> &'static str {
        "the restatement job rewrites positions now"
    }
    fn run(self: Box<Self>, world: &mut World) {
        let mut gcs = world.gcs(Actor::Restatements);
        let Ok((_, bytes)) = gcs.get_media(RELEASES, MANIFEST, None) else {
            return;
        };
        let Some(mut restated) = Manifest::parse(&bytes).ok().and_then(|m| {
            let data = dataset(&m.run)?;
            Some((m.positions.name, data))
        }) else {
            return;
        };
        for p in &mut restated.1.positions {
            p.quantity += 5;
        }
        let _ = gcs.insert(DATA, &restated.0, Upload::new(restated.1.positions_csv()));
    }
}

/// The restatement job stages its corrected accounts for tonight's run: run-2's accounts
/// with the owners' full names, under the name the chapter gives run-2's accounts file.
/// It creates the object only if the name is free, so it never replaces anyone's file;
/// the bytes are not the publisher's, though the rows and the run tag look the same.
pub struct StagedAccounts;

impl Peer for StagedAccounts {
    fn label(&self) -> &'static str {
        "the restatement job stages run-2's accounts now"
    }
    fn run(self: Box<Self>, world: &mut World) {
        let staged = format!(
            "# run={RUN_2}\naccount,owner\nA1,Ada Lovelace\nA2,Grace Hopper\nA3,Edsger Dijkstra\n"
        );
        let create = Upload::new(staged).if_generation_match(0);
        let _ = world
            .gcs(Actor::Restatements)
            .insert(DATA, STAGED_ACCOUNTS, create);
    }
}

/// The name the restatement job stages run-2's accounts under.
pub const STAGED_ACCOUNTS: &str = "runs/run-2/accounts.csv";

/// Where the restatement job keeps its notes: under the prefix the chapter gives run-2's
/// files, before run-2 exists. Nothing the publisher wrote.
pub fn leave_notes(world: &mut World) {
    let notes = format!("restatement notes for {RUN_2}: none yet\n");
    world
        .gcs(Actor::Restatements)
        .insert(DATA, "runs/run-2/NOTES.txt", Upload::new(notes))
        .expect("the restatement job may write datasets");
}
