//! What the CLI's tests share: the repository, scratch workbooks, running the built CLI,
//! and tiny labs built on the real lab kit. Each test file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

static SCRATCH: AtomicU32 = AtomicU32::new(0);

/// The workbook's repository.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every lab of the workbook, whatever `LABS_ONLY` says: for tests that need a lab's
/// items rather than test the lab (the poll's).
pub fn every_lab() -> Vec<workbook::meta::Lab> {
    let loaded = workbook::meta::load_labs(&repo()).expect("labs/ can be read");
    assert!(
        loaded.broken.is_empty(),
        "every lab.toml parses: {:?}",
        loaded.broken
    );
    loaded.labs
}

/// The workbook's labs, or only those named in `LABS_ONLY` (e.g. `LABS_ONLY=01,05`) while
/// a lab is being written. Every lab.toml must load.
pub fn labs() -> Vec<workbook::meta::Lab> {
    let labs = every_lab();
    match std::env::var("LABS_ONLY") {
        Ok(only) => {
            let wanted: Vec<&str> = only.split(',').map(str::trim).collect();
            labs.into_iter()
                .filter(|l| wanted.contains(&l.meta.number.as_str()))
                .collect()
        }
        Err(_) => labs,
    }
}

/// A fresh, empty scratch folder named after `what`, unique in this test run.
pub fn scratch_dir(what: &str) -> PathBuf {
    let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
    let dir = process_scratch().join(format!("{what}-{n}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// This test process's folder for scratch workbooks: `<temp>/boundary-tests/<pid>`, held
/// by a lock on `<pid>.lock` beside it while the process runs. The system drops the locks
/// of a process that has ended, so a folder whose lock can be taken is left over from an
/// earlier run: the first scratch folder of a process removes those. A run leaves nothing
/// behind that outlives the next one, and never touches a folder of a run still going.
fn process_scratch() -> &'static Path {
    static ROOT: std::sync::OnceLock<(PathBuf, std::fs::File)> = std::sync::OnceLock::new();
    let (root, _held) = ROOT.get_or_init(|| {
        let base = std::env::temp_dir().join("boundary-tests");
        std::fs::create_dir_all(&base).unwrap();
        let me = std::process::id().to_string();
        let lock = std::fs::File::create(base.join(format!("{me}.lock"))).unwrap();
        lock.lock().unwrap();
        remove_ended_runs(&base, &me);
        let root = base.join(&me);
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        (root, lock)
    });
    root
}

/// Removes the scratch folders of ended test processes: those whose lock file is free.
fn remove_ended_runs(base: &Path, me: &str) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let (Some(pid), Some("lock")) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|e| e.to_str()),
        ) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(file) = std::fs::File::open(&path) else {
            continue;
        };
        if file.try_lock().is_ok() {
            let _ = std::fs::remove_dir_all(base.join(pid));
            drop(file);
            let _ = std::fs::remove_file(&path);
        }
    }
}

pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A scratch workbook with lab 01's metadata and starter file (enough for every command
/// that does not build the lab).
pub fn lab01_metadata() -> PathBuf {
    let root = scratch_dir("cli");
    let lab = root.join("labs/01-outbox");
    std::fs::create_dir_all(lab.join("src")).unwrap();
    std::fs::write(root.join("book.toml"), "[book]\n").unwrap();
    for file in ["lab.toml", "key.txt"] {
        let from = repo().join("labs/01-outbox").join(file);
        // key.txt exists in the student edition only (the teacher's lab.toml holds the keys).
        if from.exists() {
            std::fs::copy(from, lab.join(file)).unwrap();
        }
    }
    // The starter as published, whatever the learner of this copy made of it.
    let labs = workbook::meta::load_labs(&repo()).unwrap().labs;
    let outbox = labs.iter().find(|l| l.meta.id == "outbox").unwrap();
    let starter = workbook::starters::published_starter(&repo(), outbox, "src/relay.rs").unwrap();
    std::fs::write(lab.join("src/relay.rs"), starter).unwrap();
    root
}

/// The CLI's binary: the workbook crate's own, or the copy the teacher's gates build
/// (a test can only name the binaries of its own package).
pub fn cli_binary() -> &'static str {
    option_env!("CARGO_BIN_EXE_workbook")
        .or(option_env!("CARGO_BIN_EXE_workbook-cli"))
        .expect("the CLI's binary is built with the tests")
}

/// The built CLI, pointed at the workbook in `root`, without colour.
pub fn cli(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(cli_binary());
    command
        .args(args)
        .env("BOUNDARY_LABS_ROOT", root)
        .env_remove("BOUNDARY_LABS_STATE")
        .env("NO_COLOR", "1");
    command
}

