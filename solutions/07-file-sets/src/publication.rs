//! The build phase, solved: a file set published by version identity.
//!
//! * Each run writes its own objects (`runs/<run>/…`) with `ifGenerationMatch=0`, so no
//!   run ever overwrites another run's file, and a restarted publisher recognises its
//!   own earlier upload (412, same bytes) instead of writing a second version.
//! * The publisher validates the set by reading back exactly the generations it wrote,
//!   then swaps the manifest with `ifGenerationMatch` set to the generation it read.
//! * Consumers trust only the manifest: they read the generations it names and check
//!   each file's run tag, so they report from one complete set or not at all.
//! * Only the publisher can replace or delete the manifest: everyone else reads.

use file_sets::world::{
    ANALYST, CONSUMER, DATA, Dataset, Error, FileRef, Gcs, MANIFEST, Manifest, PUBLISHER, RELEASES,
    Report, parse_accounts, parse_positions, report,
};
use sim_storage::{DeleteRequest, Meta, Preconditions, Role, Upload};

// ANCHOR: access
/// The IAM bindings of the two buckets: (bucket, member, role). Only the publisher may
/// create and delete (and so replace) objects; the consumer and the analyst read.
pub const ACCESS: &[(&str, &str, Role)] = &[
    (DATA, PUBLISHER, Role::ObjectUser),
    (DATA, CONSUMER, Role::ObjectViewer),
    (DATA, ANALYST, Role::ObjectViewer),
    (RELEASES, PUBLISHER, Role::ObjectUser),
    (RELEASES, CONSUMER, Role::ObjectViewer),
    (RELEASES, ANALYST, Role::ObjectViewer),
];
// ANCHOR_END: access

/// The object names of one run's files: the run identity is part of the name.
fn names(run: &str) -> (String, String) {
    (
        format!("runs/{run}/accounts.csv"),
        format!("runs/{run}/positions.csv"),
    )
}

// ANCHOR: put_once
/// Creates `name` with `bytes` unless it exists. If it exists with exactly these bytes,
/// it is this run's own earlier upload (the response was lost in a crash): reuse it.
fn put_once(gcs: &mut Gcs, name: &str, bytes: Vec<u8>) -> Result<Meta, Error> {
    match gcs.insert(
        DATA,
        name,
        Upload::new(bytes.clone()).if_generation_match(0),
    ) {
        Err(e) if e.status() == Some(412) => {
            let (meta, existing) = gcs.get_media(DATA, name, None)?;
            if existing == bytes {
                Ok(meta)
            } else {
                Err(Error::Rejected(format!(
                    "{name} exists with other content (generation {})",
                    meta.generation
                )))
            }
        }
        other => other,
    }
}
// ANCHOR_END: put_once

/// The manifest the origin holds now, with its generation (0 when there is none).
fn current_manifest(gcs: &mut Gcs) -> Result<(i64, Option<Manifest>), Error> {
    match gcs.get_media(RELEASES, MANIFEST, None) {
        Ok((meta, bytes)) => {
            let manifest = Manifest::parse(&bytes).map_err(Error::Rejected)?;
            Ok((meta.generation, Some(manifest)))
        }
        Err(e) if e.status() == Some(404) => Ok((0, None)),
        Err(e) => Err(e),
    }
}

