//! The invariants every graded schedule is checked against, with the explanation each
//! prints when a schedule breaks it (Let … Then … Contradiction).
//!
//! Some are checked after every write that reaches the store ([`on_write`]): the
//! manifest must name a complete, validated set at every moment, not only when an
//! attempt ends. The others are checked when a consumer reports ([`check_report`]) and
//! after each attempt ([`check_all`]).

mod reports;

pub use reports::{check_abandoned, check_report, check_reports};

use crate::world::{
    ANALYST, Actor, CONSUMER, DATA, FileRef, MANIFEST, Manifest, PUBLISHER, RELEASES, RESTATEMENTS,
    World, Write, dataset, run_tag,
};
use labkit::fault::{Verdict, Violation};

/// What the checks do after every write that reached the store.
pub fn on_write(world: &mut World, write: Write) {
    if write.bucket == RELEASES && write.name == MANIFEST {
        manifest_changed(world, write);
    }
    // From the first acceptance on, the manifest must name a complete set at every
    // moment (before it, the world is being set up).
    let ever_accepted = world.accepted.iter().any(Option::is_some);
    if ever_accepted && let Err(violation) = check_manifest(world) {
        world.breach(violation);
    }
    if matches!(write.actor, Actor::Consumer | Actor::Analyst)
        && let Err(violation) = check_publication_writers(world)
    {
        world.breach(violation);
    }
}

/// A run's place in the order of runs (0 for a run nobody published).
fn sequence(run: &str) -> u64 {
    dataset(run).map_or(0, |d| d.sequence)
}

/// Records the run the manifest now accepts, and checks how it came to accept it.
fn manifest_changed(world: &mut World, write: Write) {
    let before = world.accepted.last().cloned().flatten();
    let now = world.manifest().map(|m| m.run);
    world.accepted.push(now.clone());
    if write.actor != Actor::Publisher {
        // The audit trail says who; check_manifest_writers explains it.
        if let Err(violation) = check_manifest_writers(world) {
            world.breach(violation);
        }
        return;
    }
    if let (Some(replaced), false) = (write.replaced, write.replaced_was_read) {
        world.breach(Violation::new(
            "a publisher replaces only a manifest it has read",
            &[
                format!(
                    "Let a publisher attempt replace the manifest's generation {replaced} (which accepted {}).",
                    before.as_deref().unwrap_or("nothing")
                ),
                format!("Then that attempt had never read generation {replaced}: another write put it there after the attempt looked."),
                "Contradiction: the attempt overwrote a decision it never saw. Make the replacement conditional on the generation you read.".into(),
            ],
        ));
    }
    if let (Some(before), Some(now)) = (before, now)
        && sequence(&now) < sequence(&before)
    {
        world.breach(Violation::new(
            "the manifest never goes back to an older run",
            &[
                format!("Let the manifest accept {before}."),
                format!("Then a write made it accept {now}, an earlier run."),
                "Contradiction: consumers would report older data than they already did. A publisher must not replace a manifest that accepts a later run.".into(),
            ],
        ));
    }
}

/// Whether the restatement job (whose access is not the learner's to change) replaced
/// `file`: damage it did is not the publisher's. A generation of its own that the
/// manifest names is no damage: the publisher chose to accept it.
fn restated(world: &World, file: &FileRef) -> bool {
    world.store.audit().iter().any(|e| {
        e.principal == RESTATEMENTS
            && e.bucket == DATA
            && e.name == file.name
            && e.status == 200
            && (file.generation.is_none() || e.generation != file.generation)
    })
}

/// Who wrote `name`'s `generation`, as the audit trail says.
fn writer(world: &World, name: &str, generation: i64) -> Option<String> {
    let audit = world.store.audit();
    let insert = audit.iter().find(|e| {
        e.method == "objects.insert"
            && e.status == 200
            && e.name == name
            && e.generation == Some(generation)
    })?;
    Some(insert.principal.clone())
}

/// The manifest must name a known run, and each file it names must exist with exactly
/// that run's content (unless the restatement job replaced it: consumers must then
/// refuse, which [`check_report`] checks).
pub fn check_manifest(world: &World) -> Verdict {
    let Some((meta, bytes)) = world.origin(RELEASES, MANIFEST, None) else {
        return Err(Violation::new(
            "the accepted set stays readable",
            &[
                "Let the manifest be the object consumers start from.".into(),
                "Then it no longer exists.".into(),
                "Contradiction: consumers can no longer find the accepted set.".into(),
            ],
        ));
    };
    let manifest = Manifest::parse(&bytes).map_err(|e| {
        Violation::new(
            "the manifest is well formed",
            &[format!("It does not parse: {e}.")],
        )
    })?;
    let Some(data) = dataset(&manifest.run) else {
        return Err(Violation::new(
            "the manifest names a run the publisher published",
            &[
                format!(
                    "Let the manifest (generation {}) name run `{}`.",
                    meta.generation, manifest.run
                ),
                "Then no publisher ever published that run.".into(),
                "Contradiction: someone other than the publisher changed the manifest.".into(),
            ],
        ));
    };
    let files = [
        (&manifest.accounts, data.accounts_csv()),
        (&manifest.positions, data.positions_csv()),
    ];
    for (file, expected) in files {
        let Some((problem, rule)) = file_problem(world, file, &expected) else {
            continue;
        };
        let at = file.generation.map(|g| format!("#{g}")).unwrap_or_default();
        return Err(Violation::new(
            "the manifest never points at missing or different data",
            &[
                format!(
                    "Let the manifest accept {} with file {}{at}.",
                    manifest.run, file.name
                ),
                format!("Then that file {problem}."),
                format!(
                    "Contradiction: an accepted set must stay complete and exactly as validated, at every moment. {rule}"
                ),
            ],
        ));
    }
    Ok(())
}

