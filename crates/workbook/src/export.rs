//! `cargo labs export DIR`: the student edition, written from this teacher's edition.
//!
//! It takes the starters, the book, the kit, the simulators, the CLI and the graded
//! suites, and leaves out everything that answers: `solutions/` (and its catalogue of
//! wrong solutions), the template lab of `cargo labs new`, the teacher's chapter and
//! tests, and every answer key, explanation and hint, which go into each lab's scrambled
//! `key.txt` instead. The published starters are copied to `.starters/`, so `cargo labs
//! reset` works without git. Before it finishes, the export reads back every file it
//! wrote and refuses to leave one that holds a check's claim, a key's explanation or a
//! hint as readable text. The `lab.toml` it writes asks each question and names no item:
//! a check's claim and the sense of its `yes`, a question's id, travel in `key.txt`.

use crate::error::{Error, Result};
use crate::meta::{KEY_FILE, Lab, PAGE_FILE};
use crate::workbook::Workbook;
use std::path::{Path, PathBuf};

/// Files and folders of the teacher's edition that the student edition does not get.
pub const TEACHER_ONLY: &[&str] = &[
    "solutions",
    "editions",
    ".ci",
    ".git",
    ".github",
    ".labs",
    "target",
    "book/build",
    "CONTRIBUTING.md",
    "README.md",
    "book/src/teaching.md",
    "book/src/figures/reading-times.md",
    // The teacher's chapter's picture of a class report: it shows items' answers.
    "book/src/figures/class-report.png",
    "crates/workbook/examples",
    // The live poll's server shows the teacher the keys; learners only send to it.
    "crates/poll",
    "crates/workbook/templates",
    // The teacher's gates, whole: a gate added there never ships to learners.
    "crates/gates",
];

/// Workspace packages under [`TEACHER_ONLY`] folders, besides the solutions and the
/// template lab: the teacher's gates (`crates/gates`).
const TEACHER_ONLY_PACKAGES: &[&str] = &["gates", crate::poll::SERVER_PACKAGE];

/// Where the student edition's own files (its README, its Classroom workflow) live in
/// the teacher's edition, under the paths they take in the export.
pub const EDITION_FILES: &str = "editions/student";

/// What an export wrote.
#[derive(Debug)]
pub struct Exported {
    pub files: usize,
    pub labs: usize,
}

fn excluded(rel: &str) -> bool {
    TEACHER_ONLY
        .iter()
        .any(|t| rel == *t || rel.starts_with(&format!("{t}/")))
        || rel.ends_with("/predictions.txt")
        || rel.contains(".backup-")
        || rel.ends_with(".tmp-write")
        || (rel.starts_with("labs/") && rel.ends_with("/lab.toml"))
}

/// Every file under `dir` that `keep` keeps, as paths relative to `root` with `/`
/// separators, sorted.
fn walk(root: &Path, dir: &Path, keep: fn(&str) -> bool, out: &mut Vec<String>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::reading(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        if !keep(&rel) {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).map_err(|e| Error::reading(&path, e))?;
        if meta.is_dir() {
            walk(root, &path, keep, out)?;
        } else if meta.is_file() {
            out.push(rel);
        }
    }
    Ok(())
}

fn write(dir: &Path, rel: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::writing(parent, e))?;
    }
    std::fs::write(&path, bytes).map_err(|e| Error::writing(&path, e))
}

/// Members of the teacher's workspace that the student edition does not have: the
/// solutions, and the template lab of `cargo labs new`.
fn teacher_only_member(member: &str) -> bool {
    member == "solutions/*" || member.starts_with("crates/workbook/templates/")
}

