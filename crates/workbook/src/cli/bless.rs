//! `cargo labs bless [N …] [--check]`: regenerates everything the gates derive from the
//! code — each lab's figures and generated text, the reference solutions' figures (their
//! crash matrices), the generated book pages, the published hashes of the lab's files in
//! `lab.toml`, and the signatures of the catalogue's wrong solutions (it builds and runs
//! the catalogue) — or, with `--check`, says what is out of date and changes nothing.
//! Every gate that finds derived data stale names this command.

use super::{Command, Section};
use crate::error::{Error, Result};
use crate::grade::build::{self, Artifact, BuildEnv};
use crate::lab_binary::build_error;
use crate::meta::Lab;
use crate::process::{self, Job};
use crate::workbook::Workbook;
use std::path::Path;
use std::process::Command as Process;

pub const COMMAND: Command = Command {
    name: "bless",
    section: Section::Teacher,
    usage: "cargo labs bless [N …] [--check]",
    about: "regenerate what the gates derive from the code: figures, generated pages, the solutions'\ncrash matrices, the published hashes in lab.toml and the catalogue's signatures (--check:\nonly say what is stale)",
    run: |wb, mut args| {
        let check = args.flag("--check");
        let only = args.positional()?;
        bless(wb, &only, check)
    },
};

pub fn bless(wb: &Workbook, only: &[String], check: bool) -> Result<()> {
    let labs = wb.chosen(only)?;
    let mut stale = lab_figures(wb, &labs, check)?;
    stale.extend(solution_figures(wb, &labs, check)?);
    stale.extend(pages(wb, check)?);
    stale.extend(published(wb, &labs, check)?);
    stale.extend(catalogue(wb, &labs, check)?);
    match (stale.is_empty(), check) {
        (true, true) => println!("everything derived is current"),
        (true, false) => println!("nothing derived was out of date"),
        (false, false) => println!("regenerated:\n  {}", stale.join("\n  ")),
        (false, true) => {
            return Err(Error::lab(format!(
                "{}\nregenerate with `cargo labs bless`",
                stale.join("\n")
            )));
        }
    }
    Ok(())
}

/// Each lab binary's `figures` (SVG figures and generated text for its chapter).
fn lab_figures(wb: &Workbook, labs: &[&Lab], check: bool) -> Result<Vec<String>> {
    let dir = wb.root.join("book/src/figures");
    let packages: Vec<&str> = labs.iter().map(|l| l.meta.package.as_str()).collect();
    let limit = std::time::Duration::from_secs(wb.settings.limits.build_time_limit_secs);
    let built = build::build(
        &wb.root,
        &packages,
        Artifact::LabBinary,
        &BuildEnv::default(),
        limit,
    )?;
    let mut stale = Vec::new();
    for lab in labs {
        let exe = built
            .executable(&lab.meta.package)
            .map_err(|p| build_error(lab, p))?;
        let mut command = Process::new(exe);
        command.arg("figures").arg(&dir);
        if check {
            command.arg("--check");
        }
        let job = Job::new(command, wb.settings.time_limit(lab.meta.time_limit_secs));
        let done = process::run(job, &wb.root).map_err(|e| Error::io("cannot start the lab", e))?;
        if !done.success() {
            stale.push(done.stderr.trim().to_string());
        } else if !check {
            stale.extend(
                done.stdout
                    .lines()
                    .filter(|l| l.starts_with("wrote "))
                    .map(str::to_string),
            );
        }
    }
    Ok(stale)
}

/// The figures a reference solution keeps current itself (the crash matrices the
/// chapters show): its `book` test rewrites them under `BLESS=1`.
fn solution_figures(wb: &Workbook, labs: &[&Lab], check: bool) -> Result<Vec<String>> {
    let with_book: Vec<&&Lab> = (labs.iter())
        .filter(|lab| {
            crate::mutants::solution_dir(lab).is_some_and(|d| d.join("tests/book.rs").is_file())
        })
        .collect();
    if with_book.is_empty() {
        return Ok(Vec::new());
    }
    let mut command = process::cargo();
    command.args(["test", "-q", "--test", "book"]);
    for lab in with_book {
        command.args(["-p", &lab.meta.solution_package]);
    }
    if !check {
        command.env("BLESS", "1");
    }
    let limit = std::time::Duration::from_secs(wb.settings.limits.build_time_limit_secs);
    let done = process::run(Job::new(command, limit), &wb.root)
        .map_err(|e| Error::io("cannot start cargo", e))?;
    Ok(if done.success() {
        Vec::new()
    } else {
        vec![format!(
            "the solutions' own figures: {}",
            process::tail(&done.stdout, 12)
        )]
    })
}

