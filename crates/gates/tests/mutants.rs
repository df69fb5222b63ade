//! The catalogue of wrong solutions, proven: every entry under `solutions/NN-*/mutants/`
//! compiles, fails every graded test it names — each on an invariant or an assertion, not
//! by crashing — and fails exactly as its recorded signature says (the signature
//! `cargo labs check` diagnoses it by). `BLESS=1` records the signatures the runs show.
//!
//! Every entry becomes a package of a scratch workspace under `target/mutants`: the lab's
//! own modules, the reference solution's learner files with the entry's `[[edit]]`s
//! applied in place of the learner's, and the lab's graded suite; all of them are built in
//! one cargo run that shares the workspace's build folder. An entry whose edit no longer
//! applies to the solution is not built: the gate names it, its file and its edit.
//! How an entry is built and judged is in common/catalogue.rs, which the scaffold's test
//! applies to a new lab's catalogue too.

#[path = "../../workbook/tests/common/mod.rs"]
mod common;
mod support;

use common::{labs, repo};
use std::collections::BTreeMap;
use std::path::Path;
use support::catalogue::{judge, package_name, signature_problem, write_package};
use workbook::grade::LabRun;
use workbook::grade::run::{GradedSuite, RunEnv, build_suites, run_built};
use workbook::meta::Lab;
use workbook::mutants::{Edit, Mutant, MutantMeta, catalogue, with_signature};
use workbook::settings::Settings;

/// The least number of entries each lab's catalogue must have.
const PER_LAB: usize = 8;

fn absolute(path: &Path) -> String {
    path.display().to_string()
}

/// The workspace manifest: the teacher's, with its path dependencies made absolute and the
/// mutants as its only members.
fn workspace_manifest() -> String {
    let root = repo();
    let mut manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap()).unwrap();
    let workspace = manifest["workspace"].as_table_mut().unwrap();
    workspace.insert("members".into(), toml::Value::Array(vec!["m/*".into()]));
    workspace.remove("default-members");
    if let Some(deps) = workspace
        .get_mut("dependencies")
        .and_then(|d| d.as_table_mut())
    {
        for (_, dep) in deps.iter_mut() {
            if let Some(path) = dep.get("path").and_then(|p| p.as_str()).map(str::to_string) {
                dep.as_table_mut()
                    .unwrap()
                    .insert("path".into(), absolute(&root.join(path)).into());
            }
        }
    }
    toml::to_string(&manifest).unwrap()
}

#[test]
fn every_wrong_solution_in_the_catalogue_is_rejected_by_the_tests_it_names() {
    let bless = std::env::var_os("BLESS").is_some();
    let ws = repo().join("target/mutants");
    let _ = std::fs::remove_dir_all(ws.join("m"));
    common::write(&ws.join("Cargo.toml"), &workspace_manifest());
    let _ = std::fs::copy(repo().join("Cargo.lock"), ws.join("Cargo.lock"));
    let mut problems = Vec::new();
    let mut entries: Vec<(Lab, Mutant)> = Vec::new();
    let mut counts = BTreeMap::new();
    for lab in labs() {
        let found = match catalogue(&lab) {
            Ok(found) => found,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        counts.insert(lab.meta.number.clone(), found.len());
        if found.len() < PER_LAB {
            problems.push(format!(
                "lab {}: the catalogue has {} wrong solutions; it needs at least {PER_LAB}",
                lab.meta.number,
                found.len()
            ));
        }
        for mutant in found {
            let dir = ws.join("m").join(package_name(&lab, &mutant));
            match write_package(&lab, &mutant, &dir) {
                Ok(()) => entries.push((lab.clone(), mutant)),
                Err(problem) => problems.push(problem),
            }
        }
    }
    println!("catalogue: {counts:?}, {} entries in all", entries.len());
    let packages: Vec<String> = entries.iter().map(|(l, m)| package_name(l, m)).collect();
    let names: Vec<&str> = packages.iter().map(String::as_str).collect();
    let started = std::time::Instant::now();
    let env = RunEnv::gate(Some(repo().join("target")));
    let built = build_suites(&ws, &names, &env).unwrap();
    println!("built in {:.1} s", started.elapsed().as_secs_f64());
    let settings = Settings::load(&repo()).unwrap();
    // Each entry's suite runs in processes of its own: run as many entries at once as
    // there are cores, then judge them in the catalogue's order.
    let one_at_a_time = RunEnv {
        tests: workbook::grade::run::SuiteEnv {
            jobs: 1,
            ..RunEnv::gate(None).tests
        },
        ..RunEnv::gate(None)
    };
    let run_one = |((lab, _), package): (&(Lab, Mutant), &String)| {
        let suite = GradedSuite::for_package(lab, package, &repo(), &settings);
        let started = std::time::Instant::now();
        match run_built(&built, &repo(), &suite, &one_at_a_time) {
            LabRun::Ran(run) => Ok((run, started.elapsed().as_secs_f64())),
            other => Err(format!("{other:?}")),
        }
    };
    let jobs: Vec<_> = entries.iter().zip(&packages).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut runs: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break done };
                        done.push((i, run_one(*job)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a runner thread"))
            .collect()
    });
    runs.sort_by_key(|(i, _)| *i);
    for (((lab, mutant), _), (_, result)) in jobs.iter().zip(runs) {
        let label = format!("lab {} mutant `{}`", lab.meta.number, mutant.name);
        let (run, seconds) = match result {
            Ok(done) => done,
            Err(problem) => {
                problems.push(format!("{label} does not build: {problem}"));
                continue;
            }
        };
        let (seen, mismatch) = signature_problem(&label, mutant, &run);
        println!(
            "{label}: fails {:?} on {:?} ({seconds:.2} s)",
            seen.fails, seen.invariant
        );
        problems.extend(judge(&label, mutant, &run));
        match mismatch {
            Some(_) if bless => {
                let path = mutant.dir.join("mutant.toml");
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(&path, with_signature(&text, &seen)).unwrap();
            }
            Some(mismatch) => problems.push(mismatch),
            None => {}
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}

/// An entry whose edit no longer applies to its solution (a refactor moved the text it
/// finds) is not built, and the gate says which entry, which file and which edit.
#[test]
fn an_entry_whose_edit_no_longer_applies_is_named() {
    let lab = labs().into_iter().next().expect("a lab");
    let file = lab.meta.learner_files[0].clone();
    let stale = Mutant {
        name: "stale-edit".into(),
        dir: repo().join("target/mutants-stale/stale-edit"),
        meta: MutantMeta {
            misconception: "m".into(),
            section: "s".into(),
            rejected_by: Vec::new(),
            explains: Vec::new(),
            edits: vec![Edit {
                file: Some(file.clone()),
                find: "\n    text the solution no longer has();\n".into(),
                replace: String::new(),
            }],
            signature: Default::default(),
        },
    };
    let dir = repo().join("target/mutants-stale/package");
    let _ = std::fs::remove_dir_all(&dir);
    let refused = write_package(&lab, &stale, &dir).unwrap_err();
    for named in [
        format!("lab {} mutant `stale-edit`", lab.meta.number),
        format!("edit of {file}"),
        "`text the solution no longer has();`".to_string(),
        format!("solutions/{}/{file}", lab.slug()),
    ] {
        assert!(refused.contains(&named), "{named}: {refused}");
    }
    assert!(!dir.exists(), "nothing of the entry is written");
}
