//! The build phase: your publisher, your consumer, and who may write where.
//!
//! `publish` runs in a publisher process that can crash right after any write it makes
//! (the write is applied, the response is lost); a new process then calls `publish`
//! again with the same dataset. `abandon` gives up a run instead. `consume` is the
//! reporting job: it must report from one complete, validated set or not at all. Any of
//! them may be interrupted before any request by the other actor's whole attempt.
//!
//! The layout is fixed by the harness: data files go to the `DATA` bucket (names are
//! yours), the acceptance manifest is `RELEASES/MANIFEST` (format: `Manifest`).
//!
//! Goal, under every schedule with up to two faults: no consumer reports from an
//! incomplete or mixed set; a crashed publication can be resumed or abandoned without
//! leaving a manifest that points at missing data; only the publisher's identity can
//! change the manifest. Grade it with `cargo labs check 07`.

use crate::world::{
    ANALYST, CONSUMER, DATA, Dataset, Error, FileRef, Gcs, MANIFEST, Manifest, PUBLISHER, RELEASES,
    Report, parse_accounts, parse_positions, report,
};
use sim_storage::{DeleteRequest, Role, Upload};

// ANCHOR: access
/// The IAM bindings of the two buckets: (bucket, member, role).
// TODO: replacing the manifest needs storage.objects.create *and* .delete. Who needs
// that on `RELEASES`? Who only needs to read? The analyst fixes data by hand "sometimes".
pub const ACCESS: &[(&str, &str, Role)] = &[
    (DATA, PUBLISHER, Role::ObjectUser),
    (DATA, CONSUMER, Role::ObjectViewer),
    (DATA, ANALYST, Role::ObjectUser),
    (RELEASES, PUBLISHER, Role::ObjectUser),
    (RELEASES, CONSUMER, Role::ObjectViewer),
    (RELEASES, ANALYST, Role::ObjectUser),
];
// ANCHOR_END: access

// ANCHOR: publish
/// Publishes one run's accounts and positions, then points the manifest at them.
pub fn publish(gcs: &mut Gcs, data: &Dataset) -> Result<(), Error> {
    // TODO: these fixed names are overwritten by every run, so a reader can see the new
    // accounts beside the old positions. Give each run its own object names, create them
    // with `ifGenerationMatch=0`, and on 412 decide whether the object is your own earlier
    // upload (same bytes: reuse its generation) or someone else's.
    let accounts = "latest/accounts.csv";
    let positions = "latest/positions.csv";
    gcs.insert(DATA, accounts, Upload::new(data.accounts_csv()))?;
    gcs.insert(DATA, positions, Upload::new(data.positions_csv()))?;
    // TODO: validate before accepting: read back exactly the generations you wrote.
    // TODO: record those generations in the manifest, and replace the manifest only if
    // it is still the generation you read (`ifGenerationMatch`).
    let manifest = Manifest {
        run: data.run.clone(),
        accounts: FileRef {
            name: accounts.into(),
            generation: None,
        },
        positions: FileRef {
            name: positions.into(),
            generation: None,
        },
    };
    gcs.insert(RELEASES, MANIFEST, Upload::new(manifest.to_json()))?;
    Ok(())
}
// ANCHOR_END: publish

// ANCHOR: abandon
/// Gives up a run that was not accepted: removes its files.
pub fn abandon(gcs: &mut Gcs, run: &str) -> Result<(), Error> {
    // TODO: which objects belong to `run`? Never delete a file the manifest names, and
    // delete only the generation you looked at (a newer one is not yours to remove).
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
// ANCHOR_END: abandon

// ANCHOR: consume
/// The reporting job: reads the accepted set and reports on it.
pub fn consume(gcs: &mut Gcs) -> Result<Report, Error> {
    let (_, bytes) = gcs.get_media(RELEASES, MANIFEST, None)?;
    let manifest = Manifest::parse(&bytes).map_err(Error::Rejected)?;
    // TODO: read the generations the manifest names, not whatever is live now, and
    // refuse files whose `# run=` tag is not the manifest's run.
    let (_, accounts) = gcs.get_media(DATA, &manifest.accounts.name, None)?;
    let (_, positions) = gcs.get_media(DATA, &manifest.positions.name, None)?;
    let (_, accounts) = parse_accounts(&accounts).map_err(Error::Rejected)?;
    let (_, positions) = parse_positions(&positions).map_err(Error::Rejected)?;
    Ok(report(&manifest.run, &accounts, &positions))
}
// ANCHOR_END: consume