pub fn run_cli(root: &Path, args: &[&str]) -> Output {
    cli(root, args).output().unwrap()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Where tiny labs are built: one folder for the whole test run (and the next ones), so
/// the lab kit is compiled once. Cargo locks it; results never depend on what is there.
pub fn shared_target() -> PathBuf {
    let target = repo().join("target/scratch-target");
    static SEEDED: std::sync::Once = std::sync::Once::new();
    SEEDED.call_once(|| seed_dependency_builds(&target));
    target
}

/// A tiny lab on the real lab kit: `tests` is the body of its graded suite (the functions
/// named in `names`), `starter_fails` the tests whose passing earns points.
pub struct TinyLab<'a> {
    pub number: &'a str,
    pub id: &'a str,
    pub names: &'a [&'a str],
    pub tests: &'a str,
    /// Extra code in the lab's library (the learner file `src/lib.rs`).
    pub library: &'a str,
    pub starter_fails: &'a [&'a str],
    pub time_limit_secs: u64,
    /// The body of the lab binary's `main`; empty: it prints a fixed report.
    pub main: &'a str,
}

/// A scratch workbook whose workspace holds `labs`, each with a graded suite on the real
/// lab kit, and a binary printing a fixed report that answers its two questions `yes`
/// (the key's answer: the claim holds) and `no` (the claim fails).
pub fn tiny_workbook(what: &str, labs: &[TinyLab<'_>]) -> PathBuf {
    let root = scratch_dir(what);
    // The lab kit is copied in, so the workbook is whole on its own: `grade-class` exports
    // it and builds the export in a sandbox that shows nothing outside it.
    copy_tree(&repo().join("crates/labkit"), &root.join("crates/labkit"));
    copy_tree(
        &repo().join("crates/unified-features"),
        &root.join("crates/unified-features"),
    );
    copy_tree(&repo().join("crates/graded"), &root.join("crates/graded"));
    write(&root.join("book.toml"), "[book]\n");
    // A teacher's edition (its keys are in lab.toml), where the teacher's commands run.
    std::fs::create_dir_all(root.join("solutions")).unwrap();
    write(&root.join("Cargo.toml"), &tiny_manifest());
    for lab in labs {
        let (number, id) = (lab.number, lab.id);
        let dir = root.join(format!("labs/{number}-{id}"));
        write(
            &dir.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"lab{number}-{id}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
                 [lib]\nname = \"tiny{number}\"\npath = \"src/lib.rs\"\n\n\
                 [[bin]]\nname = \"lab{number}-{id}\"\npath = \"src/main.rs\"\n\n\
                 [[example]]\nname = \"graded-lab{number}-{id}\"\npath = \"../../tests/{number}_{id}.rs\"\n\n\
                 [dependencies]\nlabkit.workspace = true\n\n[dev-dependencies]\ngraded.workspace = true\n"
            ),
        );
        write(&dir.join("src/lib.rs"), lab.library);
        write(
            &dir.join("src/main.rs"),
            &format!(
                "fn main() {{ {} println!(\"{{}}\", r#\"{{\"lab\":\"{id}\",\"checks\":[{{\"ask\":\"Does it work?\",\"yes\":true}},{{\"ask\":\"Is it magic?\",\"yes\":false}}],\"questions\":[],\"sqlite\":null,\"summary\":null}}\"#); }}\n",
                lab.main
            ),
        );
        write(
            &root.join(format!("tests/{number}_{id}.rs")),
            &format!(
                "#![allow(unused)]\nuse tiny{number} as lab;\ngraded::suite![{}];\n{}\n",
                lab.names.join(", "),
                lab.tests
            ),
        );
        let fails: Vec<String> = lab.starter_fails.iter().map(|n| format!("{n:?}")).collect();
        write(
            &dir.join("lab.toml"),
            &format!(
                "id = \"{id}\"\nnumber = \"{number}\"\ntitle = \"Tiny {id}\"\npackage = \"lab{number}-{id}\"\n\
                 solution_package = \"none\"\nchapter = \"book/src/x.md\"\ngraded_suite = \"tests/{number}_{id}.rs\"\n\
                 learner_files = [\"src/lib.rs\"]\ntime_limit_secs = {}\nstarter_fails = [{}]\nhints = [\"h\"]\n\n\
                 [points]\npredictions = 10\ngraded = 20\n\n[published]\n\"labs/{number}-{id}/src/lib.rs\" = \"{}\"\n\n\
                 [[check]]\nclaim = \"it works\"\nask = \"Does it work?\"\nholds = true\nexplain = \"e\"\n\n\
                 [[check]]\nclaim = \"it is magic\"\nask = \"Is it magic?\"\nholds = false\nexplain = \"e\"\n",
                lab.time_limit_secs,
                fails.join(", "),
                workbook::blob::blob_id(lab.library.as_bytes())
            ),
        );
    }
    root
}

