//! The build phase: your publisher, your consumer, and who may write where.
//!
//! `publish` runs in a publisher process that can crash right after any write it makes
//! (the write is applied, the response is lost); a new process then calls `publish`
//! again with the same dataset. A second publisher process may publish the next run at
//! the same time. `abandon` gives up a run instead. `consume` is the reporting job. Any
//! of them may be interrupted before any request by another actor's whole attempt; the
//! `datasets` bucket is shared with another team's job, which writes there too.
//!
//! The layout is fixed by the world: data files go to the `DATA` bucket (names are
//! yours), the acceptance manifest is `RELEASES/MANIFEST` (format: `Manifest`).
//!
//! Goal, under every schedule with up to two faults:
//! * a consumer reports only a run the manifest accepted while it ran, computed from
//!   exactly the files that were validated for it; otherwise it refuses;
//! * at every moment, the manifest names a complete set, exactly as it was validated;
//! * the manifest never goes back to an earlier run, and a publisher never replaces a
//!   version of the manifest it has not read;
//! * `publish` called again after a crash finishes the run; `abandon` removes what the
//!   publisher wrote for the run, and nothing else;
//! * only the publisher's identity can change the manifest.
//!
//! Grade it with `cargo labs check 07`; `cargo labs hint 07` when you are stuck.

use file_sets::world::{
    ANALYST, CONSUMER, DATA, Dataset, Error, FileRef, Gcs, MANIFEST, Manifest, PUBLISHER, RELEASES,
    Report, parse_accounts, parse_positions, report,
};
use sim_storage::{DeleteRequest, Role, Upload};

/// The IAM bindings of the two buckets: (bucket, member, role).
// TODO: decide what each identity needs on each bucket. Consumers trust the manifest
// only if nobody but the publisher can change it, in any way.
pub const ACCESS: &[(&str, &str, Role)] = &[
    (DATA, PUBLISHER, Role::ObjectUser),
    (DATA, CONSUMER, Role::ObjectViewer),
    (DATA, ANALYST, Role::ObjectUser),
    (RELEASES, PUBLISHER, Role::ObjectUser),
    (RELEASES, CONSUMER, Role::ObjectViewer),
    (RELEASES, ANALYST, Role::ObjectUser),
];

// ANCHOR: publish
/// Publishes one run's accounts and positions, then points the manifest at them.
pub fn publish(gcs: &mut Gcs, data: &Dataset) -> Result<(), Error> {
    // TODO: the store replaces one object at a time, never a set. Decide where a
    // run's files go, how a restarted process finishes its own earlier attempt, what
    // you check before anyone may see the set, and how the manifest moves only
    // forward, from the version you read.
    let accounts = "latest/accounts.csv";
    let positions = "latest/positions.csv";
    gcs.insert(DATA, accounts, Upload::new(data.accounts_csv()))?;
    gcs.insert(DATA, positions, Upload::new(data.positions_csv()))?;
    let unpinned = |name: &str| FileRef {
        name: name.into(),
        generation: None,
    };
    let manifest = Manifest {
        run: data.run.clone(),
        sequence: data.sequence,
        accounts: unpinned(accounts),
        positions: unpinned(positions),
    };
    gcs.insert(RELEASES, MANIFEST, Upload::new(manifest.to_json()))?;
    Ok(())
}
// ANCHOR_END: publish

/// Gives up a run that was not accepted: removes its files.
pub fn abandon(gcs: &mut Gcs, run: &str) -> Result<(), Error> {
    // TODO: which objects are this run's, and which of those may you still delete?
    let _ = run;
    for name in ["latest/accounts.csv", "latest/positions.csv"] {
        match gcs.delete(DATA, name, DeleteRequest::default()) {
            Ok(()) => {}
            Err(e) if e.status() == Some(404) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The reporting job: reads the accepted set and reports on it.
pub fn consume(gcs: &mut Gcs) -> Result<Report, Error> {
    let (_, bytes) = gcs.get_media(RELEASES, MANIFEST, None)?;
    let manifest = Manifest::parse(&bytes).map_err(Error::Rejected)?;
    // TODO: report only from the files that were validated for this run, or refuse.
    let (_, accounts) = gcs.get_media(DATA, &manifest.accounts.name, None)?;
    let (_, positions) = gcs.get_media(DATA, &manifest.positions.name, None)?;
    let (_, accounts) = parse_accounts(&accounts).map_err(Error::Rejected)?;
    let (_, positions) = parse_positions(&positions).map_err(Error::Rejected)?;
    Ok(report(&manifest.run, &accounts, &positions))
}