// ANCHOR: read_set
/// Reads the set a manifest names, generation by generation, and checks that it is one
/// complete run: both files exist, both carry the manifest's run tag, every position's
/// account exists. Returns the report of that run.
fn read_set(gcs: &mut Gcs, manifest: &Manifest) -> Result<Report, Error> {
    let mut fetch = |file: &FileRef| -> Result<Vec<u8>, Error> {
        let Some(generation) = file.generation else {
            return Err(Error::Rejected(format!("{} is not pinned", file.name)));
        };
        match gcs.get_media(DATA, &file.name, Some(generation)) {
            Ok((_, bytes)) => Ok(bytes),
            Err(e) if e.status() == Some(404) => Err(Error::Rejected(format!(
                "incomplete set: {}#{generation} is missing",
                file.name
            ))),
            Err(e) => Err(e),
        }
    };
    let accounts = fetch(&manifest.accounts)?;
    let positions = fetch(&manifest.positions)?;
    let (accounts_run, accounts) = parse_accounts(&accounts).map_err(Error::Rejected)?;
    let (positions_run, positions) = parse_positions(&positions).map_err(Error::Rejected)?;
    if accounts_run != manifest.run || positions_run != manifest.run {
        return Err(Error::Rejected(format!(
            "mixed set: manifest {}, accounts {accounts_run}, positions {positions_run}",
            manifest.run
        )));
    }
    if let Some(orphan) = positions
        .iter()
        .find(|p| !accounts.iter().any(|a| a.id == p.account))
    {
        return Err(Error::Rejected(format!(
            "position of unknown account {}",
            orphan.account
        )));
    }
    Ok(report(&manifest.run, &accounts, &positions))
}
// ANCHOR_END: read_set

// ANCHOR: publish
/// Publishes one run's accounts and positions, then points the manifest at them.
/// Calling it again after a crash resumes the same run.
pub fn publish(gcs: &mut Gcs, data: &Dataset) -> Result<(), Error> {
    let (accounts_name, positions_name) = names(&data.run);
    let accounts = put_once(gcs, &accounts_name, data.accounts_csv())?;
    let positions = put_once(gcs, &positions_name, data.positions_csv())?;
    let candidate = Manifest {
        run: data.run.clone(),
        sequence: data.sequence,
        accounts: FileRef {
            name: accounts_name,
            generation: Some(accounts.generation),
        },
        positions: FileRef {
            name: positions_name,
            generation: Some(positions.generation),
        },
    };
    // Validate exactly what the manifest will name, before anyone can see it.
    let validated = read_set(gcs, &candidate)?;
    if validated != report(&data.run, &data.accounts, &data.positions) {
        return Err(Error::Rejected("read-back differs from the dataset".into()));
    }
    let (generation, current) = current_manifest(gcs)?;
    if current.as_ref() == Some(&candidate) {
        // A crash after the swap: the manifest is already ours.
        return Ok(());
    }
    if let Some(current) = &current
        && current.sequence >= data.sequence
    {
        // Never go back: a later run (or another set of this one) is accepted.
        return Err(Error::Rejected(format!(
            "{} is accepted; {} is not later",
            current.run, data.run
        )));
    }
    // Replace the manifest only if nobody changed it since we read it.
    let swap = Upload::new(candidate.to_json()).if_generation_match(generation);
    gcs.insert(RELEASES, MANIFEST, swap)?;
    Ok(())
}
// ANCHOR_END: publish

// ANCHOR: abandon
/// Gives up a run that was not accepted: removes the files `publish` writes for it,
/// each pinned to the generation that was listed, and never a file the manifest names.
/// Other objects under the run's prefix are not ours, whatever their name.
pub fn abandon(gcs: &mut Gcs, run: &str) -> Result<(), Error> {
    if let (_, Some(accepted)) = current_manifest(gcs)?
        && accepted.run == run
    {
        return Err(Error::Rejected(format!(
            "{run} is accepted; it cannot be abandoned"
        )));
    }
    let (accounts, positions) = names(run);
    let listed = gcs.list(DATA, &format!("runs/{run}/"))?;
    for file in listed
        .iter()
        .filter(|m| m.name == accounts || m.name == positions)
    {
        let pinned = DeleteRequest {
            generation: Some(file.generation),
            preconditions: Preconditions::none(),
        };
        match gcs.delete(DATA, &file.name, pinned) {
            Ok(()) => {}
            // Already gone: an earlier abandon attempt deleted it before crashing.
            Err(e) if e.status() == Some(404) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
// ANCHOR_END: abandon

// ANCHOR: consume
/// The reporting job: reads the accepted set through the manifest and reports on it,
/// or refuses.
pub fn consume(gcs: &mut Gcs) -> Result<Report, Error> {
    let (_, manifest) = current_manifest(gcs)?;
    let manifest = manifest.ok_or_else(|| Error::Rejected("no accepted set yet".into()))?;
    read_set(gcs, &manifest)
}
// ANCHOR_END: consume