/// The lines of the teacher's workspace manifest the student edition keeps: not the
/// members only the teacher has, not the harnesses among the default members (the
/// student's `cargo test` tests the kit, the simulators and the CLI), not the profile of
/// the template lab's harness.
fn student_lines(teacher: &str) -> Vec<&str> {
    let mut kept = Vec::new();
    let (mut in_default_members, mut in_template_profile) = (false, false);
    for line in teacher.lines() {
        if line.starts_with('[') || line.trim().is_empty() {
            in_template_profile = line.starts_with("[profile.") && line.contains("-template]");
        }
        if line.starts_with("default-members") {
            in_default_members = true;
        } else if line.starts_with(']') {
            in_default_members = false;
        }
        let item = line.trim().trim_end_matches(',');
        let member = item.strip_prefix('"').and_then(|i| i.strip_suffix('"'));
        let dropped = member.is_some_and(|m| {
            teacher_only_member(m) || (in_default_members && m == "labs/*/harness")
        });
        if !dropped && !in_template_profile {
            kept.push(line);
        }
    }
    kept
}

/// The workspace manifest without the solutions and the template lab: the same members
/// otherwise, and the labs (their harnesses too) not default members.
pub fn student_manifest(teacher: &str) -> Result<String> {
    let kept = student_lines(teacher);
    let text = (kept.join("\n").trim_end().to_string() + "\n").replace(
        "# file, its binary and its graded suite). The starters in labs/ are members (so\n\
         # `cargo labs check 01` can build them) but not default members: the root `cargo test`\n\
         # builds the harnesses, the solutions, the kit and the CLI, and proves the starters fail\n\
         # through the consistency gate in crates/gates/tests.\n\
         # The template lab that `cargo labs new` copies (crates/workbook/templates, teacher's\n\
         # edition only) is a member like the others, so rustfmt, clippy and the root `cargo test`\n\
         # see it as the code it is.\n",
        "# file, its binary and its graded suite). The labs are members (so\n\
         # `cargo labs check 01` can build them) but not default members: the root `cargo test`\n\
         # tests the kit, the simulators and the CLI.\n",
    );
    if text.contains("solutions") || text.contains("templates") {
        return Err(Error::input(
            "the workspace Cargo.toml names solutions/ or the lab templates in a way the export does not know how to remove",
        ));
    }
    toml::from_str::<toml::Table>(&text)
        .map_err(|e| Error::input(format!("the student Cargo.toml does not parse: {e}")))?;
    Ok(text)
}

/// The book's table of contents without the teacher's chapter.
fn student_summary(teacher: &str) -> String {
    let kept: Vec<&str> = teacher
        .lines()
        .filter(|line| !line.contains("(teaching.md)"))
        .collect();
    kept.join("\n").trim_end().to_string() + "\n"
}

/// A text a learner must not be able to read in the student edition.
pub struct Secret {
    /// What it is, for the message (`lab 01's claim of q04`).
    pub what: String,
    pub text: String,
    /// Whether a chapter may say it after its Predict section (an explanation, a hint);
    /// a claim is said nowhere, since it states an answer in the teacher's words.
    pub chapters_may_say_it: bool,
}

/// Texts a learner must not be able to read in the student edition: every explanation
/// and every hint (long enough to be recognisable), and every check's claim.
pub fn secrets(labs: &[Lab]) -> Vec<Secret> {
    let mut out = Vec::new();
    for lab in labs {
        let n = &lab.meta.number;
        let ids = lab.item_ids();
        let explained = (lab.key.checks.iter().map(|c| &c.explain))
            .chain(lab.key.questions.iter().map(|q| &q.explain));
        for (id, explain) in ids.iter().zip(explained) {
            if explain.chars().count() >= 24 {
                out.push(Secret {
                    what: format!("lab {n}'s explanation of {id}"),
                    text: explain.clone(),
                    chapters_may_say_it: true,
                });
            }
        }
        for (id, check) in ids.iter().zip(&lab.key.checks) {
            out.push(Secret {
                what: format!("lab {n}'s claim of {id}"),
                text: check.claim.clone(),
                chapters_may_say_it: false,
            });
        }
        for (i, hint) in lab.key.hints.iter().enumerate() {
            if hint.chars().count() >= 24 {
                out.push(Secret {
                    what: format!("lab {n}'s hint {}", i + 1),
                    text: hint.clone(),
                    chapters_may_say_it: true,
                });
            }
        }
    }
    out.retain(|secret| !secret.text.trim().is_empty());
    out
}

