//! How the catalogue gate (tests/mutants.rs) builds and judges a wrong solution, for any
//! lab in any workbook: each entry becomes a package of a scratch workspace (the lab's
//! own modules, the reference solution's learner files with the entry's edits applied in
//! place of the learner's, the lab's graded suite), and its graded run must fail every
//! test it names, on an invariant, saying what its `explains` says, with the signature
//! its mutant.toml records.

use std::path::Path;
use workbook::grade::{SuiteRun, TestOutcome};
use workbook::meta::{Lab, Signature};
use workbook::mutants::{Mutant, learner_files, signature};

fn absolute(path: &Path) -> String {
    path.display().to_string()
}

/// The package name of one entry.
pub fn package_name(lab: &Lab, mutant: &Mutant) -> String {
    format!("mutant{}-{}", lab.meta.number, mutant.name)
}

/// The package of one entry: the lab's manifest renamed, without its binary, with the
/// suite's path made absolute.
pub fn package_manifest(lab: &Lab, package: &str) -> String {
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

/// The lab's lib.rs with every module pointed at its file: the package's own (in `dir`)
/// for a learner file, the lab's for everything else.
pub fn library(lab: &Lab, dir: &Path) -> String {
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
                dir.join(&file)
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

/// Writes the package of one entry into `dir`: its learner files are the reference
/// solution's with the entry's edits applied. Writes nothing, and says which entry and
/// which edit, when an edit no longer applies.
pub fn write_package(lab: &Lab, mutant: &Mutant, dir: &Path) -> Result<(), String> {
    let files = learner_files(lab, mutant).map_err(|e| e.to_string())?;
    let package = package_name(lab, mutant);
    crate::common::write(&dir.join("Cargo.toml"), &package_manifest(lab, &package));
    crate::common::write(&dir.join("src/lib.rs"), &library(lab, dir));
    for (file, text) in files {
        crate::common::write(&dir.join(file), &text);
    }
    Ok(())
}

/// What is wrong with the graded `run` of one entry (`label` names it), its signature
/// aside ([`signature_problem`]).
pub fn judge(label: &str, mutant: &Mutant, run: &SuiteRun) -> Vec<String> {
    let mut problems = Vec::new();
    if mutant.meta.rejected_by.is_empty() {
        problems.push(format!(
            "{label}: mutant.toml names no test that rejects it"
        ));
    }
    for test in &mutant.meta.rejected_by {
        match run.tests.iter().find(|t| &t.name == test) {
            None => problems.push(format!("{label}: `{test}` is not a graded test")),
            Some(t) if t.passed() => problems.push(format!(
                "{label} passes `{test}`, which should reject it: change the world or the invariant so that it fails for the real reason"
            )),
            Some(t) => {
                if let (TestOutcome::Crashed | TestOutcome::TimedOut | TestOutcome::Void, Some(how)) = (t.outcome, &t.detail) {
                    problems.push(format!(
                        "{label} fails `{test}` without reporting ({how}), not on an invariant"
                    ));
                }
            }
        }
    }
    let first = run.tests.iter().find(|t| !t.passed());
    for phrase in &mutant.meta.explains {
        if !first.is_some_and(|t| t.output.contains(phrase.as_str())) {
            problems.push(format!(
                "{label}: the first failure does not say \"{phrase}\":\n{}",
                first.map(|t| t.output.as_str()).unwrap_or("(no failure)")
            ));
        }
    }
    problems
}

/// The signature `run` shows, and the complaint when it is not the one the entry records.
pub fn signature_problem(
    label: &str,
    mutant: &Mutant,
    run: &SuiteRun,
) -> (Signature, Option<String>) {
    let seen = signature(run);
    let problem = (seen != mutant.meta.signature).then(|| {
        format!(
            "{label}: its recorded signature is {:?}, the run shows {seen:?} (BLESS=1 records it)",
            mutant.meta.signature
        )
    });
    (seen, problem)
}
