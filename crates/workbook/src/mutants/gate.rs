//! The catalogue, built and judged: what `crates/gates/tests/gates/mutants.rs`, the scaffold's
//! gate and `cargo labs bless` share.
//!
//! Every entry becomes a package of a scratch workspace under `target/mutants`: the
//! learner's manifest renamed (`mutantNN-<entry>`, without the lab's binary), its paths
//! made absolute, and the reference solution's learner files with the entry's edits
//! applied. It depends on the lab's harness like the learner's crate does, so the harness
//! is built once for all of a lab's entries — the very build the workbook's own `cargo
//! test` made, where the workbook's folders can be linked into the scratch workspace —
//! and every entry's own build is its learner files and its graded suite. All the entries build in one cargo run that shares the
//! workspace's build folder; each entry's suite then runs as the grader runs it, and its
//! failures are judged against what its mutant.toml says. An entry whose edit no longer
//! applies is not built: it is named, with its file and its edit.

use super::{Mutant, catalogue, learner_files, signature, solution_dir};
use crate::error::{Error, Result};
use crate::grade::run::{
    GradedSuite, LabRun, RunEnv, SuiteEnv, build_suites, in_parallel, run_built,
};
use crate::grade::{SuiteRun, TestOutcome};
use crate::meta::{Lab, Signature};
use crate::settings::Settings;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The least number of entries each lab's catalogue must have.
pub const PER_LAB: usize = 8;

/// The package name of one entry.
pub fn package_name(lab: &Lab, mutant: &Mutant) -> String {
    format!("mutant{}-{}", lab.meta.number, mutant.name)
}

fn absolute(dir: &Path, path: &str) -> String {
    dir.join(path).display().to_string()
}

/// Every `path = "…"` of a dependency table made absolute, from `dir`.
fn absolute_paths(table: Option<&mut toml::Value>, dir: &Path) {
    let Some(deps) = table.and_then(|d| d.as_table_mut()) else {
        return;
    };
    for (_, dep) in deps.iter_mut() {
        if let Some(path) = dep.get("path").and_then(|p| p.as_str()).map(str::to_string)
            && let Some(dep) = dep.as_table_mut()
        {
            dep.insert("path".into(), absolute(dir, &path).into());
        }
    }
}

/// The package of one entry: the learner's manifest renamed, without its binary, its
/// dependencies (the harness first) and its suite found by absolute paths.
pub fn package_manifest(lab: &Lab, package: &str) -> std::result::Result<String, String> {
    let path = lab.dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut manifest: toml::Table =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let named = (manifest.get_mut("package").and_then(|p| p.as_table_mut()))
        .map(|p| p.insert("name".into(), package.into()));
    if named.is_none() {
        return Err(format!("{} has no [package]", path.display()));
    }
    manifest.remove("bin");
    for table in ["dependencies", "dev-dependencies"] {
        absolute_paths(manifest.get_mut(table), &lab.dir);
    }
    // The graded suite (an example whose root, `src/graded.rs`, is written into the
    // package with the learner's modules beside it: see `write_edited`) is named after the
    // entry's package: the entries build together, and examples of one build share a
    // folder. A test target is found by its absolute path.
    for kind in ["test", "example"] {
        let targets = manifest.get_mut(kind).and_then(|t| t.as_array_mut());
        for target in targets
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_table_mut())
        {
            if kind == "example" {
                target.insert("name".into(), format!("graded-{package}").into());
            } else if let Some(suite) = target.get("path").and_then(|p| p.as_str()) {
                let suite = absolute(&lab.dir, suite);
                target.insert("path".into(), suite.into());
            }
        }
    }
    toml::to_string(&manifest).map_err(|e| e.to_string())
}

