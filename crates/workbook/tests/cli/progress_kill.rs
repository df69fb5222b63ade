//! The progress store under a real kill, and rebuilt when it is missing.
//!
//! The kill test runs itself a second time as the recorder (this test binary, with
//! `RECORDER_STATE` set): it records attempts through the store's own API, one
//! transaction each, and prints each seq after its commit. The parent reads until it has
//! seen some committed attempts, kills the recorder with SIGKILL at whatever moment that
//! is, and reopens the store. The assertions hold for any kill moment: nothing committed
//! is lost, nothing half-written is visible, and the file passes `PRAGMA integrity_check`.

use rusqlite::Connection;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use workbook::progress::Progress;

use crate::common;

/// Set in the recorder's environment: the state folder it writes to.
const RECORDER_STATE: &str = "PROGRESS_KILL_RECORDER_STATE";
// The test's full name in this binary: `--exact` matches the whole path.
const KILL_TEST: &str = "progress_kill::a_process_killed_while_writing_loses_nothing_it_committed";
const LAB: &str = "__kill-test";

/// The detail the recorder writes for attempt `seq`: about 12 KB, so one attempt spans
/// several database pages, and each byte depends on `seq`.
fn detail(seq: i64) -> String {
    format!("attempt {seq}: ").repeat(1_000)
}

/// The recorder: attempts, one transaction each, forever; each seq printed after its
/// commit, in one write.
fn record_forever(state: &Path) -> ! {
    let (progress, _) = Progress::open(state).unwrap();
    let mut out = std::io::stdout().lock();
    // Earlier rounds left their attempts: go on from the last one.
    let mut seq: i64 = progress
        .connection()
        .query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM attempt", [], |r| {
            r.get(0)
        })
        .unwrap();
    loop {
        let written = progress
            .record_attempt(LAB, "check", "2026-01-01T00:00:00Z", 0, 0, &detail(seq))
            .unwrap();
        assert_eq!(written, seq);
        writeln!(out, "{seq}").unwrap();
        out.flush().unwrap();
        seq += 1;
    }
}

/// A scratch workbook with lab 01's metadata and starter file.
fn scratch() -> PathBuf {
    common::lab01_metadata()
}

fn run(root: &Path, args: &[&str]) -> Output {
    common::run_cli(root, args)
}

/// Starts the recorder, reads `wanted` committed seqs, kills it with SIGKILL, and returns
/// every seq it printed (the ones read before the kill and any left in the pipe).
fn record_then_kill(root: &Path, wanted: usize) -> Vec<i64> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", KILL_TEST, "--nocapture", "--test-threads", "1"])
        .env(RECORDER_STATE, root.join(".labs"))
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
        if let Ok(seq) = line.parse::<i64>() {
            printed.push(seq);
        }
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the recorder was killed, not finished");
    // A seq is printed, in one write, only after its commit: whatever is still in the
    // pipe was committed too.
    for line in lines {
        if let Ok(seq) = line.unwrap().parse::<i64>() {
            printed.push(seq);
        }
    }
    printed
}

#[test]
fn a_process_killed_while_writing_loses_nothing_it_committed() {
    if let Some(state) = std::env::var_os(RECORDER_STATE) {
        record_forever(Path::new(&state));
    }
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
            .query_map([LAB], |r| Ok((r.get(0)?, r.get(1)?)))
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
        // Nothing partial: no gap, and each attempt whole (its 12 KB detail spans pages).
        assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
        for (seq, text) in &rows {
            assert!(
                *text == detail(*seq),
                "round {round}: attempt {seq} is partial"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_missing_store_is_rebuilt_from_the_seals_in_predictions_txt() {
    let root = scratch();
    let at = "2026-01-02T03:04:05Z";
    let lab = workbook::meta::load_labs(&root).unwrap().labs.remove(0);
    let mut answers = std::collections::BTreeMap::new();
    let first = workbook::meta::item_id(0);
    answers.insert(first.clone(), workbook::predictions::Answer::Claim(true));
    let seal = workbook::predictions::Seal::new(&lab, &answers, at);
    let text = workbook::predictions::with_seal(&format!("{first} = yes\n"), &seal);
    std::fs::write(root.join("labs/01-outbox/predictions.txt"), &text).unwrap();

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
    let stored: (String, String) = conn
        .query_row(
            "SELECT sealed_at, answers FROM seal WHERE lab_id = 'outbox'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(stored, (at.to_string(), seal.answers.clone()));
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
