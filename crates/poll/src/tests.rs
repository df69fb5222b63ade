//! The server's decisions without a network: requests are handed to [`route`] with the
//! client address a test chooses, so the teacher-only rule can be tried from a classroom
//! address that no loopback socket could give.

use crate::config::RosterEntry;
use crate::limit::Limiter;
use crate::routes::{Call, State, route};
use crate::store::{Ballot, Store};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use workbook::poll::wire::{Choice, Refusal, RefusalKind, Round};

/// A database of its own for the test `what`, in a folder of this run's; the folders of
/// earlier runs are removed by the first test that asks (where the run's process is gone).
fn scratch_db(what: &str) -> PathBuf {
    let base = std::env::temp_dir().join("boundary-poll-unit");
    static CLEARED: std::sync::Once = std::sync::Once::new();
    CLEARED.call_once(|| remove_ended_runs(&base));
    let dir = base.join(std::process::id().to_string()).join(what);
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("poll.db")
}

/// Removes the folders under `base` of runs whose process has ended (Linux: no
/// `/proc/PID`; elsewhere nothing is removed).
fn remove_ended_runs(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ended = name.parse::<u32>().is_ok_and(|pid| {
            pid != std::process::id()
                && cfg!(target_os = "linux")
                && !Path::new("/proc").join(&name).exists()
        });
        if ended {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn state(what: &str, remote_teacher: bool) -> State {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let labs = workbook::meta::load_labs(&root).unwrap().labs;
    let mut store = Store::open(&scratch_db(what)).unwrap();
    let identity = store.identity().unwrap();
    State {
        labs: labs.into_iter().take(1).collect(),
        identity,
        store: Mutex::new(store),
        limiter: Mutex::new(Limiter::new(1000)),
        remote_teacher,
        listen: "0.0.0.0:8470".parse().unwrap(),
    }
}

fn get(state: &State, path: &str, remote: &str) -> (u16, String) {
    let call = Call {
        method: "GET".into(),
        path: path.into(),
        remote: remote.parse::<IpAddr>().unwrap(),
        content_type: None,
        body: Vec::new(),
    };
    let reply = route(state, call);
    (reply.status, reply.body)
}

#[test]
fn the_teachers_page_answers_this_machine_only_unless_the_teacher_opts_in() {
    let closed = state("closed", false);
    let page = format!("/teacher/{}/", closed.identity.teacher_token);
    for here in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] {
        assert_eq!(get(&closed, &page, here).0, 200, "{here}");
    }
    let (status, body) = get(&closed, &page, "192.168.1.23");
    assert_eq!(status, 403);
    let refusal: Refusal = serde_json::from_str(&body).unwrap();
    assert_eq!(refusal.kind, RefusalKind::TeacherOnly);
    assert!(
        refusal.error.contains("--remote-teacher"),
        "{}",
        refusal.error
    );
    // A wrong token from the network learns nothing about the token either.
    assert_eq!(
        get(
            &closed,
            &format!("/teacher/{}/", "0".repeat(32)),
            "192.168.1.23"
        )
        .0,
        403
    );
    assert_eq!(
        get(&closed, "/", "192.168.1.23").0,
        200,
        "learners are served from anywhere"
    );
    let open = state("open", true);
    let page = format!("/teacher/{}/board", open.identity.teacher_token);
    assert_eq!(get(&open, &page, "192.168.1.23").0, 200);
}

#[test]
fn the_teachers_page_shows_item_text_as_text() {
    assert_eq!(
        crate::page::escape("<script>\"x\" & 'y'"),
        "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;"
    );
}

#[test]
fn a_restart_keeps_the_code_and_the_tokens_and_a_name_binds_once() {
    let path = scratch_db("restart");
    let mut store = Store::open(&path).unwrap();
    let identity = store.identity().unwrap();
    assert_eq!(identity.code.len(), 6);
    assert_eq!(identity.teacher_token.len(), 32);
    store
        .replace_roster(&[RosterEntry {
            id: "s01".into(),
            name: "Ada Lovelace".into(),
        }])
        .unwrap();
    let answers: BTreeMap<String, Choice> = [("q01".to_string(), Choice::Yes)].into();
    let ballot = |name, token| Ballot {
        lab: "outbox",
        round: Round::One,
        name,
        token,
        answers: &answers,
    };
    let first = store.record(&ballot("  ADA   lovelace ", None)).unwrap();
    assert_eq!(first.name, "Ada Lovelace", "the roster's spelling");
    drop(store);
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.identity().unwrap(), identity);
    let by_id = store.record(&ballot("S01", Some(&first.token))).unwrap();
    assert_eq!(
        by_id.token, first.token,
        "the id and the name are the same learner"
    );
    let err = store.record(&ballot("Ada Lovelace", None)).err().unwrap();
    assert_eq!(err.kind, RefusalKind::TokenMissing);
    let err = store.record(&ballot("Grace", None)).err().unwrap();
    assert_eq!(err.kind, RefusalKind::NotOnRoster);
    assert_eq!(
        store.tally("outbox").unwrap().rounds[0].voters,
        1,
        "one learner, one vote"
    );
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_file_that_is_not_a_polls_database_is_refused() {
    let path = scratch_db("foreign");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE progress (x)")
        .unwrap();
    let err = Store::open(&path).err().unwrap();
    assert!(err.contains("is not a poll's database"), "{err}");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

/// The book's inline code shows as code on the teacher's page, escaped; an unpaired
/// backtick stays a backtick.
#[test]
fn inline_code_is_shown_as_code() {
    use crate::page::text_with_code;
    assert_eq!(
        text_with_code("does `a < b` hold for `x`?"),
        "does <code>a &lt; b</code> hold for <code>x</code>?"
    );
    assert_eq!(text_with_code("a ` b"), "a ` b");
    assert_eq!(text_with_code("no code"), "no code");
}

/// Once the keys are on the screen no vote may follow: revealing a lab closes its open
/// rounds (a learner who read the key off the projector cannot change a round-1 vote).
#[test]
fn revealing_the_answers_closes_the_labs_rounds() {
    let state = state("reveal", false);
    let lab = state.labs[0].clone();
    let call = Call {
        method: "POST".into(),
        path: format!(
            "/teacher/{}/labs/{}/reveal",
            state.identity.teacher_token, lab.meta.number
        ),
        remote: "127.0.0.1".parse::<IpAddr>().unwrap(),
        content_type: None,
        body: Vec::new(),
    };
    assert_eq!(route(&state, call).status, 303);
    let tally = state.store.lock().unwrap().tally(&lab.meta.id).unwrap();
    assert!(tally.revealed);
    assert!(
        tally.rounds.iter().all(|round| round.closed_at.is_some()),
        "{:?}",
        tally
            .rounds
            .iter()
            .map(|r| &r.closed_at)
            .collect::<Vec<_>>()
    );
    let answers: BTreeMap<String, Choice> = [("q01".to_string(), Choice::Yes)].into();
    let late = state.store.lock().unwrap().record(&Ballot {
        lab: &lab.meta.id,
        round: Round::One,
        name: "Late Learner",
        token: None,
        answers: &answers,
    });
    assert!(late.is_err(), "a vote after the reveal is refused");
}