fn write(path: &Path, text: &str) -> std::result::Result<(), String> {
    let parent = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .and_then(|()| std::fs::write(path, text))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the package of one entry into `dir`: the solution's sources (its learner files,
/// and the root that names them when the lab has several) with the entry's edits applied
/// to the learner files. Writes nothing, and says which entry and which edit, when an
/// edit no longer applies.
pub fn write_package(lab: &Lab, mutant: &Mutant, dir: &Path) -> std::result::Result<(), String> {
    let files = learner_files(lab, mutant).map_err(|e| e.to_string())?;
    write_edited(lab, &package_name(lab, mutant), &files, dir)
}

/// Writes a package named `package` into `dir`: the learner's manifest renamed
/// ([`package_manifest`]) and the solution's sources with `files` (learner files, as
/// (path relative to the lab's folder, text)) in place of the reference's.
pub fn write_edited(
    lab: &Lab,
    package: &str,
    files: &[(String, String)],
    dir: &Path,
) -> std::result::Result<(), String> {
    let manifest = package_manifest(lab, package)?;
    let solution =
        solution_dir(lab).ok_or_else(|| format!("{}: no workbook", lab.dir.display()))?;
    write(&dir.join("Cargo.toml"), &manifest)?;
    for source in rust_files(&solution.join("src")) {
        let rel = source.strip_prefix(&solution).unwrap_or(&source);
        let text =
            std::fs::read_to_string(&source).map_err(|e| format!("{}: {e}", source.display()))?;
        write(&dir.join(rel), &text)?;
    }
    for (file, text) in files {
        write(&dir.join(file), text)?;
    }
    let root = dir.join("src/graded.rs");
    let text = std::fs::read_to_string(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    write(&root, &suite_by_absolute_path(lab, &text))
}

/// A `src/graded.rs` for a package outside the workbook's tree: the module of the graded
/// suite is found by absolute path.
fn suite_by_absolute_path(lab: &Lab, graded_root: &str) -> String {
    let repo = lab.dir.join("../..");
    let suite = repo.join(&lab.meta.graded_suite).display().to_string();
    graded_root
        .lines()
        .map(|line| match line.starts_with("#[path = ") {
            true => format!("#[path = {suite:?}]"),
            false => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for path in std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
    {
        if path.is_dir() {
            found.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
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
                let crashed = matches!(
                    t.outcome,
                    TestOutcome::Crashed | TestOutcome::TimedOut | TestOutcome::Void
                );
                if let (true, Some(how)) = (crashed, &t.detail) {
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
    lab: &Lab,
    mutant: &Mutant,
    run: &SuiteRun,
) -> (Signature, Option<String>) {
    let seen = signature(run);
    let problem = (seen != mutant.meta.signature).then(|| {
        format!(
            "{label}: its recorded signature is {:?}, the run shows {seen:?}; `cargo labs bless {}` records it",
            mutant.meta.signature, lab.meta.number
        )
    });
    (seen, problem)
}

/// The scratch workspace's manifest: the workbook's, its members the entries' packages
/// (`m/*`) — and, when `linked` (the workbook's folders are linked into the scratch
/// workspace, [`link_members`]), the workbook's own members too, at the paths the
/// workbook has them; otherwise the workbook's crates are found by absolute paths.
fn scratch_manifest(root: &Path, linked: bool) -> Result<String> {
    let path = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::reading(&path, e))?;
    let mut manifest: toml::Table =
        toml::from_str(&text).map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
    let workspace = (manifest.get_mut("workspace").and_then(|w| w.as_table_mut()))
        .ok_or_else(|| Error::input(format!("{} has no [workspace]", path.display())))?;
    let mut members = vec![toml::Value::from("m/*")];
    if linked {
        let own = workspace.get("members").and_then(|m| m.as_array());
        members.extend(own.into_iter().flatten().cloned());
    } else {
        absolute_paths(workspace.get_mut("dependencies"), root);
    }
    workspace.insert("members".into(), toml::Value::Array(members));
    workspace.remove("default-members");
    toml::to_string(&manifest).map_err(|e| Error::input(e.to_string()))
}

/// The member globs of the workbook's workspace.
fn workspace_members(root: &Path) -> Result<Vec<String>> {
    let path = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::reading(&path, e))?;
    let manifest: toml::Table =
        toml::from_str(&text).map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
    let members = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .map(|m| {
            m.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        });
    Ok(members.unwrap_or_default())
}

/// Links the scratch workspace's `<folder>` to the workbook's for every top folder of the
/// workbook's members (`crates`, `labs`, `solutions`), so that the scratch workspace
/// holds the workbook's crates at the paths the workbook does. Cargo names the build of
/// a workspace member by its path inside the workspace: linked, the harnesses, the kit
/// and the simulators the workbook's own build made are this workspace's builds too, and
/// only the entries compile. False where a link cannot be made (a Windows account
/// without the right to make them): then the scratch workspace builds them once more.
fn link_members(root: &Path, ws: &Path) -> bool {
    let Ok(members) = workspace_members(root) else {
        return false;
    };
    let mut folders: Vec<&str> = (members.iter())
        .filter_map(|m| m.split('/').next())
        .collect();
    folders.sort();
    folders.dedup();
    folders.iter().all(|folder| {
        let (link, to) = (ws.join(folder), root.join(folder));
        if std::fs::read_link(&link).is_ok_and(|at| at == to) {
            return true;
        }
        let _ = std::fs::remove_file(&link);
        #[cfg(unix)]
        let made = std::os::unix::fs::symlink(&to, &link);
        #[cfg(windows)]
        let made = std::os::windows::fs::symlink_dir(&to, &link);
        made.is_ok()
    })
}

/// `manifest` (an entry's, its dependencies by absolute paths into the workbook at
/// `root`) with those paths through the scratch workspace `ws`'s links instead.
fn through_links(manifest: &str, root: &Path, ws: &Path) -> String {
    let Ok(mut table) = toml::from_str::<toml::Table>(manifest) else {
        return manifest.to_string();
    };
    for deps in ["dependencies", "dev-dependencies"] {
        let Some(deps) = table.get_mut(deps).and_then(|d| d.as_table_mut()) else {
            continue;
        };
        for (_, dep) in deps.iter_mut() {
            let Some(dep) = dep.as_table_mut() else {
                continue;
            };
            let linked = (dep.get("path").and_then(|p| p.as_str()))
                .and_then(|p| Path::new(p).strip_prefix(root).ok())
                .map(|rel| ws.join(rel).display().to_string());
            if let Some(linked) = linked {
                dep.insert("path".into(), linked.into());
            }
        }
    }
    toml::to_string(&table).unwrap_or_else(|_| manifest.to_string())
}

/// One entry's graded run, judged.
#[derive(Debug)]
pub struct EntryRun {
    /// `lab 01 mutant `name``
    pub label: String,
    pub mutant: Mutant,
    /// The signature its run shows (recorded or not).
    pub seen: Signature,
    /// Everything wrong with it but a stale signature: the build, the tests it should
    /// fail, its explanation.
    pub problems: Vec<String>,
    /// The complaint when its recorded signature is not the one its run shows.
    pub stale_signature: Option<String>,
    /// What its first failing test printed: the timeline and the explanation a learner
    /// reads (`None` when it failed nothing or did not build).
    pub first_failure: Option<String>,
    pub seconds: f64,
}

/// The catalogue of some labs, built and run.
#[derive(Debug, Default)]
pub struct CatalogueRun {
    /// What keeps an entry from being built (an edit that no longer applies), and a
    /// catalogue too small.
    pub problems: Vec<String>,
    pub entries: Vec<EntryRun>,
    pub build_seconds: f64,
}

impl CatalogueRun {
    /// Every problem, stale signatures included.
    pub fn all_problems(&self) -> Vec<String> {
        let mut all = self.problems.clone();
        for entry in &self.entries {
            all.extend(entry.problems.iter().cloned());
            all.extend(entry.stale_signature.iter().cloned());
        }
        all
    }
}

/// Every entry of the catalogues of `labs`, with its learner files: the entries that can
/// be written, and the problems of those that cannot.
fn entries_of(labs: &[Lab]) -> (Vec<(Lab, Mutant)>, Vec<Edited>, Vec<String>) {
    let (mut entries, mut packages, mut problems) = (Vec::new(), Vec::new(), Vec::new());
    for lab in labs {
        let found = match catalogue(lab) {
            Ok(found) => found,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        if found.len() < PER_LAB {
            problems.push(format!(
                "lab {}: the catalogue has {} wrong solutions; it needs at least {PER_LAB}",
                lab.meta.number,
                found.len()
            ));
        }
        for mutant in found {
            match edited(lab, &mutant) {
                Ok(package) => {
                    packages.push(package);
                    entries.push((lab.clone(), mutant));
                }
                Err(problem) => problems.push(problem),
            }
        }
    }
    (entries, packages, problems)
}

/// The package of `mutant`, an entry of `lab`'s catalogue or one built outside it: its
/// learner files as the edits make them, or which edit no longer applies.
fn edited(lab: &Lab, mutant: &Mutant) -> std::result::Result<Edited, String> {
    let files = learner_files(lab, mutant).map_err(|e| e.to_string())?;
    Ok(Edited {
        lab: lab.clone(),
        package: package_name(lab, mutant),
        files,
    })
}

/// One package of a scratch workspace: a lab's learner files as edits of its reference
/// solution make them (a catalogue entry, a step's starter).
#[derive(Clone, Debug)]
pub struct Edited {
    pub lab: Lab,
    /// Its package name, unique in the workspace (`mutant08-…`, `step08-2`).
    pub package: String,
    /// The learner files, as (path relative to the lab's folder, text).
    pub files: Vec<(String, String)>,
}

/// The graded runs of some edited packages, in their order, and how long they took.
#[derive(Debug)]
pub struct EditedRuns {
    /// Each package's graded run and its seconds.
    pub runs: Vec<(LabRun, f64)>,
    pub build_seconds: f64,
}

/// Writes `packages` as the members of the scratch workspace `target/<scratch>` of the
/// workbook at `root`, builds all of them (and their suites) in one cargo run that shares
/// the workspace's build folder, and runs each package's graded suite as the grader
/// runs it: as many packages at once as there are cores, each test of one package after
/// the other.
pub fn build_and_run(
    root: &Path,
    scratch: &str,
    packages: &[Edited],
    settings: &Settings,
) -> Result<EditedRuns> {
    let ws = root.join("target").join(scratch);
    let _ = std::fs::remove_dir_all(ws.join("m"));
    std::fs::create_dir_all(&ws).map_err(|e| Error::writing(&ws, e))?;
    let linked = link_members(root, &ws);
    let manifest = scratch_manifest(root, linked)?;
    write(&ws.join("Cargo.toml"), &manifest).map_err(Error::input)?;
    let _ = std::fs::copy(root.join("Cargo.lock"), ws.join("Cargo.lock"));
    for p in packages {
        let dir = ws.join("m").join(&p.package);
        write_edited(&p.lab, &p.package, &p.files, &dir).map_err(Error::input)?;
        if linked {
            let path = dir.join("Cargo.toml");
            let text = std::fs::read_to_string(&path).map_err(|e| Error::reading(&path, e))?;
            write(&path, &through_links(&text, root, &ws)).map_err(Error::input)?;
        }
    }
    let names: Vec<&str> = packages.iter().map(|p| p.package.as_str()).collect();
    let started = Instant::now();
    let env = RunEnv::gate(Some(root.join("target")));
    let built = build_suites(&ws, &names, &env)?;
    let build_seconds = started.elapsed().as_secs_f64();
    let one_at_a_time = RunEnv {
        tests: SuiteEnv {
            jobs: 1,
            ..RunEnv::gate(None).tests
        },
        ..RunEnv::gate(None)
    };
    let runs = in_parallel(packages, |p| {
        let suite = GradedSuite::for_package(&p.lab, &p.package, root, settings);
        let started = Instant::now();
        let run = run_built(&built, root, &suite, &one_at_a_time);
        (run, started.elapsed().as_secs_f64())
    });
    Ok(EditedRuns {
        runs,
        build_seconds,
    })
}

/// Builds every entry of the catalogues of `labs` (in the workbook at `root`) in one
/// cargo run, runs each entry's graded suite, and judges it.
pub fn run(root: &Path, labs: &[Lab], settings: &Settings) -> Result<CatalogueRun> {
    let (entries, packages, problems) = entries_of(labs);
    let done = build_and_run(root, "mutants", &packages, settings)?;
    let entries = (entries.iter().zip(done.runs))
        .map(|((lab, mutant), (run, seconds))| judged(lab, mutant, run, seconds))
        .collect();
    Ok(CatalogueRun {
        problems,
        entries,
        build_seconds: done.build_seconds,
    })
}

/// An entry built outside the catalogue, with its graded run.
pub type EntryOutcome = (Lab, Mutant, LabRun);

/// Builds wrong solutions that are not in the catalogue (`entries`, each a lab and edits
/// of its reference solution) in the scratch workspace `target/<scratch>`, the way the
/// catalogue's entries are built, and runs each one's graded suite: the runs, in order,
/// and the problems of entries whose edits do not apply.
pub fn run_entries(
    root: &Path,
    scratch: &str,
    entries: Vec<(Lab, Mutant)>,
    settings: &Settings,
) -> Result<(Vec<EntryOutcome>, Vec<String>)> {
    let (mut written, mut packages, mut problems) = (Vec::new(), Vec::new(), Vec::new());
    for (lab, mutant) in entries {
        match edited(&lab, &mutant) {
            Ok(package) => {
                packages.push(package);
                written.push((lab, mutant));
            }
            Err(problem) => problems.push(problem),
        }
    }
    let done = build_and_run(root, scratch, &packages, settings)?;
    let runs = (written.into_iter().zip(done.runs))
        .map(|((lab, mutant), (run, _))| (lab, mutant, run))
        .collect();
    Ok((runs, problems))
}

/// One entry's run, judged.
fn judged(lab: &Lab, mutant: &Mutant, run: LabRun, seconds: f64) -> EntryRun {
    let label = format!("lab {} mutant `{}`", lab.meta.number, mutant.name);
    let mut entry = EntryRun {
        label: label.clone(),
        mutant: mutant.clone(),
        seen: Signature::default(),
        problems: Vec::new(),
        stale_signature: None,
        first_failure: None,
        seconds,
    };
    match run {
        LabRun::Ran(run) => {
            let (seen, stale) = signature_problem(&label, lab, mutant, &run);
            entry.problems = judge(&label, mutant, &run);
            let first = run.tests.iter().find(|t| !t.passed());
            entry.first_failure = first.map(|t| t.output.clone());
            entry.seen = seen;
            entry.stale_signature = stale;
        }
        other => entry
            .problems
            .push(format!("{label} does not build: {other:?}")),
    }
    entry
}

/// Records the signature `entry`'s run showed in its mutant.toml; whether it changed.
pub fn record_signature(entry: &EntryRun) -> Result<bool> {
    let path = entry.mutant.dir.join("mutant.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::reading(&path, e))?;
    let blessed = super::with_signature(&text, &entry.seen);
    if blessed == text {
        return Ok(false);
    }
    crate::write_atomically(&path, &blessed).map_err(|e| Error::writing(&path, e))?;
    Ok(true)
}
