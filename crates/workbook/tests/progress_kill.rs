//! The progress store under a real kill, and rebuilt when it is missing.
//!
//! The kill test starts the built CLI on the hidden `__record-attempts N` (test support:
//! one transaction per attempt, each seq printed after its commit), reads until it has
//! seen some committed attempts, kills the process with SIGKILL at whatever moment that
//! is, and reopens the store. The assertions hold for any kill moment: nothing committed
//! is lost, nothing half-written is visible, and the file passes `PRAGMA integrity_check`.

use rusqlite::Connection;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use workbook::progress::{KILL_TEST_LAB, kill_test_detail};

static SCRATCH: AtomicU32 = AtomicU32::new(0);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A scratch workbook with lab 01's metadata and starter file.
fn scratch() -> PathBuf {
    let n = SCRATCH.fetch_add(1, Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("boundary-kill-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let lab = root.join("labs/01-outbox");
    std::fs::create_dir_all(lab.join("src")).unwrap();
    std::fs::write(root.join("book.toml"), "[book]\n").unwrap();
    for file in ["lab.toml", "src/relay.rs"] {
        std::fs::copy(repo().join("labs/01-outbox").join(file), lab.join(file)).unwrap();
    }
    root
}

fn labs(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_workbook"));
    command
        .args(args)
        .env("BOUNDARY_LABS_ROOT", root)
        .env_remove("BOUNDARY_LABS_STATE")
        .env("NO_COLOR", "1");
    command
}

fn run(root: &Path, args: &[&str]) -> Output {
    labs(root, args).output().unwrap()
}

/// Starts the recorder, reads `wanted` committed seqs, kills it with SIGKILL, and returns
/// every seq it printed (the ones read before the kill and any left in the pipe).
fn record_then_kill(root: &Path, wanted: usize) -> Vec<i64> {
    let mut child = labs(root, &["__record-attempts", "1000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    while printed.len() < wanted {
        let line = lines
            .next()
            .expect("the recorder stopped before it was killed")
            .unwrap();
        printed.push(line.parse::<i64>().unwrap());
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the recorder was killed, not finished");
    // A seq is printed, in one write, only after its commit: whatever is still in the
    // pipe was committed too.
    for line in lines {
        printed.push(line.unwrap().parse::<i64>().unwrap());
    }
    printed
}

#[test]
fn a_process_killed_while_writing_loses_nothing_it_committed() {
    let root = scratch();
    let db = root.join(".labs/progress.db");
    let mut all_printed = Vec::new();
    for (round, wanted) in [3, 20, 7, 41, 12].into_iter().enumerate() {
        let printed = record_then_kill(&root, wanted);
        assert!(printed.len() >= wanted, "round {round}: {printed:?}");
        all_printed.extend(&printed);

        // Reopen through the CLI first: it must find the store intact, not rebuild it.
        let out = run(&root, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "round {round}: {stderr}");
        assert!(!stderr.contains("damaged"), "round {round}: {stderr}");
        assert!(!root.join(".labs/progress.db.damaged-1").exists());

        let conn = Connection::open(&db).unwrap();
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok", "round {round}");
        let mut stmt = conn
            .prepare("SELECT seq, detail FROM attempt WHERE lab_id = ?1 ORDER BY seq")
            .unwrap();
        let rows: Vec<(i64, String)> = stmt
            .query_map([KILL_TEST_LAB], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let seqs: Vec<i64> = rows.iter().map(|r| r.0).collect();

        // Every attempt printed as committed is there.
        for seq in &all_printed {
            assert!(seqs.contains(seq), "round {round}: committed {seq} is lost");
        }
        // At most one more: the one committed just before the kill, not yet printed.
        let last_printed = *all_printed.iter().max().unwrap();
        assert!(
            seqs.len() as i64 == last_printed || seqs.len() as i64 == last_printed + 1,
            "round {round}: {} rows, last printed {last_printed}",
            seqs.len()
        );
        // Nothing partial: no gap, each attempt whole (its detail was written by a second
        // statement of the same transaction), and the counter written by the third
        // statement agrees with the rows.
        assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
        for (seq, detail) in &rows {
            assert!(
                *detail == kill_test_detail(*seq),
                "round {round}: attempt {seq} is partial"
            );
        }
        let counter: i64 = conn
            .query_row(
                "SELECT shown FROM hint WHERE lab_id = ?1",
                [KILL_TEST_LAB],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(counter, seqs.len() as i64, "round {round}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_hidden_recorder_is_not_in_the_help() {
    let out = run(&scratch(), &["help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("cargo labs watch"), "{help}");
    assert!(!help.contains("__record-attempts"), "{help}");
}

#[test]
fn a_missing_store_is_rebuilt_from_the_seals_in_predictions_txt() {
    let root = scratch();
    let at = "2026-01-02T03:04:05Z";
    let text = workbook::predictions::sealed(
        "unsafe-attempt-aborts = holds\nafter-unsafe-abort = b\n",
        at,
    );
    std::fs::write(root.join("labs/01-outbox/predictions.txt"), &text).unwrap();
    let hash = text
        .lines()
        .find(|l| l.starts_with("# sealed at first run: "))
        .and_then(|l| l.split_whitespace().last())
        .unwrap()
        .to_string();
    assert!(hash.starts_with("fnv64:"), "{text}");

    // A first store, then the learner deletes `.labs/` (or clones the work elsewhere).
    assert!(run(&root, &["hint", "01"]).status.success());
    std::fs::remove_dir_all(root.join(".labs")).unwrap();

    let out = run(&root, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("there was no progress store") && stderr.contains("filled from your files"),
        "{stderr}"
    );
    let conn = Connection::open(root.join(".labs/progress.db")).unwrap();
    let seal: (String, String) = conn
        .query_row(
            "SELECT sealed_at, hash FROM seal WHERE lab_id = 'outbox'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(seal, (at.to_string(), hash));
    // The learner's file is untouched by the rebuild.
    assert_eq!(
        std::fs::read_to_string(root.join("labs/01-outbox/predictions.txt")).unwrap(),
        text
    );

    // An existing store is opened quietly.
    let again = run(&root, &[]);
    assert!(again.status.success());
    assert!(
        !String::from_utf8_lossy(&again.stderr).contains("progress store"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let _ = std::fs::remove_dir_all(&root);
}