/// What a learner's edition must not mention, because the edition does not have it: a
/// path or document of the teacher's, a solution package, the teacher's gates. Commands
/// are checked apart (every `cargo labs X` must be a learner's command).
const TEACHER_ONLY_NAMES: &[&str] = &[
    "solutions/",
    "solution crate",
    "crates/gates",
    "editions/",
    "CONTRIBUTING.md",
    "teaching.md",
    "Teaching and grading with the workbook",
    "crates/workbook/templates",
    "reading-times",
    "design note",
    "T4",
    "teacher's chapter",
    "teacher's guide",
    "last chapter",
];

/// Every mention in `text` of something the student edition does not have: a teacher's
/// command (`cargo labs grade-class`, or a command that does not exist), a solution
/// package of `labs`, a teacher's path or document. Empty when the text speaks only of
/// the edition.
pub fn teacher_only_mentions(text: &str, labs: &[Lab]) -> Vec<String> {
    let mut found = Vec::new();
    let learner = crate::cli::learner_commands();
    for (at, _) in text.match_indices("cargo labs ") {
        let word: String = text[at + "cargo labs ".len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        // `cargo labs --help` names no command.
        if !word.is_empty()
            && !word.starts_with('-')
            && word != "help"
            && !learner.contains(&word.as_str())
        {
            found.push(format!("`cargo labs {word}` (not a learner's command)"));
        }
    }
    // The student edition's labs name no solution package.
    let packages =
        (labs.iter().map(|l| l.meta.solution_package.as_str())).filter(|p| !p.is_empty());
    for name in TEACHER_ONLY_NAMES.iter().copied().chain(packages) {
        let whole_word = text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            let open_ended = name.ends_with('/');
            !before.is_some_and(char::is_alphanumeric)
                && (open_ended || !after.is_some_and(char::is_alphanumeric))
        });
        if whole_word {
            found.push(format!("`{name}`"));
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The placeholders of the student edition's Classroom workflow, and what fills them
/// when no grader is named: the organisation's variables.
const GRADER_PLACEHOLDERS: [(&str, &str); 2] = [
    (
        "@GRADER_REPOSITORY@",
        "${{ vars.BOUNDARY_GRADER_REPOSITORY }}",
    ),
    ("@GRADER_REF@", "${{ vars.BOUNDARY_GRADER_REF }}"),
];

/// `OWNER/REPO@COMMIT` → (`OWNER/REPO`, `COMMIT`).
fn parse_grader(grader: &str) -> Result<(String, String)> {
    let bad = || {
        Error::input(format!(
            "`--grader {grader}`: write OWNER/REPO@COMMIT, the repository and the commit whose grader, suites and keys grade the class"
        ))
    };
    let (repo, reference) = grader.split_once('@').ok_or_else(bad)?;
    let plain = |t: &str| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
    };
    if repo.matches('/').count() != 1 || !plain(repo) || !plain(reference) {
        return Err(bad());
    }
    // actions/checkout fetches a full commit hash, not an abbreviated one; a branch or a
    // tag would let the grading move under the class.
    if reference.len() != 40 || !reference.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::input(format!(
            "`--grader {grader}`: pin the grader's full 40-digit commit (`git rev-parse HEAD` in it): a short hash cannot be fetched by the workflow, and a branch or tag can move"
        )));
    }
    Ok((repo.to_string(), reference.to_string()))
}

