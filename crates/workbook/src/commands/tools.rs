//! `hint`, `reset`, `replay`, `figures` and `book`.

use super::{Workbook, build_error, lab_binary};
use crate::compile::{self, Artifact, BuildEnv};
use crate::error::{Error, Result};
use crate::meta::Lab;
use crate::process::{self, Ending, Job};
use crate::{backup, write_atomically};
use colored::Colorize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `cargo labs hint N`: the next hint, one at a time.
pub fn hint(wb: &Workbook, lab: &Lab) -> Result<()> {
    let progress = wb.progress()?;
    let hints = &lab.key.hints;
    let shown = progress.hints_shown(&lab.meta.id);
    let total = hints.len();
    let index = shown.min(total.saturating_sub(1));
    for (i, text) in hints.iter().enumerate().take(index) {
        println!(
            "{} {}",
            format!("hint {}/{total}:", i + 1).dimmed(),
            text.dimmed()
        );
    }
    match hints.get(index) {
        Some(text) => println!("{} {text}", format!("hint {}/{total}:", index + 1).bold()),
        None => println!("lab {} has no hints", lab.meta.number),
    }
    if shown < total {
        progress.set_hints_shown(&lab.meta.id, shown + 1)?;
    }
    if index + 1 == total {
        println!("(that was the last hint; the chapter and the failing timeline say the rest)");
    }
    Ok(())
}

/// Where the student edition keeps the published starters, for `reset` without git.
pub const STARTERS: &str = ".starters";

