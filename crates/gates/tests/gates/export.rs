//! The student edition, round trip: `cargo labs export` writes it without a single answer
//! readable as text; in it, `cargo labs` works, a starter is graded as a starter, the
//! edition's own gate passes — as exported, and again with every lab solved (a learner at
//! the end of the course) — and the rest of its `cargo test`, the kit's and the
//! simulators' tests, is the teacher's byte for byte.

use crate::common;

use common::{repo, scratch_dir, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use workbook::meta::{Lab, load_labs};

/// The student edition builds in a folder of its own. Not the workbook's: cargo names a
/// workspace crate's build by its path *inside* the workspace, so the edition's test
/// binaries would replace the workbook's own, under the same names, in the middle of the
/// workbook's `cargo test`.
/// Its registry crates' builds are copied from the workbook's own first.
fn export_target() -> PathBuf {
    let target = repo().join("target/student-edition");
    static SEEDED: std::sync::Once = std::sync::Once::new();
    SEEDED.call_once(|| common::seed_dependency_builds(&target));
    target
}

fn labs_in(root: &Path, args: &[&str]) -> Output {
    Command::new(common::cli_binary())
        .args(args)
        .current_dir(root)
        .env_remove("BOUNDARY_LABS_ROOT")
        .env_remove("BOUNDARY_LABS_STATE")
        .env("CARGO_TARGET_DIR", export_target())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Nothing a learner reads in the edition names what it does not have: no teacher's
/// command, solution package, path or document — in the book, the README, the learner
/// files, the questions, what the CLI shows from the keys (hints, explanations,
/// diagnoses), and the CLI's help, which lists the learner's commands only.
fn the_edition_speaks_only_of_itself(
    dir: &Path,
    all: &[PathBuf],
    teacher: &[Lab],
    student: &[Lab],
) {
    use workbook::export::teacher_only_mentions;
    let learner_files: Vec<String> = (student.iter())
        .flat_map(|lab| lab.meta.learner_files.iter().map(|f| lab.learner_path(f)))
        .collect();
    let mut mentions = Vec::new();
    let mut check = |what: &str, text: &str| {
        for mention in teacher_only_mentions(text, teacher) {
            mentions.push(format!("{what}: {mention}"));
        }
    };
    for path in all {
        let rel = path
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let read = (rel.starts_with("book/src/") && rel.ends_with(".md"))
            || rel == "README.md"
            || rel == "grading.toml"
            || rel.ends_with("/lab.toml")
            || learner_files.contains(&rel);
        if read && let Ok(text) = std::fs::read_to_string(path) {
            check(&rel, &text);
        }
    }
    for lab in student {
        let n = &lab.meta.number;
        let explained = (lab.key.checks.iter().map(|c| &c.explain))
            .chain(lab.key.questions.iter().map(|q| &q.explain));
        for text in explained.chain(&lab.key.hints) {
            check(&format!("lab {n}'s key"), text);
        }
        for diagnosis in &lab.key.diagnoses {
            check(&format!("lab {n}'s diagnosis"), &diagnosis.misconception);
        }
        // The page after the run, as `read` and `book` open it once sealed.
        let page = workbook::pages::after_the_run_text(dir, lab);
        assert!(
            !page.contains(workbook::keys::PAGE_STUB) && page.len() > 1000,
            "lab {n}'s page after the run is not in the edition: {page:.300}"
        );
        check(&format!("lab {n}'s page after the run"), &page);
    }
    let help = labs_in(dir, &["--help"]);
    assert!(help.status.success(), "{}", stderr(&help));
    let help = stdout(&help);
    assert!(
        help.contains("cargo labs read N") && !help.contains("Teaching"),
        "{help}"
    );
    for teachers in ["grade-class", "export", "bless", "new"] {
        assert!(!help.contains(&format!("cargo labs {teachers}")), "{help}");
    }
    check("cargo labs --help", &help);
    // Every command's own help: a learner's speaks of the edition only; a teacher's only
    // names itself as one.
    for command in workbook::cli::COMMANDS.iter() {
        let out = labs_in(dir, &[command.name, "--help"]);
        assert!(
            out.status.success(),
            "{} --help: {}",
            command.name,
            stderr(&out)
        );
        let said = stdout(&out);
        if command.section == workbook::cli::Section::Learner {
            check(&format!("cargo labs {} --help", command.name), &said);
        } else {
            let named = format!("`cargo labs {}` is a teacher's command", command.name);
            assert!(said.starts_with(&named), "{said}");
        }
    }
    assert!(mentions.is_empty(), "\n{}\n", mentions.join("\n"));
}

#[test]
fn the_student_edition_answers_nothing_and_works_before_and_after_every_lab_is_solved() {
    let teacher = load_labs(&repo()).unwrap().labs;
    let dir = scratch_dir("export").join("student");
    let out = common::cli(
        &repo(),
        &[
            "export",
            dir.to_str().unwrap(),
            "--grader",
            "course/boundary-labs@0123abc0123abc0123abc0123abc0123abc01234",
        ],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    // Nothing that answers: no solutions, no teacher's pages, no key readable as text.
    for gone in [
        "solutions",
        "CONTRIBUTING.md",
        "book/src/teaching.md",
        "editions",
    ] {
        assert!(!dir.join(gone).exists(), "{gone} was exported");
    }
    let summary = std::fs::read_to_string(dir.join("book/src/SUMMARY.md")).unwrap();
    assert!(!summary.contains("teaching.md"), "{summary}");
    let mut all = Vec::new();
    files(&dir, &mut all);
    let mut secrets = Vec::new();
    for lab in &teacher {
        secrets.extend(lab.key.checks.iter().map(|c| c.explain.clone()));
        secrets.extend(lab.key.questions.iter().map(|q| q.explain.clone()));
        secrets.extend(lab.key.hints.iter().cloned());
    }
    secrets.retain(|s| s.len() >= 24);
    for path in &all {
        let rel = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let chapter = rel.starts_with("book/src/") && rel.ends_with(".md");
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if rel.ends_with("lab.toml") {
            for key in ["holds =", "answer =", "explain =", "hints ="] {
                assert!(!text.contains(key), "{rel} holds `{key}`");
            }
        }
        if !chapter {
            for secret in &secrets {
                assert!(!text.contains(secret.as_str()), "{rel} holds `{secret}`");
            }
        }
    }
    // …and yet the student edition knows every key, scrambled.
    let student = load_labs(&dir).unwrap();
    assert!(student.broken.is_empty(), "{:?}", student.broken);
    for (mine, theirs) in teacher.iter().zip(&student.labs) {
        assert_eq!(mine.key, theirs.key, "lab {}", mine.meta.number);
    }
    the_edition_speaks_only_of_itself(&dir, &all, &teacher, &student.labs);
    let workflow = std::fs::read_to_string(dir.join(".github/workflows/classroom.yml")).unwrap();
    assert!(workflow.contains("GRADER_REPOSITORY: course/boundary-labs"));
    assert!(workflow.contains("GRADER_REF: 0123abc0123abc0123abc0123abc0123abc01234"));
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(readme.contains("cargo labs predict 01") && !readme.contains("grade-class DIR"));

    // The lock file names no teacher's package, and the learner's builds leave it as it
    // is (a changed Cargo.lock in a fresh clone would say what was taken out of it).
    let lock = std::fs::read_to_string(dir.join("Cargo.lock")).unwrap();
    assert!(
        !lock.contains("solution")
            && !lock.contains("template")
            && !lock.contains("name = \"gates\""),
        "{lock}"
    );

    // No page after the run can be read as it is: each is a stand-in, the page scrambled
    // beside the lab's key, and no paragraph of any is anywhere in the edition.
    for lab in &teacher {
        let page =
            std::fs::read_to_string(repo().join(workbook::pages::after_the_run(&lab.meta.chapter)))
                .unwrap();
        let paragraphs: Vec<&str> = (page.split("\n\n"))
            .filter(|p| p.len() > 200 && !p.starts_with(['#', '`', '|', '!', '{', '<']))
            .collect();
        assert!(paragraphs.len() >= 3, "lab {}", lab.meta.number);
        // Nor any figure it shows: figures and generated tables say what the run showed.
        let figures = workbook::pages::figures_of(&page);
        assert!(
            !figures.is_empty(),
            "lab {}'s page shows no figure",
            lab.meta.number
        );
        for figure in figures {
            let plain = dir.join("book/src").join(&figure);
            assert!(
                !plain.exists(),
                "{} is in the edition as it is",
                plain.display()
            );
        }
        for path in &all {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            for paragraph in &paragraphs {
                assert!(
                    !text.contains(paragraph),
                    "{} holds a paragraph of lab {}'s page after the run: {paragraph:.120}",
                    path.display(),
                    lab.meta.number
                );
            }
        }
    }
    // A teacher's command refuses, and changes nothing.
    let bless = labs_in(&dir, &["bless"]);
    assert!(
        !bless.status.success() && stderr(&bless).contains("teacher's edition only"),
        "{}",
        stderr(&bless)
    );

    // `cargo labs` works there, and a starter is graded as a starter.
    let status = labs_in(&dir, &[]);
    assert!(status.status.success(), "{}", stderr(&status));
    assert!(stdout(&status).contains("01 · Transaction boundaries"));
    let check = labs_in(&dir, &["check", "01"]);
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    let lab01 = &teacher[0];
    let suite = std::fs::read_to_string(repo().join(&lab01.meta.graded_suite)).unwrap();
    let tests = workbook::meta::graded_test_names(&suite).len();
    let passing = tests - lab01.meta.starter_fails.len();
    assert!(
        stdout(&check).contains(&format!("{passing}/{tests} graded tests pass")),
        "{}",
        stdout(&check)
    );
    // Before the predictions are sealed, a failure's diagnosis would name a belief the
    // items ask about and point into a page that is not open yet: it waits for the seal.
    assert!(
        !stdout(&check).contains("built on the belief")
            && !stdout(&check).contains("after-the-run")
            && stdout(&check).contains("named once your predictions are sealed"),
        "{}",
        stdout(&check)
    );
    let reset = labs_in(&dir, &["reset", "01"]);
    assert!(
        reset.status.success(),
        "reset works without git: {}",
        stderr(&reset)
    );

    // The edition's own tests pass as exported (only its gate looks at the labs: the
    // root `cargo test` builds the kit, the simulators and the CLI, never a lab)…
    let cargo_test = |what: &str, args: &[&str]| {
        let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .arg("test")
            .args(args)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", export_target())
            .env_remove("BOUNDARY_LABS_ROOT")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "the student edition's `cargo test` fails {what}:\n{}\n{}",
            common::tail(&stdout(&out), 60),
            common::tail(&stderr(&out), 40)
        );
    };
    cargo_test(
        "as exported",
        &["-p", "workbook", "--test", "cli", "edition::"],
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("Cargo.lock")).unwrap(),
        lock,
        "building the student edition changed its Cargo.lock"
    );

    // …and with every lab solved, as a learner leaves it at the end of the course.
    for lab in &teacher {
        for file in &lab.meta.learner_files {
            let solved = repo().join("solutions").join(lab.slug()).join(file);
            std::fs::copy(&solved, dir.join(lab.learner_path(file))).unwrap();
        }
    }
    cargo_test(
        "with every lab solved",
        &["-p", "workbook", "--test", "cli", "edition::"],
    );
    // The rest of the edition's `cargo test` is the kit's and the simulators' own tests:
    // the teacher's files, byte for byte, which the workbook's `cargo test` runs already.
    // Built again here they would double the round trip's time; proven the same instead.
    for krate in std::fs::read_dir(repo().join("crates")).unwrap().flatten() {
        let name = krate.file_name().to_string_lossy().into_owned();
        if name == "labkit" || name.starts_with("sim-") {
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            files(&krate.path(), &mut ours);
            files(&dir.join("crates").join(&name), &mut theirs);
            assert_eq!(
                ours.len(),
                theirs.len(),
                "crates/{name}: the edition's files"
            );
            for file in ours {
                let shipped = dir.join(file.strip_prefix(repo()).unwrap());
                assert!(
                    std::fs::read(&file).unwrap() == std::fs::read(&shipped).unwrap_or_default(),
                    "{} differs in the student edition",
                    shipped.display()
                );
            }
        }
    }
    let check = labs_in(&dir, &["check", "01"]);
    assert!(check.status.success(), "{}", stdout(&check));
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