/// The lock file without the packages only the teacher's edition has (the solutions, the
/// template lab, the poll's server) and the dependencies only they used, block for block as cargo writes
/// it: the learner's first build then finds it current and leaves it untouched, and
/// nothing in it names a solution.
pub fn student_lockfile(teacher: &str) -> String {
    let mut blocks = teacher.split("\n[[package]]\n");
    let header = blocks.next().unwrap_or_default();
    let packages: Vec<(&str, LockedPackage)> = blocks.map(|b| (b, locked_package(b))).collect();
    let teacher_only = |p: &LockedPackage| {
        p.local
            && (p.name.starts_with("solution")
                || p.name.ends_with("-template")
                || TEACHER_ONLY_PACKAGES.contains(&p.name.as_str()))
    };
    // Everything a kept workspace package needs, transitively.
    let mut kept: Vec<&str> = (packages.iter())
        .filter(|(_, p)| p.local && !teacher_only(p))
        .map(|(_, p)| p.name.as_str())
        .collect();
    let mut i = 0;
    while i < kept.len() {
        let name = kept[i];
        for (_, p) in packages.iter().filter(|(_, p)| p.name == name) {
            for dep in &p.dependencies {
                if !kept.contains(&dep.as_str()) {
                    kept.push(dep);
                }
            }
        }
        i += 1;
    }
    let mut out = header.to_string();
    for (block, package) in &packages {
        if kept.contains(&package.name.as_str()) {
            out.push_str("\n[[package]]\n");
            out.push_str(block);
        }
    }
    out
}

/// What a lock file's `[[package]]` block says of its package: its name, whether it is a
/// path package (no `source`), and the names of its dependencies.
struct LockedPackage {
    name: String,
    local: bool,
    dependencies: Vec<String>,
}

fn locked_package(block: &str) -> LockedPackage {
    let quoted = |line: &str| line.split('"').nth(1).unwrap_or_default().to_string();
    let mut package = LockedPackage {
        name: String::new(),
        local: true,
        dependencies: Vec::new(),
    };
    let mut in_dependencies = false;
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix("name = ") {
            package.name = quoted(rest);
        } else if line.starts_with("source = ") {
            package.local = false;
        } else if line.starts_with("dependencies = [") {
            in_dependencies = true;
        } else if in_dependencies && line.starts_with(']') {
            in_dependencies = false;
        } else if in_dependencies {
            // ` "name"`, or ` "name version"` when two versions are locked.
            let entry = quoted(line);
            let name = entry.split(' ').next().unwrap_or_default();
            package.dependencies.push(name.to_string());
        }
    }
    package
}

/// The figures that a page of the book other than a page after the run shows (paths under
/// `book/src`): those travel in plain in the student edition.
fn figures_before_the_run(root: &Path, files: &[String]) -> Result<Vec<String>> {
    let mut shared = Vec::new();
    for rel in files {
        let page = rel.strip_prefix("book/src/").filter(|p| p.ends_with(".md"));
        if page.is_some_and(|p| !p.ends_with("-after-the-run.md")) {
            let path = root.join(rel);
            let text = std::fs::read_to_string(&path).map_err(|e| Error::reading(&path, e))?;
            shared.extend(crate::pages::figures_of(&text));
        }
    }
    Ok(shared)
}

