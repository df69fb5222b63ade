//! The catalogue of wrong solutions, proven: every entry under `solutions/NN-*/mutants/`
//! compiles, fails every graded test it names — each on an invariant or an assertion, not
//! by crashing — and fails exactly as its recorded signature says (the signature
//! `cargo labs check` diagnoses it by). `BLESS=1` records the signatures the runs show.
//!
//! Every entry becomes a package of a scratch workspace under `target/mutants`: the lab's
//! own modules, the entry's learner files in place of the learner's, and the lab's graded
//! suite; all of them are built in one cargo run that shares the workspace's build folder.

mod common;

use common::{labs, repo};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use workbook::compile::{self, Artifact, BuildEnv};
use workbook::meta::Lab;
use workbook::mutants::{Mutant, catalogue, signature};
use workbook::settings::Settings;
use workbook::suite::{self, SuiteEnv};

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

/// The package of one entry: the lab's manifest renamed, without its binary, with the
/// suite's path made absolute.
fn package_manifest(lab: &Lab, package: &str) -> String {
    let mut manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(lab.dir.join("Cargo.toml")).unwrap()).unwrap();
    manifest["package"]
        .as_table_mut()
        .unwrap()
        .insert("name".into(), package.into());
    manifest.remove("bin");
    // A dependency by relative path (a simulator) is found from the lab's folder.
    if let Some(deps) = manifest
        .get_mut("dependencies")
        .and_then(|d| d.as_table_mut())
    {
        for (_, dep) in deps.iter_mut() {
            if let Some(path) = dep.get("path").and_then(|p| p.as_str()).map(str::to_string) {
                dep.as_table_mut()
                    .unwrap()
                    .insert("path".into(), absolute(&lab.dir.join(path)).into());
            }
        }
    }
    for test in manifest["test"].as_array_mut().unwrap() {
        let path = test["path"].as_str().unwrap().to_string();
        test.as_table_mut()
            .unwrap()
            .insert("path".into(), absolute(&lab.dir.join(path)).into());
    }
    toml::to_string(&manifest).unwrap()
}

/// The lab's lib.rs with every module pointed at its file: the entry's for a learner file,
/// the lab's for everything else.
fn library(lab: &Lab, mutant: &Mutant) -> String {
    let lib = std::fs::read_to_string(lab.dir.join("src/lib.rs")).unwrap();
    let mut out = String::new();
    for line in lib.lines() {
        let module = line
            .trim()
            .strip_prefix("pub mod ")
            .or_else(|| line.trim().strip_prefix("mod "))
            .and_then(|rest| rest.strip_suffix(';'));
        if let Some(module) = module {
            let file = format!("src/{module}.rs");
            let path = if lab.meta.learner_files.contains(&file) {
                mutant.dir.join(&file)
            } else if lab.dir.join(&file).is_file() {
                lab.dir.join(&file)
            } else {
                lab.dir.join(format!("src/{module}/mod.rs"))
            };
            out.push_str(&format!("#[path = {:?}]\n", absolute(&path)));
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn package_name(lab: &Lab, mutant: &Mutant) -> String {
    format!("mutant{}-{}", lab.meta.number, mutant.name)
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
            let package = package_name(&lab, &mutant);
            let dir = ws.join("m").join(&package);
            common::write(&dir.join("Cargo.toml"), &package_manifest(&lab, &package));
            common::write(&dir.join("src/lib.rs"), &library(&lab, &mutant));
            for file in &lab.meta.learner_files {
                if !mutant.dir.join(file).is_file() {
                    problems.push(format!(
                        "lab {} mutant {}: no {file}",
                        lab.meta.number, mutant.name
                    ));
                }
            }
            entries.push((lab.clone(), mutant));
        }
    }
    println!("catalogue: {counts:?}, {} entries in all", entries.len());
    let packages: Vec<String> = entries.iter().map(|(l, m)| package_name(l, m)).collect();
    let names: Vec<&str> = packages.iter().map(String::as_str).collect();
    let started = std::time::Instant::now();
    let built = compile::build(
        &ws,
        &names,
        Artifact::GradedSuite,
        &BuildEnv {
            target_dir: Some(repo().join("target")),
            ..BuildEnv::default()
        },
        Duration::from_secs(1800),
    )
    .unwrap();
    println!("built in {:.1} s", started.elapsed().as_secs_f64());
    let settings = Settings::load(&repo()).unwrap();
    for ((lab, mutant), package) in entries.iter().zip(&packages) {
        let label = format!("lab {} mutant `{}`", lab.meta.number, mutant.name);
        let exe = match built.executable(package) {
            Ok(exe) => exe,
            Err(problem) => {
                problems.push(format!("{label} does not build: {problem:?}"));
                continue;
            }
        };
        let suite_source = std::fs::read_to_string(repo().join(&lab.meta.graded_suite)).unwrap();
        let expected = workbook::meta::graded_test_names(&suite_source);
        let env = SuiteEnv {
            time_limit: settings.time_limit(lab.meta.time_limit_secs),
            output_cap: 1 << 20,
            env: Vec::new(),
            wrap: None,
            cancel: None,
        };
        let started = std::time::Instant::now();
        let run = suite::run(exe, &repo(), &expected, &env);
        let seconds = started.elapsed().as_secs_f64();
        let seen = signature(&run);
        println!(
            "{label}: fails {:?} on {:?} ({seconds:.2} s)",
            seen.fails, seen.invariant
        );
        if mutant.meta.rejected_by.is_empty() {
            problems.push(format!(
                "{label}: mutant.toml names no test that rejects it"
            ));
        }
        for test in &mutant.meta.rejected_by {
            match run.tests.iter().find(|t| &t.name == test) {
                None => problems.push(format!("{label}: `{test}` is not a graded test")),
                Some(t) if t.passed => problems.push(format!(
                    "{label} passes `{test}`, which should reject it: change the world or the invariant so that it fails for the real reason"
                )),
                Some(t) => {
                    if let Some(how) = &t.unreported {
                        problems.push(format!(
                            "{label} fails `{test}` without reporting ({how}), not on an invariant"
                        ));
                    }
                }
            }
        }
        let first = run.tests.iter().find(|t| !t.passed);
        for phrase in &mutant.meta.explains {
            if !first.is_some_and(|t| t.output.contains(phrase.as_str())) {
                problems.push(format!(
                    "{label}: the first failure does not say \"{phrase}\":\n{}",
                    first.map(|t| t.output.as_str()).unwrap_or("(no failure)")
                ));
            }
        }
        if seen != mutant.meta.signature {
            if bless {
                let path = mutant.dir.join("mutant.toml");
                let mut meta = mutant.meta.clone();
                meta.signature = seen;
                std::fs::write(&path, toml::to_string(&meta).unwrap()).unwrap();
            } else {
                problems.push(format!(
                    "{label}: its recorded signature is {:?}, the run shows {seen:?} (BLESS=1 records it)",
                    mutant.meta.signature
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}
