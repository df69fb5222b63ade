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
