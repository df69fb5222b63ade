//! The CLI's answers to bad input: a clear message, a non-zero exit, and nothing the
//! learner wrote lost. Each test works in a scratch copy of the workbook's metadata.

use crate::common;

use common::{stderr, stdout};
use std::path::Path;
use std::process::{Command, Output};

/// A scratch workbook with lab 01's metadata and starter file.
fn scratch() -> std::path::PathBuf {
    common::lab01_metadata()
}

fn labs(root: &Path, args: &[&str]) -> Output {
    common::run_cli(root, args)
}

#[test]
fn an_unknown_lab_is_named_with_the_labs_that_exist() {
    let root = scratch();
    for command in ["run", "check", "hint", "predict", "reset"] {
        let out = labs(&root, &[command, "99"]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("no lab `99`"),
            "{command}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("01 (outbox)"),
            "{command}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn an_unknown_command_gets_the_help() {
    let out = labs(&scratch(), &["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a command"));
    assert!(stderr(&out).contains("cargo labs predict N"));
}

#[test]
fn a_malformed_predictions_file_is_reported_by_line_and_left_untouched() {
    let root = scratch();
    let path = root.join("labs/01-outbox/predictions.txt");
    let written = "# mine\nq01 = holds\nthis line is not a prediction\n";
    std::fs::write(&path, written).unwrap();
    for args in [&["run", "01"][..], &["predict", "01", "--set", "q08=holds"]] {
        let out = labs(&root, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("predictions.txt line 3: expected `id = answer`"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    }
}

#[test]
fn a_wrong_answer_or_an_unknown_id_is_refused() {
    let root = scratch();
    let path = root.join("labs/01-outbox/predictions.txt");
    std::fs::write(&path, "q01 = maybe\n").unwrap();
    let out = labs(&root, &["run", "01"]);
    assert!(
        stderr(&out).contains("line 1: `q01` is a yes/no question; answer `yes`, `no` or `?`"),
        "{}",
        stderr(&out)
    );

    std::fs::write(&path, "no-such-item = holds\n").unwrap();
    let out = labs(&root, &["run", "01"]);
    assert!(
        stderr(&out)
            .contains("`no-such-item` is not a question of lab 01; its questions are `q01` to `q"),
        "{}",
        stderr(&out)
    );

    std::fs::remove_file(&path).unwrap();
    let out = labs(&root, &["predict", "01", "--set", "q26=z"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("answer one of a, b, c, d"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn predictions_from_the_command_line_keep_a_backup_of_the_old_file() {
    let root = scratch();
    let path = root.join("labs/01-outbox/predictions.txt");
    let out = labs(
        &root,
        &["predict", "01", "--set", "q01=yes", "--set", "q26=b"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let first = std::fs::read_to_string(&path).unwrap();
    assert!(first.contains("\nq01 = yes\n"));
    assert!(first.contains("\nq26 = b\n"));
    assert!(first.contains("\nq08 = ?\n"));

    // An item's id from before the neutral ids (its claim's slug) still names it.
    let lab = workbook::meta::load_labs(&root).unwrap().labs.remove(0);
    let old_id = lab.meta.checks[7].slug();
    let out = labs(&root, &["predict", "01", "--set", &format!("{old_id}=no")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let backup = root.join("labs/01-outbox/predictions.txt.backup-1");
    assert!(
        !backup.exists(),
        "a file the command wrote holds nothing a rewrite loses: no backup"
    );
    let second = std::fs::read_to_string(&path).unwrap();
    assert!(second.contains("\nq08 = no\n"), "{second}");
    assert!(!second.contains(&old_id), "{second}");
    assert!(second.contains("\nq01 = yes\n"), "earlier answers are kept");

    // A note of the learner's would be lost by the rewrite: that file is kept. A bare
    // number names the item the chapter's list numbers so.
    let noted = format!("{second}# I am unsure about q26\n");
    std::fs::write(&path, &noted).unwrap();
    let out = labs(&root, &["predict", "01", "--set", "35=a"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), noted);
    let third = std::fs::read_to_string(&path).unwrap();
    assert!(third.contains("\nq35 = a\n"), "{third}");
    assert!(
        stdout(&out).contains("unanswered (q02, q03"),
        "the open items are named: {}",
        stdout(&out)
    );
}

#[test]
fn running_without_any_prediction_asks_for_them_first() {
    let root = scratch();
    let out = labs(&root, &["run", "01"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("Predict first: `cargo labs predict 01`"),
        "{}",
        stderr(&out)
    );
    let template = std::fs::read_to_string(root.join("labs/01-outbox/predictions.txt")).unwrap();
    assert!(
        template.contains("\nq01 = ?"),
        "the template is written for the learner: {template}"
    );
    assert!(
        !template.contains("unsafe-attempt-aborts"),
        "an item is named by its place, not by its claim: {template}"
    );
}

#[test]
fn a_missing_progress_store_is_created() {
    let root = scratch();
    let out = labs(&root, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("then predict what lab 01 will show"),
        "{}",
        stdout(&out)
    );
    assert!(root.join(".labs/progress.db").is_file());
}

#[test]
fn a_corrupted_progress_store_is_moved_aside_and_rebuilt() {
    let root = scratch();
    std::fs::create_dir_all(root.join(".labs")).unwrap();
    let garbage = b"this is not a database, it is a corrupted progress file".repeat(100);
    std::fs::write(root.join(".labs/progress.db"), &garbage).unwrap();
    let out = labs(&root, &["hint", "01"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the progress store was damaged"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(root.join(".labs/progress.db.damaged-1")).unwrap(),
        garbage
    );
    assert!(stdout(&out).contains("hint 1/"), "{}", stdout(&out));
}

#[test]
fn hints_come_one_at_a_time_and_are_remembered() {
    let root = scratch();
    let n = common::hint_count("outbox");
    let first = stdout(&labs(&root, &["hint", "outbox"]));
    assert!(
        first.contains(&format!("hint 1/{n} (new):")) && !first.contains(&format!("hint 2/{n}")),
        "{first}"
    );
    let second = stdout(&labs(&root, &["hint", "1"]));
    assert!(
        second.contains(&format!("hint 1/{n}:")) && second.contains(&format!("hint 2/{n} (new):")),
        "the earlier hint again, the new one marked: {second}"
    );
}

#[test]
fn reset_restores_the_published_starter_and_backs_up_the_learners_version() {
    let root = scratch();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&root)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    // The published blob must be in git's object store, as it is in every clone.
    git(&["hash-object", "-w", "labs/01-outbox/src/relay.rs"]);
    let relay = root.join("labs/01-outbox/src/relay.rs");
    let pristine = std::fs::read_to_string(&relay).unwrap();
    std::fs::write(&relay, "// my work in progress\n").unwrap();
    let out = labs(&root, &["reset", "01"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&relay).unwrap(), pristine);
    assert_eq!(
        std::fs::read_to_string(root.join("labs/01-outbox/src/relay.rs.backup-1")).unwrap(),
        "// my work in progress\n"
    );
}

#[test]
fn reset_without_the_published_version_changes_nothing() {
    let root = scratch();
    let relay = root.join("labs/01-outbox/src/relay.rs");
    std::fs::write(&relay, "// my work\n").unwrap();
    let out = labs(&root, &["reset", "01"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("Nothing was changed"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&relay).unwrap(), "// my work\n");
}

#[test]
fn answers_typed_at_the_prompt_are_saved_one_by_one_so_a_kill_loses_nothing() {
    use std::io::Write;
    let root = scratch();
    let path = root.join("labs/01-outbox/predictions.txt");
    let mut child = Command::new(common::cli_binary())
        .args(["predict", "01"])
        .env("BOUNDARY_LABS_ROOT", &root)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "yes").unwrap();
    writeln!(stdin, "no").unwrap();
    stdin.flush().unwrap();
    // Wait (bounded) until both answers are on disk, then kill the learner's session.
    let mut saved = String::new();
    for _ in 0..500 {
        saved = std::fs::read_to_string(&path).unwrap_or_default();
        if saved.contains("\nq02 = no\n") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.contains("\nq01 = yes\n"), "{saved}");
    assert!(after.contains("\nq02 = no\n"), "{saved}");
    assert!(after.contains("\nq03 = ?\n"));
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    let root = scratch();
    // A pipe whose reader is gone before the command starts: its first write fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = common::cli(&root, &["help"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn every_command_answers_help() {
    // A scratch workbook has no reference solutions: it is a student edition, whose help
    // names a teacher's command as one; the teacher's edition shows its usage.
    let student = scratch();
    let teacher = common::repo();
    for (root, command, starts) in [
        (&student, "check", "usage: cargo labs check"),
        (&student, "run", "usage: cargo labs run"),
        (&student, "predict", "usage: cargo labs predict"),
        (&student, "grade", "usage: cargo labs grade"),
        (&student, "watch", "usage: cargo labs watch"),
        (&student, "replay", "usage: cargo labs replay"),
        (
            &student,
            "grade-class",
            "`cargo labs grade-class` is a teacher's command",
        ),
        (
            &student,
            "export",
            "`cargo labs export` is a teacher's command",
        ),
        (&teacher, "grade-class", "usage: cargo labs grade-class"),
        (&teacher, "export", "usage: cargo labs export"),
    ] {
        let out = labs(root, &[command, "--help"]);
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        assert!(
            stdout(&out).starts_with(starts),
            "{command}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn a_predictions_file_that_does_not_parse_is_named_on_the_status_screen() {
    let root = scratch();
    let path = root.join("labs/01-outbox/predictions.txt");
    std::fs::write(&path, "q01 = yes\nthis is junk\n").unwrap();
    let out = labs(&root, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let screen = stdout(&out);
    let row = screen
        .lines()
        .find(|l| l.contains("01 · "))
        .unwrap_or_default();
    assert!(row.contains("predictions     ✗"), "{screen}");
    assert!(
        screen.contains("line 2"),
        "the problem names the line: {screen}"
    );
    assert!(screen.contains("Next: fix"), "{screen}");
}

#[test]
fn predictions_can_be_sealed_without_showing_the_run() {
    let root = scratch();
    let out = labs(&root, &["predict", "01", "--seal"]);
    assert_eq!(out.status.code(), Some(2), "nothing to seal yet");
    let out = labs(&root, &["predict", "01", "--set", "q01=yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = labs(&root, &["predict", "01", "--seal"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Said once, not once by the seal and again by the command.
    assert_eq!(
        stdout(&out).matches("sealed").count(),
        1,
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("Nothing of the run was shown"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("observed"), "{}", stdout(&out));
    let text = std::fs::read_to_string(root.join("labs/01-outbox/predictions.txt")).unwrap();
    let sealed = workbook::predictions::parse(
        &workbook::meta::load_labs(&root).unwrap().labs.remove(0),
        &text,
    )
    .unwrap();
    assert!(sealed.seal.is_some(), "{text}");
    // A second seal keeps the first.
    let again = labs(&root, &["predict", "01", "--seal"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("already sealed, at"),
        "{}",
        stdout(&again)
    );
    assert_eq!(
        std::fs::read_to_string(root.join("labs/01-outbox/predictions.txt")).unwrap(),
        text
    );
}

/// A scratch workbook with lab 01's metadata, its sources, its published starter kept
/// under `.starters/` (as the student edition keeps it) and its chapter's two pages with
/// everything they include.
fn lab01_with_its_chapter() -> std::path::PathBuf {
    let root = scratch();
    let starter = std::fs::read_to_string(root.join("labs/01-outbox/src/relay.rs")).unwrap();
    common::copy_tree(
        &common::repo().join("labs/01-outbox/src"),
        &root.join("labs/01-outbox/src"),
    );
    common::write(&root.join("labs/01-outbox/src/relay.rs"), &starter);
    common::write(&root.join(".starters/01-outbox/src/relay.rs"), &starter);
    for page in [
        "01-outbox.md",
        "01-outbox-after-the-run.md",
        "predictions/01-outbox.md",
        // In the student edition the page's figures travel with the page, scrambled.
        "figures/01-first-failure.txt",
    ] {
        let from = common::repo().join("book/src").join(page);
        if from.is_file() {
            let text = std::fs::read_to_string(from).unwrap();
            common::write(&root.join("book/src").join(page), &text);
        }
    }
    let scrambled = common::repo().join("labs/01-outbox/after-the-run.txt");
    if scrambled.is_file() {
        std::fs::copy(scrambled, root.join("labs/01-outbox/after-the-run.txt")).unwrap();
    }
    root
}

#[test]
fn read_shows_the_chapter_up_to_predict_until_the_seal_and_all_of_it_after() {
    let root = lab01_with_its_chapter();
    // No mdBook, no git: nothing on PATH at all; and no colour outside a terminal.
    let empty = root.join("no-tools");
    std::fs::create_dir_all(&empty).unwrap();
    let read = |root: &Path| {
        let out = common::cli(root, &["read", "01"])
            .env("PATH", &empty)
            .env_remove("NO_COLOR")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let before = read(&root);
    assert!(
        before.starts_with("Transaction boundaries and the outbox\n═══"),
        "{before}"
    );
    assert!(before.contains("Predict\n───────"), "{before}");
    let lab = workbook::meta::load_labs(&root).unwrap().labs.remove(0);
    let first = &lab.meta.checks[0].ask;
    let words: Vec<&str> = first.split_whitespace().take(4).collect();
    assert!(
        before.contains(&words.join(" ")),
        "the first question: {before}"
    );
    assert!(before.contains("once your predictions are sealed: cargo labs predict 01, then"));
    for hidden in ["What the run shows", "The build phase", "Summary\n───"] {
        assert!(
            !before.contains(hidden),
            "`{hidden}` before the seal:\n{before}"
        );
    }
    assert!(
        !before.contains("{{#") && !before.contains('\x1b'),
        "{before}"
    );
    assert!(
        before.contains("pub fn relay("),
        "the included code: {before}"
    );

    // The learner edits the relay and loses its anchors; then seals without running.
    let relay = root.join("labs/01-outbox/src/relay.rs");
    std::fs::write(&relay, "pub fn relay_outbox() { /* mine */ }\n").unwrap();
    assert!(
        labs(&root, &["predict", "01", "--set", "q01=yes"])
            .status
            .success()
    );
    assert!(labs(&root, &["predict", "01", "--seal"]).status.success());
    let after = read(&root);
    for shown in [
        "What the run shows",
        "The build phase",
        "Acceptance criteria",
    ] {
        assert!(after.contains(shown), "`{shown}` after the seal:\n{after}");
    }
    assert!(
        after.contains("TODO: an intent marked sent is never sent again"),
        "the published starter, not the learner's file: {after}"
    );
    assert!(!after.contains("mine"), "{after}");
}