/// The generated book pages (each lab's prediction list, the reading times). The
/// reading times count the prediction lists the chapters include, so the pages are
/// generated again until they stand still: one `bless` leaves them current.
fn pages(wb: &Workbook, check: bool) -> Result<Vec<String>> {
    let mut stale: Vec<String> = Vec::new();
    for _pass in 0..3 {
        let mut changed = false;
        for (path, text) in crate::pages::generated_pages(&wb.root, &wb.labs.labs) {
            if std::fs::read_to_string(&path).unwrap_or_default() == text {
                continue;
            }
            let said = match check {
                true => format!("{} is out of date", wb.shown(&path)),
                false => format!("{} (was out of date)", wb.shown(&path)),
            };
            if !stale.contains(&said) {
                stale.push(said);
            }
            if !check {
                changed = true;
                std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))
                    .and_then(|_| std::fs::write(&path, &text))
                    .map_err(|e| Error::writing(&path, e))?;
            }
        }
        if !changed {
            break;
        }
    }
    Ok(stale)
}

/// The `[published]` table of each lab.toml: every file the learner's crate is built
/// from, with its git blob id.
fn published(wb: &Workbook, labs: &[&Lab], check: bool) -> Result<Vec<String>> {
    let mut stale = Vec::new();
    for lab in labs {
        let mut table = String::from("[published]\n");
        for path in lab.publishable(&wb.root) {
            let blob = crate::blob::file_blob(&wb.root.join(&path))
                .map_err(|e| Error::reading(&wb.root.join(&path), e))?;
            table.push_str(&format!("{path:?} = {blob:?}\n"));
        }
        let toml_path = lab.dir.join("lab.toml");
        let text =
            std::fs::read_to_string(&toml_path).map_err(|e| Error::reading(&toml_path, e))?;
        let Some(start) = text.find("\n[published]\n").map(|i| i + 1) else {
            return Err(Error::input(format!(
                "{} has no [published] table",
                toml_path.display()
            )));
        };
        let end = text[start + 1..]
            .find("\n[")
            .map_or(text.len(), |i| start + 1 + i);
        if text[start..end].trim_end() == table.trim_end() {
            continue;
        }
        stale.push(format!("lab {}: [published] hashes", lab.meta.number));
        for file in &lab.meta.learner_files {
            let path = lab.learner_path(file);
            let now = crate::blob::file_blob(&wb.root.join(&path)).ok();
            if now.as_ref() != lab.meta.published.get(&path) {
                stale.push(format!(
                    "lab {}: the starter {path} is now published as the file is: make sure it holds the starter, not a solution",
                    lab.meta.number
                ));
            }
        }
        if !check {
            let updated = format!("{}{}\n{}", &text[..start], table.trim_end(), &text[end..]);
            crate::write_atomically(&toml_path, &updated)
                .map_err(|e| Error::writing(&toml_path, e))?;
        }
    }
    Ok(stale)
}

/// The signature of every entry of the labs' catalogues (teacher's edition): the
/// catalogue is built and run, and a signature its run does not show is rewritten. What
/// bless cannot fix (an edit that no longer applies, an entry its tests do not reject) is
/// an error, after the signatures are written.
fn catalogue(wb: &Workbook, labs: &[&Lab], check: bool) -> Result<Vec<String>> {
    let labs: Vec<Lab> = (labs.iter())
        .filter(|lab| crate::mutants::catalogue_dir(lab).is_some_and(|d| d.is_dir()))
        .map(|lab| (*lab).clone())
        .collect();
    if labs.is_empty() {
        return Ok(Vec::new());
    }
    println!("running the catalogue of wrong solutions …");
    let run = crate::mutants::gate::run(&wb.root, &labs, &wb.settings)?;
    let mut stale = Vec::new();
    for entry in run.entries.iter().filter(|e| e.stale_signature.is_some()) {
        if check {
            stale.extend(entry.stale_signature.clone());
        } else if crate::mutants::gate::record_signature(entry)? {
            stale.push(format!("{}: signature {:?}", entry.label, entry.seen));
        }
    }
    let mut problems = run.problems;
    problems.extend(run.entries.into_iter().flat_map(|e| e.problems));
    if !problems.is_empty() {
        if !stale.is_empty() && !check {
            println!("regenerated:\n  {}", stale.join("\n  "));
        }
        return Err(Error::lab(format!(
            "the catalogue has problems bless cannot fix:\n{}",
            problems.join("\n\n")
        )));
    }
    Ok(stale)
}