/// What is wrong with `file` as the manifest names it, and the rule it breaks, unless it
/// holds `expected` or the restatement job replaced it.
fn file_problem(world: &World, file: &FileRef, expected: &[u8]) -> Option<(String, &'static str)> {
    let never_replace = "Never replace or delete what the manifest names.";
    let problem = match world.origin(DATA, &file.name, file.generation) {
        None => ("does not exist".to_string(), never_replace),
        Some((_, bytes)) if bytes == expected => return None,
        Some((meta, bytes)) => {
            let tag = run_tag(&bytes).unwrap_or_default();
            match writer(world, &file.name, meta.generation) {
                Some(w) if w != PUBLISHER => (
                    format!("holds other content (tagged `{tag}`), written by {w}"),
                    "A name the run did not get to create first is not the run's file: an object already there is yours only if its bytes are the ones you meant to write.",
                ),
                _ => (
                    format!("holds other content (tagged `{tag}`)"),
                    never_replace,
                ),
            }
        }
    };
    (!restated(world, file)).then_some(problem)
}

/// Only the publisher's identity ever changed the manifest.
pub fn check_manifest_writers(world: &World) -> Verdict {
    for entry in world.store.audit() {
        if entry.bucket == RELEASES
            && entry.name == MANIFEST
            && entry.status == 200
            && entry.principal != PUBLISHER
        {
            return Err(Violation::new(
                "only the publisher's identity changes the manifest",
                &[
                    format!("Let {} call {} on the manifest.", entry.principal, entry.method),
                    "Then the request succeeded (200).".into(),
                    "Contradiction: consumers trust the manifest because only the publisher can write it. Grant the other identities read-only roles on the releases bucket.".into(),
                ],
            ));
        }
    }
    Ok(())
}

/// Nobody whose access the publication's rules set, other than the publisher, changed
/// any object of the two buckets (the manifest has its own check, above): a consumer or
/// the analyst who can create, replace or delete a file can block or break a
/// publication, whatever the publisher does.
pub fn check_publication_writers(world: &World) -> Verdict {
    let writes = ["objects.insert", "objects.patch", "objects.delete"];
    for entry in world.store.audit() {
        let others = [CONSUMER, ANALYST].contains(&entry.principal.as_str());
        let published = [DATA, RELEASES].contains(&entry.bucket.as_str());
        if others && published && entry.status == 200 && writes.contains(&entry.method.as_str()) {
            return Err(Violation::new(
                "only the publisher's identity changes the published files",
                &[
                    format!(
                        "Let {} call {} on {}/{}.",
                        entry.principal, entry.method, entry.bucket, entry.name
                    ),
                    "Then the request succeeded (200).".into(),
                    "Contradiction: nobody but the publisher may change the published data, \
                     in any way: a file the consumer or the analyst can create, replace or \
                     delete can block or break a publication. Grant them read-only roles."
                        .into(),
                ],
            ));
        }
    }
    Ok(())
}

/// The publisher deleted only generations it had written itself.
pub fn check_deletes(world: &World) -> Verdict {
    let audit = world.store.audit();
    for delete in audit
        .iter()
        .filter(|e| e.principal == PUBLISHER && e.method == "objects.delete" && e.status == 200)
    {
        let writer = audit
            .iter()
            .find(|e| {
                e.method == "objects.insert"
                    && e.status == 200
                    && (e.bucket.as_str(), e.name.as_str(), e.generation)
                        == (
                            delete.bucket.as_str(),
                            delete.name.as_str(),
                            delete.generation,
                        )
            })
            .map_or("nobody", |e| e.principal.as_str());
        if writer != PUBLISHER {
            return Err(Violation::new(
                "the publisher deletes only objects it wrote",
                &[
                    format!(
                        "Let the publisher delete {}/{}#{}.",
                        delete.bucket,
                        delete.name,
                        delete.generation.unwrap_or_default()
                    ),
                    format!("Then that generation was written by {writer}."),
                    "Contradiction: a name under your run's prefix is not proof that you wrote the object. Delete only what you know you wrote.".into(),
                ],
            ));
        }
    }
    Ok(())
}

/// Everything checked after an attempt: what a write broke, then the audit trail, the
/// reports and the manifest.
pub fn check_all(world: &World) -> Verdict {
    if let Some(violation) = &world.broken {
        return Err(violation.clone());
    }
    check_manifest_writers(world)?;
    check_publication_writers(world)?;
    check_deletes(world)?;
    check_reports(world)?;
    check_manifest(world)
}