/// Writes the student edition of `wb` into `dir`, which must not exist or be empty.
/// `grader` (`OWNER/REPO@COMMIT`) pins the copy that grades the class in the Classroom
/// workflow; without it the workflow reads the organisation's variables.
pub fn export(wb: &Workbook, dir: &Path, grader: Option<&str>) -> Result<Exported> {
    let pins = match grader {
        Some(grader) => {
            let (repo, reference) = parse_grader(grader)?;
            [repo, reference]
        }
        None => GRADER_PLACEHOLDERS.map(|(_, variable)| variable.to_string()),
    };
    if let Some(broken) = wb.labs.broken.first() {
        return Err(Error::input(format!(
            "lab {} cannot be exported: {}",
            broken.slug(),
            broken.problem
        )));
    }
    if dir.exists()
        && std::fs::read_dir(dir)
            .map_err(|e| Error::reading(dir, e))?
            .next()
            .is_some()
    {
        return Err(Error::input(format!(
            "{} is not empty; the export never overwrites anything",
            dir.display()
        )));
    }
    let root = &wb.root;
    let mut files = Vec::new();
    walk(root, root, |rel| !excluded(rel), &mut files)?;
    // A learner file is exported as published (the starter), whatever the working copy
    // holds now; it is written below, with the other per-lab files.
    let learner_files: Vec<String> = wb
        .labs
        .labs
        .iter()
        .flat_map(|lab| lab.meta.learner_files.iter().map(|f| lab.learner_path(f)))
        .collect();
    files.retain(|rel| !learner_files.contains(rel));
    // The figures a page after the run shows say what the run showed: they travel
    // scrambled with their page (below), unless a page read before the run shows them too.
    let shared = figures_before_the_run(root, &files)?;
    let mut bundles = Vec::new();
    for lab in &wb.labs.labs {
        let page = root.join(crate::pages::after_the_run(&lab.meta.chapter));
        if page.is_file() {
            let bundle = crate::pages::after_the_run_bundle(root, lab, &shared)
                .map_err(|e| Error::reading(&page, e))?;
            let hidden: Vec<String> = bundle
                .files
                .keys()
                .map(|f| format!("book/src/{f}"))
                .collect();
            files.retain(|rel| !hidden.contains(rel));
            bundles.push((lab, bundle));
        }
    }
    for rel in &files {
        let source = root.join(rel);
        let bytes = std::fs::read(&source).map_err(|e| Error::reading(&source, e))?;
        let bytes = match rel.as_str() {
            "Cargo.toml" => student_manifest(&String::from_utf8_lossy(&bytes))?.into_bytes(),
            "Cargo.lock" => student_lockfile(&String::from_utf8_lossy(&bytes)).into_bytes(),
            "book/src/SUMMARY.md" => student_summary(&String::from_utf8_lossy(&bytes)).into_bytes(),
            _ => bytes,
        };
        write(dir, rel, &bytes)?;
    }
    let editions = root.join(EDITION_FILES);
    let mut edition_files = Vec::new();
    if editions.is_dir() {
        walk(&editions, &editions, |_| true, &mut edition_files)?;
    }
    for rel in &edition_files {
        let source = editions.join(rel);
        let mut text = std::fs::read_to_string(&source).map_err(|e| Error::reading(&source, e))?;
        for ((placeholder, _), pin) in GRADER_PLACEHOLDERS.iter().zip(&pins) {
            text = text.replace(placeholder, pin);
        }
        write(dir, rel, text.as_bytes())?;
    }
    for lab in &wb.labs.labs {
        let slug = lab.slug();
        write(
            dir,
            &format!("labs/{slug}/lab.toml"),
            lab.student_toml().as_bytes(),
        )?;
        write(
            dir,
            &format!("labs/{slug}/{KEY_FILE}"),
            crate::keys::encode(&lab.meta.id, &lab.key).as_bytes(),
        )?;
        // The chapter's page after the run answers the predictions: it travels scrambled
        // with its figures, and the book holds a stand-in until the learner's predictions
        // are sealed. (A lab without such a page, as a scratch workbook's, has nothing to
        // hide.)
        if let Some((_, bundle)) = bundles.iter().find(|(l, _)| l.meta.id == lab.meta.id) {
            let after = crate::pages::after_the_run(&lab.meta.chapter);
            let stub = crate::keys::page_stub(&lab.meta.number);
            write(dir, &after, stub.as_bytes())?;
            let coded = crate::keys::encode_page(&lab.meta.id, bundle);
            write(dir, &format!("labs/{slug}/{PAGE_FILE}"), coded.as_bytes())?;
        }
        for file in &lab.meta.learner_files {
            let starter = crate::starters::published_starter(root, lab, file)?;
            write(dir, &lab.learner_path(file), starter.as_bytes())?;
            write(
                dir,
                &format!("{}/{slug}/{file}", crate::starters::STARTERS),
                starter.as_bytes(),
            )?;
        }
    }
    // Read back what was written: no claim may be readable anywhere, and no explanation or
    // hint anywhere but in the chapters after their Predict sections (the gate checks
    // those).
    let secrets = secrets(&wb.labs.labs);
    let mut leaks = Vec::new();
    let mut count = 0;
    let mut all = Vec::new();
    walk(dir, dir, |_| true, &mut all)?;
    for rel in &all {
        count += 1;
        let chapter = rel.starts_with("book/src/") && rel.ends_with(".md");
        let Ok(text) = std::fs::read_to_string(dir.join(rel)) else {
            continue;
        };
        for secret in &secrets {
            if (!chapter || !secret.chapters_may_say_it) && text.contains(secret.text.as_str()) {
                leaks.push(format!("{rel} holds {}: \"{}\"", secret.what, secret.text));
            }
        }
        if chapter || rel == "README.md" {
            for mention in teacher_only_mentions(&text, &wb.labs.labs) {
                leaks.push(format!(
                    "{rel} mentions {mention}, which the edition does not have"
                ));
            }
        }
    }
    if !leaks.is_empty() {
        return Err(Error::lab(format!(
            "the student edition in {} would give answers away or speak of the teacher's edition:\n  {}",
            dir.display(),
            leaks.join("\n  ")
        )));
    }
    Ok(Exported {
        files: count,
        labs: wb.labs.labs.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_manifest_loses_the_solutions_and_the_templates_and_nothing_else() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let teacher = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let student = student_manifest(&teacher).unwrap();
        assert!(!student.contains("solutions") && !student.contains("templates"));
        let members = |text: &str, key: &str| -> Vec<String> {
            let manifest: toml::Table = toml::from_str(text).unwrap();
            let list = manifest["workspace"][key].as_array().unwrap();
            list.iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect()
        };
        let mut expected = members(&teacher, "members");
        expected.retain(|m| !teacher_only_member(m));
        assert_eq!(members(&student, "members"), expected, "{student}");
        assert_eq!(
            members(&student, "members"),
            ["crates/*", "labs/*", "labs/*/harness"]
        );
        assert_eq!(members(&student, "default-members"), ["crates/*"]);
        assert!(
            student.contains("but not default members: the root `cargo test`\n# tests the kit")
        );
        let without_members = |text: &str| {
            let mut manifest: toml::Table = toml::from_str(text).unwrap();
            let workspace = manifest["workspace"].as_table_mut().unwrap();
            workspace.remove("members");
            workspace.remove("default-members");
            let profiles = manifest["profile"]["dev"]["package"]
                .as_table_mut()
                .unwrap();
            profiles.retain(|package, _| !package.ends_with("-template"));
            manifest
        };
        assert_eq!(without_members(&student), without_members(&teacher));
        assert!(!student.contains("-template"), "{student}");
    }

    #[test]
    fn teacher_files_are_left_out() {
        assert!(excluded("solutions/01-outbox/src/relay.rs"));
        assert!(excluded("labs/01-outbox/predictions.txt"));
        assert!(excluded("labs/01-outbox/lab.toml"));
        assert!(excluded("crates/gates/tests/gates/consistency.rs"));
        assert!(excluded("crates/gates/Cargo.toml"));
        assert!(excluded("crates/poll/src/page.rs"));
        assert!(!excluded("crates/workbook/src/poll/send.rs"));
        assert!(excluded(
            "crates/workbook/templates/solutions/99-template/src/receiver.rs"
        ));
        assert!(!excluded("labs/01-outbox/src/relay.rs"));
        assert!(!excluded("tests/01_outbox.rs"));
        assert!(!excluded("crates/workbook/tests/cli/commands.rs"));
    }

    #[test]
    fn the_student_lock_file_has_no_poll_server_and_nothing_only_it_uses() {
        let registry = "source = \"registry+https://github.com/rust-lang/crates.io-index\"";
        let teacher = format!(
            "version = 4\n\n[[package]]\nname = \"boundary-poll\"\nversion = \"0.1.0\"\ndependencies = [\n \"hyper\",\n \"serde\",\n \"workbook\",\n]\n\n\
             [[package]]\nname = \"hyper\"\nversion = \"1.8.1\"\n{registry}\ndependencies = [\n \"bytes\",\n]\n\n\
             [[package]]\nname = \"bytes\"\nversion = \"1.11.0\"\n{registry}\n\n\
             [[package]]\nname = \"serde\"\nversion = \"1.0.228\"\n{registry}\n\n\
             [[package]]\nname = \"workbook\"\nversion = \"0.1.0\"\ndependencies = [\n \"serde\",\n]\n"
        );
        let student = student_lockfile(&teacher);
        let names: Vec<String> = (student.lines())
            .filter_map(|l| l.strip_prefix("name = "))
            .map(|n| n.trim_matches('"').to_string())
            .collect();
        assert_eq!(names, ["serde", "workbook"], "{student}");
    }

    const FULL: &str = "3f2a9c1e5b7d4a60c8e2f19b0d6a7c35e4f1b820";

    #[test]
    fn a_grader_is_owner_repo_at_commit() {
        assert_eq!(
            parse_grader(&format!("course/labs-2027@{FULL}")).unwrap(),
            ("course/labs-2027".to_string(), FULL.to_string())
        );
        for bad in [
            "course/labs-2027@3f2a9c1",
            "course/labs-2027@main",
            "course/labs",
            "labs@main",
            "a/b/c@x",
            "a/b@",
            "a/b@x y",
            "a/${{x}}@y",
        ] {
            assert!(parse_grader(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn mentions_of_the_teachers_edition_are_found_and_the_learners_commands_are_not() {
        let mut lab = crate::meta::teachers_lab("append-streams");
        // The student edition's lab.toml does not name it; the teacher's does.
        lab.meta.solution_package = "solution08-append-streams".into();
        let labs = std::slice::from_ref(&lab);
        let text = "Run `cargo labs check 08`, `cargo labs` and `cargo labs help`; then \
                    `cargo labs grade-class DIR`, `cargo labs figures`, \
                    `cargo test -p solution08-append-streams`, the design note's case T4, \
                    solutions/08 and CONTRIBUTING.md. T42 and a designer's note are fine.";
        assert_eq!(
            teacher_only_mentions(text, labs),
            [
                "`CONTRIBUTING.md`",
                "`T4`",
                "`cargo labs figures` (not a learner's command)",
                "`cargo labs grade-class` (not a learner's command)",
                "`design note`",
                "`solution08-append-streams`",
                "`solutions/`",
            ]
        );
        assert!(teacher_only_mentions("cargo labs read 08, then run it", labs).is_empty());
    }

    #[test]
    fn the_lock_file_loses_the_teachers_packages() {
        let lock = "version = 4\n\n[[package]]\nname = \"gates\"\nversion = \"0.1.0\"\ndependencies = [\n \"only-the-gates-use-it\",\n \"workbook\",\n]\n\n[[package]]\nname = \"only-the-gates-use-it\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[package]]\nname = \"solution01-outbox\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"workbook\"\nversion = \"0.1.0\"\n";
        assert_eq!(
            student_lockfile(lock),
            "version = 4\n\n[[package]]\nname = \"workbook\"\nversion = \"0.1.0\"\n"
        );
    }

    #[test]
    fn the_summary_loses_the_teachers_part() {
        let summary =
            "# Summary\n\n- [One](01.md)\n\n[Glossary](glossary.md)\n[Teaching](teaching.md)\n";
        assert_eq!(
            student_summary(summary),
            "# Summary\n\n- [One](01.md)\n\n[Glossary](glossary.md)\n"
        );
    }
}
