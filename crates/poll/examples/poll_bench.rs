//! The poll's latency and throughput on loopback: 300 learners vote on 40 items of lab
//! 01, round 1 (each vote binds a new name) and round 2 (each vote carries its token and
//! replaces nothing but itself), from 1, 8 and 32 client threads. Each client opens one
//! connection per vote, as `cargo labs predict N --send` does. Every vote is fsynced
//! (SQLite WAL, `synchronous = FULL`) before its receipt is sent.
//!
//! ```sh
//! cargo run --release --example poll_bench -p boundary-poll
//! ```

use boundary_poll::config::Config;
use std::path::Path;
use std::time::{Duration, Instant};
use workbook::meta::{Lab, item_id, load_labs};
use workbook::poll::http::{Endpoint, request};
use workbook::poll::wire::{Choice, Receipt, Round, Vote, items_digest};

const LEARNERS: usize = 300;
const ITEMS: usize = 40;

struct Poll {
    endpoint: Endpoint,
    code: String,
    teacher: String,
    db: std::path::PathBuf,
}

fn start(root: &Path, run: usize) -> Poll {
    let dir = std::env::temp_dir().join(format!("poll-bench-{}-{run}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args: Vec<String> = [
        "serve",
        "--labs",
        "01",
        "--listen",
        "127.0.0.1:0",
        "--rate",
        "1000000",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        "--root".into(),
        root.display().to_string(),
        "--db".into(),
        dir.join("poll.db").display().to_string(),
    ])
    .collect();
    let config = Config::from_args(&args).unwrap();
    let server = boundary_poll::start(&config).unwrap();
    let poll = Poll {
        endpoint: Endpoint::parse(&format!("http://{}", server.addr)).unwrap(),
        code: server.identity.code.clone(),
        teacher: format!("/teacher/{}/", server.identity.teacher_token),
        db: config.db.clone(),
    };
    std::thread::spawn(move || server.run());
    poll
}

fn ballot(poll: &Poll, lab: &Lab, k: usize, round: Round, token: Option<String>) -> Vec<u8> {
    let checks = lab.meta.checks.len();
    let answers = (0..ITEMS).map(|i| {
        let choice = if i < checks {
            if (k + i).is_multiple_of(2) {
                Choice::Yes
            } else {
                Choice::No
            }
        } else {
            Choice::Letter((b'a' + ((k + i) % 3) as u8) as char)
        };
        (item_id(i), choice)
    });
    let vote = Vote {
        code: poll.code.clone(),
        lab: lab.meta.id.clone(),
        items: items_digest(lab),
        round,
        name: format!("learner {k:03}"),
        token,
        answers: answers.collect(),
    };
    serde_json::to_vec(&vote).unwrap()
}

/// One round from `threads` clients; the latencies, the wall time and the tokens.
fn round(
    poll: &Poll,
    lab: &Lab,
    round: Round,
    threads: usize,
    tokens: &[Option<String>],
) -> (Vec<Duration>, Duration, Vec<Option<String>>) {
    let started = Instant::now();
    let mut latencies = Vec::new();
    let mut out = vec![None; LEARNERS];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    for k in (t..LEARNERS).step_by(threads) {
                        let body = ballot(poll, lab, k, round, tokens[k].clone());
                        let sent = Instant::now();
                        let reply =
                            request(&poll.endpoint, "POST", "/votes", "application/json", &body)
                                .unwrap();
                        let took = sent.elapsed();
                        assert_eq!(reply.status, 200, "{}", reply.body);
                        let receipt: Receipt = serde_json::from_str(&reply.body).unwrap();
                        mine.push((k, took, receipt.token));
                    }
                    mine
                })
            })
            .collect();
        for handle in handles {
            for (k, took, token) in handle.join().unwrap() {
                latencies.push(took);
                out[k] = Some(token);
            }
        }
    });
    (latencies, started.elapsed(), out)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let labs = load_labs(&root).unwrap().labs;
    let lab = labs.iter().find(|l| l.meta.id == "outbox").unwrap();
    println!("| clients | round | votes | votes/s | p50 ms | p99 ms | max ms |");
    println!("|---|---|---|---|---|---|---|");
    for (run, threads) in [1, 8, 32].into_iter().enumerate() {
        let poll = start(&root, run);
        let mut tokens = vec![None; LEARNERS];
        for r in Round::BOTH {
            let (mut latencies, wall, got) = round(&poll, lab, r, threads, &tokens);
            tokens = got;
            latencies.sort();
            println!(
                "| {threads} | {r} | {} | {:.0} | {:.1} | {:.1} | {:.1} |",
                latencies.len(),
                latencies.len() as f64 / wall.as_secs_f64(),
                percentile(&latencies, 0.5),
                percentile(&latencies, 0.99),
                percentile(&latencies, 1.0)
            );
            let close = format!("{}labs/01/rounds/{r}/close", poll.teacher);
            let reply = request(&poll.endpoint, "POST", &close, "text/plain", b"").unwrap();
            assert_eq!(reply.status, 303, "{}", reply.body);
        }
        let conn = workbook::poll::db::open_for_reading(&poll.db).unwrap();
        let answers: i64 = conn
            .query_row("SELECT count(*) FROM answers", [], |r| r.get(0))
            .unwrap();
        assert_eq!(answers as usize, 2 * LEARNERS * ITEMS, "a vote was lost");
    }
}