/// The published text of one learner file: the copy under `.starters/` (the student
/// edition), the file itself while it is unchanged, or git's copy of the published blob
/// (the teacher's edition).
pub fn published_starter(root: &Path, lab: &Lab, file: &str) -> Result<String> {
    let key = lab.learner_path(file);
    let blob = lab
        .meta
        .published
        .get(&key)
        .ok_or_else(|| Error::input(format!("lab.toml has no published version of {key}")))?;
    let copy = root.join(STARTERS).join(lab.slug()).join(file);
    if let Ok(text) = std::fs::read_to_string(&copy) {
        if crate::blob::blob_id(text.as_bytes()) == *blob {
            return Ok(text);
        }
        return Err(Error::input(format!(
            "{} is not the published starter (its hash differs from lab.toml's)",
            copy.display()
        )));
    }
    if let Ok(text) = std::fs::read_to_string(lab.dir.join(file))
        && crate::blob::blob_id(text.as_bytes()) == *blob
    {
        return Ok(text);
    }
    let out = Command::new("git")
        .args(["cat-file", "blob", blob])
        .current_dir(root)
        .output()
        .map_err(|e| {
            Error::input(format!(
                "no published copy of {key}: {} does not exist and git cannot be run ({e})",
                copy.display()
            ))
        })?;
    if !out.status.success() {
        return Err(Error::input(format!(
            "no published copy of {key}: {} does not exist and git does not have blob {blob}",
            copy.display()
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| Error::input(e.to_string()))
}

/// `cargo labs reset N`: restores the starter's learner files, keeping a backup of yours.
pub fn reset(wb: &Workbook, lab: &Lab) -> Result<()> {
    // Read every pristine file first, so a missing one changes nothing at all.
    let mut plan = Vec::new();
    for file in &lab.meta.learner_files {
        let text = published_starter(&wb.root, lab, file)
            .map_err(|e| Error::input(format!("cannot reset {file}: {e}. Nothing was changed.")))?;
        plan.push((lab.dir.join(file), text));
    }
    let mut restored = Vec::new();
    for (path, text) in plan {
        if path.exists() {
            let current = std::fs::read_to_string(&path).unwrap_or_default();
            if current == text {
                continue;
            }
            let saved = backup(&path).map_err(|e| Error::writing(&path, e))?;
            println!("your version is kept as {}", saved.display());
        }
        write_atomically(&path, &text).map_err(|e| Error::writing(&path, e))?;
        restored.push(wb.shown(&path));
    }
    if restored.is_empty() {
        println!("lab {} already holds the starter files", lab.meta.number);
    } else {
        println!("{} {}", "restored".green().bold(), restored.join(", "));
    }
    Ok(())
}

/// The exit code with which a lab binary refuses a token that does not fit its code.
pub const STALE_TOKEN_EXIT: i32 = labkit::STALE_TOKEN_EXIT as i32;

/// `cargo labs replay N SCENARIO TOKEN`: a schedule's timeline, from the learner's code.
pub fn replay(wb: &Workbook, lab: &Lab, scenario: &str, token: &str) -> Result<()> {
    let exe = lab_binary(wb, lab)?;
    let mut command = Command::new(exe);
    command.args(["replay", scenario, token]);
    command.envs(super::terminal_columns());
    let job = Job::new(command, wb.settings.time_limit(lab.meta.time_limit_secs));
    let finished = process::run(job, &wb.root).map_err(|e| Error::io("cannot start the lab", e))?;
    print!("{}", finished.stdout);
    match finished.ending {
        Ending::Exited(0) => Ok(()),
        // The lab binary's usage errors: an unknown scenario or a malformed token.
        Ending::Exited(2) => Err(Error::input(finished.stderr.trim().to_string())),
        Ending::Exited(STALE_TOKEN_EXIT) => Err(Error::lab(finished.stderr.trim().to_string())),
        Ending::Exited(1) => Err(Error::lab(
            "the replayed schedule violates an invariant (see above)",
        )),
        ending => Err(Error::lab(format!(
            "the replay {}:\n{}",
            ending.describe(),
            process::tail(&finished.stderr, 20)
        ))),
    }
}

/// `cargo labs figures [--check]`: writes (or checks) every lab's figures for the book.
pub fn figures(wb: &Workbook, check: bool) -> Result<()> {
    let dir = wb.root.join("book/src/figures");
    let packages: Vec<&str> = wb
        .labs
        .labs
        .iter()
        .map(|l| l.meta.package.as_str())
        .collect();
    let limit = std::time::Duration::from_secs(wb.settings.limits.build_time_limit_secs);
    let built = compile::build(
        &wb.root,
        &packages,
        Artifact::LabBinary,
        &BuildEnv::default(),
        limit,
    )?;
    let mut stale = Vec::new();
    for lab in &wb.labs.labs {
        let exe = built
            .executable(&lab.meta.package)
            .map_err(|problem| build_error(lab, problem))?;
        let mut command = Command::new(exe);
        command.arg("figures").arg(&dir);
        if check {
            command.arg("--check");
        }
        let job = Job::new(command, wb.settings.time_limit(lab.meta.time_limit_secs));
        let finished =
            process::run(job, &wb.root).map_err(|e| Error::io("cannot start the lab", e))?;
        if !finished.success() {
            stale.push(finished.stderr.trim().to_string());
        }
    }
    for (path, text) in crate::pages::generated_pages(&wb.root, &wb.labs.labs) {
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current != text {
            if check {
                stale.push(format!("{} is out of date", path.display()));
            } else {
                std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
                    .and_then(|_| std::fs::write(&path, &text))
                    .map_err(|e| Error::writing(&path, e))?;
            }
        }
    }
    if stale.is_empty() {
        if check {
            println!("figures and generated pages are current");
        } else {
            println!(
                "figures and generated pages written (book/src/figures, book/src/predictions)"
            );
        }
        Ok(())
    } else {
        Err(Error::lab(format!(
            "{}\nregenerate with `cargo labs figures`",
            stale.join("\n")
        )))
    }
}

/// `cargo labs book [--open | --serve]`: builds the book with the mdBook CLI into
/// book/build (offline, search included); `--open` opens it in the browser. `--serve`
/// only builds here: the CLI is installed without mdBook's server, so the binary then
/// serves book/build itself (src/serve.rs).
pub fn book(wb: &Workbook, open: bool) -> Result<PathBuf> {
    let mut args = vec!["build"];
    if open {
        args.push("--open");
    }
    let status = Command::new("mdbook")
        .args(&args)
        .current_dir(&wb.root)
        .status();
    match status {
        Ok(s) if s.success() => {
            let index = wb.root.join("book/build/index.html");
            println!("the book is in {}", index.display());
            Ok(wb.root.join("book/build"))
        }
        Ok(s) => Err(Error::lab(format!(
            "mdbook {} failed ({s})",
            args.join(" ")
        ))),
        Err(_) => Err(Error::input(
            "the mdBook CLI is not installed. Install it once (about a minute and a half, offline afterwards):\n  cargo install mdbook --locked --version ^0.5 --no-default-features --features search",
        )),
    }
}