/// The tiny workspace's manifest: the workbook's package settings, lints and the lab kit's
/// dependencies, with the kit itself in `crates/labkit`.
fn tiny_manifest() -> String {
    let real: toml::Table =
        toml::from_str(&std::fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
    let workspace = real["workspace"].as_table().unwrap();
    let mut dependencies = toml::Table::new();
    for name in ["serde", "serde_json"] {
        dependencies.insert(name.into(), workspace["dependencies"][name].clone());
    }
    for kit in ["labkit", "unified-features", "graded"] {
        let mut path = toml::Table::new();
        path.insert("path".into(), format!("crates/{kit}").into());
        dependencies.insert(kit.into(), path.into());
    }
    let mut tiny = toml::Table::new();
    tiny.insert("resolver".into(), "3".into());
    tiny.insert("members".into(), vec!["labs/*".to_string()].into());
    tiny.insert("package".into(), workspace["package"].clone());
    tiny.insert("lints".into(), workspace["lints"].clone());
    tiny.insert("dependencies".into(), dependencies.into());
    let mut manifest = toml::Table::new();
    manifest.insert("workspace".into(), tiny.into());
    toml::to_string(&manifest).unwrap()
}

/// Copies the files under `from` to `to` (no build products).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            if entry.file_name() != "target" {
                copy_tree(&source, &target);
            }
        } else {
            std::fs::copy(&source, &target).unwrap();
        }
    }
}

/// Seals `answers` (item id, `q01`… → `yes`/`no`/a letter) for the lab in `root/labs/<slug>` the
/// way `cargo labs run` does, and writes predictions.txt.
pub fn sealed_predictions(root: &Path, slug: &str, answers: &[(&str, &str)]) -> String {
    let labs = workbook::meta::load_labs(root).unwrap();
    let lab = labs.labs.iter().find(|l| l.slug() == slug).unwrap();
    let text: String = answers
        .iter()
        .map(|(id, a)| format!("{id} = {a}\n"))
        .collect();
    let parsed = workbook::predictions::parse(lab, &text).unwrap();
    let seal = workbook::predictions::Seal::new(lab, &parsed.answers, "2026-12-01T00:00:00Z");
    let sealed = workbook::predictions::with_seal(&text, &seal);
    write(&lab.predictions_path(), &sealed);
    sealed
}

/// The processes whose command line mentions `marker` (Linux: read from /proc).
#[cfg(target_os = "linux")]
pub fn processes_mentioning(marker: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push((pid, cmdline));
            }
        }
    }
    found
}

/// The last lines of a long text, for assertion messages.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// How many hints a lab of the workbook has (its key's).
pub fn hint_count(lab_id: &str) -> usize {
    let labs = workbook::meta::load_labs(&repo()).unwrap().labs;
    labs.iter()
        .find(|l| l.meta.id == lab_id)
        .map(|l| l.key.hints.len())
        .unwrap_or(0)
}

/// Gives the build folder `target` (its `debug` profile) the builds of the registry
/// crates this test run's own build folder already holds, so that a second workspace
/// built there (the student edition, a class's submissions) compiles only its own crates.
/// Cargo names a registry crate's build by a hash of what it was built from (version,
/// features, profile, compiler), so it reuses exactly the builds that match and rebuilds
/// the others; a workspace crate is never copied (its build is named by its path inside
/// the workspace, which two workspaces share). Copies keep their modification times, by
/// which cargo orders a build against its dependencies'.
pub fn seed_dependency_builds(target: &Path) {
    let ours = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("debug");
    let lock = std::fs::read_to_string(repo().join("Cargo.lock")).unwrap();
    let registry: Vec<&str> = (lock.split("[[package]]").skip(1))
        .filter(|entry| entry.contains("source = \"registry+"))
        .filter_map(|entry| entry.lines().find_map(|l| l.strip_prefix("name = ")))
        .map(|name| name.trim_matches('"'))
        .collect();
    // The hashes of our registry builds, from their fingerprint folders `<name>-<hash>`.
    let hashes: std::collections::BTreeSet<String> = std::fs::read_dir(ours.join(".fingerprint"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let (package, hash) = name.rsplit_once('-')?;
            registry.contains(&package).then(|| hash.to_string())
        })
        .collect();
    for folder in ["deps", "build", ".fingerprint"] {
        let Ok(entries) = std::fs::read_dir(ours.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stem = name.split('.').next().unwrap_or("");
            let ours = stem
                .rsplit_once('-')
                .is_some_and(|(_, h)| hashes.contains(h));
            let to = target.join("debug").join(folder).join(&name);
            if ours && !to.exists() {
                copy_keeping_times(&entry.path(), &to);
            }
        }
    }
}

fn copy_keeping_times(from: &Path, to: &Path) {
    let meta = std::fs::symlink_metadata(from).unwrap();
    if meta.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            copy_keeping_times(&entry.path(), &to.join(entry.file_name()));
        }
    } else if meta.is_file() {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
        let file = std::fs::File::options().write(true).open(to).unwrap();
        file.set_modified(meta.modified().unwrap()).unwrap();
    }
}
