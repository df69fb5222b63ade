//! The invariants every graded schedule is checked against, with the explanation each
//! prints when a schedule breaks it (Let … Then … Contradiction).

use crate::world::{
    DATA, MANIFEST, Manifest, PUBLISHER, RELEASES, World, dataset, report, run_tag,
};
use labkit::fault::{Verdict, Violation};

/// The manifest must name a known run, and each file it names must exist with
/// exactly that run's content.
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
    for (file, expected) in [
        (&manifest.accounts, data.accounts_csv()),
        (&manifest.positions, data.positions_csv()),
    ] {
        let found = world.origin(DATA, &file.name, file.generation);
        let at = file.generation.map(|g| format!("#{g}")).unwrap_or_default();
        let problem = match &found {
            None => Some("does not exist".to_string()),
            Some((_, bytes)) if *bytes != expected => {
                let tag = run_tag(bytes).unwrap_or_default();
                Some(format!("holds other content (tagged `{tag}`)"))
            }
            _ => None,
        };
        if let Some(problem) = problem {
            return Err(Violation::new(
                "the manifest never points at missing or different data",
                &[
                    format!("Let the manifest accept {} with file {}{at}.", manifest.run, file.name),
                    format!("Then that file {problem}."),
                    "Contradiction: an accepted set must stay complete and exactly as validated. Pin files by generation, and never delete what the manifest names.".into(),
                ],
            ));
        }
    }
    Ok(())
}

/// Every report a consumer produced must be exactly its run's report.
pub fn check_reports(world: &World) -> Verdict {
    for r in &world.reports {
        let expected = dataset(&r.run).map(|d| report(&d.run, &d.accounts, &d.positions));
        if expected.as_ref() != Some(r) {
            let want = expected
                .map(|e| {
                    format!(
                        "{} accounts, {} positions, total {}",
                        e.accounts, e.positions, e.total_quantity
                    )
                })
                .unwrap_or_else(|| "no such run".into());
            return Err(Violation::new(
                "no consumer reports from an incomplete or mixed set",
                &[
                    format!("Let a consumer report run {}.", r.run),
                    format!(
                        "Then it counted {} accounts, {} positions, total {}, but run {} has {want}.",
                        r.accounts, r.positions, r.total_quantity, r.run
                    ),
                    "Contradiction: the report was computed from files of different runs, or from an incomplete run. Read exactly the generations the manifest names, and check each file's run.".into(),
                ],
            ));
        }
    }
    Ok(())
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

pub fn check_all(world: &World) -> Verdict {
    check_manifest_writers(world)?;
    check_reports(world)?;
    check_manifest(world)
}
