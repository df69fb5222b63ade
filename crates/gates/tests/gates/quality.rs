//! Repository-wide quality gates as plain tests, so the one `cargo test` of the README
//! proves them: formatting, clippy with warnings denied, and a book that builds.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn run(mut command: Command, what: &str) {
    let out = command
        .current_dir(root())
        .output()
        .expect("the command starts");
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_code_is_formatted() {
    let mut command = cargo();
    command.args(["fmt", "--all", "--check"]);
    run(command, "`cargo fmt --all --check` (run `cargo fmt --all`)");
}

#[test]
fn clippy_finds_nothing_with_warnings_denied() {
    // Every crate, starters included: a learner's first build should be warning-free.
    let mut command = cargo();
    command.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--quiet",
        "--",
        "-D",
        "warnings",
    ]);
    run(
        command,
        "`cargo clippy --workspace --all-targets -- -D warnings`",
    );
}

#[test]
#[cfg_attr(
    no_mdbook,
    ignore = "mdbook is not installed: cargo install mdbook --locked --version ^0.5 --no-default-features --features search"
)]
fn the_book_builds_with_mdbook() {
    let version = Command::new("mdbook").arg("--version").output();
    let Ok(version) = version else {
        // CI installs the mdBook CLI before `cargo test` (see .ci/run), so there this test
        // always builds the book. A learner without mdBook is told how to install it.
        eprintln!(
            "mdbook is not installed: `cargo install mdbook --locked --version ^0.5 --no-default-features --features search`"
        );
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have mdbook installed"
        );
        return;
    };
    let version = String::from_utf8_lossy(&version.stdout).to_string();
    assert!(
        version.contains("v0.5"),
        "the book is written for mdBook 0.5, found {version}"
    );
    let out_dir = std::env::temp_dir().join(format!("boundary-book-{}", std::process::id()));
    let mut command = Command::new("mdbook");
    command.arg("build").arg("--dest-dir").arg(&out_dir);
    run(command, "`mdbook build`");
    let chapter = std::fs::read_to_string(out_dir.join("01-outbox-after-the-run.html"))
        .expect("chapter 1's page after the run is rendered");
    assert!(
        chapter.contains("relay_outbox"),
        "chapter 1's build phase shows the included relay code"
    );
    // mdBook 0.5 names the index with a content hash (searchindex-<hash>.js).
    let has_index = std::fs::read_dir(&out_dir)
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("searchindex"));
    assert!(has_index, "the offline search index is built");
    let _ = std::fs::remove_dir_all(&out_dir);
}

/// Each registry crate a lab's build uses, with the features the packages of `selection`
/// enable on it: one entry per build of it (cargo builds a crate once for the compiler's
/// side, proc macros and build scripts, and once for the program when the two differ).
fn features_in_build(selection: &[&str]) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut command = cargo();
    command
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build,dev",
            "--prefix",
            "none",
        ])
        .args(["-f", "{p}|{f}"])
        .args(selection)
        .current_dir(root());
    let out = command.output().expect("cargo tree starts");
    assert!(
        out.status.success(),
        "cargo tree {selection:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut crates = std::collections::BTreeMap::<String, Vec<String>>::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        // Workspace crates are named by their path, registry crates by name and version.
        if package.contains(" (/") || package.contains(" (\\") {
            continue;
        }
        let package = package.trim_end_matches(" (proc-macro)").to_string();
        let features = features.trim_end_matches(" (*)").to_string();
        let builds = crates.entry(package).or_default();
        if !builds.contains(&features) {
            builds.push(features);
        }
    }
    crates
}

/// A lab built after the workspace (`cargo labs check` after `cargo labs`, the gates'
/// builds after the root `cargo test`) reuses the workspace's build of every crate they
/// share: cargo enables features per build, so a crate the two builds enable differently
/// is compiled twice, and with it everything above it (serde, rusqlite, the kit, the
/// simulators, the harnesses). `crates/unified-features` asks for the workspace's
/// features in every build.
#[test]
fn one_build_serves_the_workspace_and_the_labs() {
    let labs = workbook::meta::load_labs(&root()).unwrap().labs;
    let mut selection = Vec::new();
    for lab in &labs {
        selection.extend(["-p", lab.meta.package.as_str()]);
    }
    let in_labs = features_in_build(&selection);
    let in_workspace = features_in_build(&[]);
    let mut differ = Vec::new();
    for (package, builds) in &in_labs {
        let workspace = in_workspace.get(package).cloned().unwrap_or_default();
        for features in builds.iter().filter(|f| !workspace.contains(f)) {
            differ.push(format!(
                "{package}: the labs' build enables [{features}], the workspace's [{}]",
                workspace.join("] or [")
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "a lab's build would compile these crates (and every crate above them) again; \
         list the workspace's features in crates/unified-features/Cargo.toml:\n{}",
        differ.join("\n")
    );
}
