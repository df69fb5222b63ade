//! A class session: twelve learners, two rounds, through the real CLI.

use super::common::{self, run_cli, stderr, stdout};
use super::harness::{Poll, chromium, dump_dom, lab, visible_text};
use std::path::{Path, PathBuf};
use workbook::poll::wire::Choice;

const LEARNERS: usize = 12;

/// Learner `k`'s answers to q01 (a question about the run) and q26 (the first
/// multiple-choice question) in `round`: round 1 splits the class, round 2 converges.
fn answers(k: usize, round: u8) -> (&'static str, &'static str) {
    match round {
        1 => (if k < 7 { "yes" } else { "no" }, ["a", "b", "c"][k % 3]),
        _ => (
            if k < 10 { "yes" } else { "no" },
            if k < 11 { "b" } else { "c" },
        ),
    }
}

fn roster(dir: &Path) -> PathBuf {
    let mut csv = String::from("id,name\n");
    for k in 0..LEARNERS {
        csv.push_str(&format!("s{k:02},\"Learner {k:02}\"\n"));
    }
    let path = dir.join("roster.csv");
    std::fs::write(&path, csv).unwrap();
    path
}

/// `cargo labs predict 01 --set …` then `--send …` from learner `k`'s own workbook; the
/// predictions file is byte for byte the same after the send.
fn predict_and_send(poll: &Poll, workbook: &Path, k: usize, round: u8) {
    let (q01, q26) = answers(k, round);
    let set = run_cli(
        workbook,
        &[
            "predict",
            "01",
            "--set",
            &format!("q01={q01}"),
            "--set",
            &format!("q26={q26}"),
        ],
    );
    assert!(set.status.success(), "{}", stderr(&set));
    let file = workbook.join("labs/01-outbox/predictions.txt");
    let before = std::fs::read(&file).unwrap();
    let (url, round) = (poll.url(), round.to_string());
    let mut args = vec![
        "predict", "01", "--send", &url, "--code", &poll.code, "--round", &round,
    ];
    // The first vote names the learner: by the roster's name, or (learner 5) by the id.
    let name = if k == 5 {
        "s05".to_string()
    } else {
        format!("learner {k:02}")
    };
    if round == "1" {
        args.extend(["--name", &name]);
    }
    let sent = run_cli(workbook, &args);
    assert!(
        sent.status.success(),
        "learner {k}, round {round}: {}",
        stderr(&sent)
    );
    assert!(
        stdout(&sent).contains(&format!(
            "sent 2/35 answers of lab 01, round {round}, as Learner {k:02}"
        )),
        "{}",
        stdout(&sent)
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "sending changed predictions.txt"
    );
}

#[test]
fn a_class_votes_twice_and_the_teacher_sees_both_rounds() {
    let dir = common::scratch_dir("poll-class");
    let db = dir.join("poll.db");
    let poll = Poll::start(
        &db,
        &["--labs", "01", "--roster", roster(&dir).to_str().unwrap()],
    );
    assert!(
        poll.banner.contains("(answers this machine only)"),
        "{}",
        poll.banner
    );
    let workbooks: Vec<PathBuf> = (0..LEARNERS).map(|_| common::lab01_metadata()).collect();
    for (k, workbook) in workbooks.iter().enumerate() {
        predict_and_send(&poll, workbook, k, 1);
    }
    assert_eq!(poll.teacher_action("labs/01/rounds/1/close").status, 303);
    for (k, workbook) in workbooks.iter().enumerate() {
        predict_and_send(&poll, workbook, k, 2);
    }
    assert_eq!(poll.teacher_action("labs/01/rounds/2/close").status, 303);
    assert_eq!(poll.counts(), (12, 24, 48));
    teachers_page_shows_both_rounds(&poll);
    grader_reads_round_one(&db);
    // A restart with the same database: the same code, the same teacher's page, every vote,
    // and the learners' tokens still theirs (round 2 is closed: the vote is refused as such).
    let (code, teacher) = (poll.code.clone(), poll.teacher.clone());
    poll.stop();
    let poll = Poll::start(&db, &["--labs", "01"]);
    assert_eq!(
        (poll.code.as_str(), poll.teacher.as_str()),
        (code.as_str(), teacher.as_str())
    );
    assert_eq!(poll.counts(), (12, 24, 48));
    // The restart says what it resumed, and names the one polled lab in the command.
    assert!(
        poll.banner.contains("lab 01: round 1 and 2 closed")
            && poll
                .banner
                .contains("learners send: cargo labs predict 01 --send"),
        "{}",
        poll.banner
    );
    let (url, code) = (poll.url(), poll.code.clone());
    let late = run_cli(
        &workbooks[0],
        &[
            "predict", "01", "--send", &url, "--code", &code, "--round", "2",
        ],
    );
    assert_eq!(late.status.code(), Some(2));
    assert!(
        stderr(&late).contains("(409): round 2 of this lab was closed by the teacher"),
        "{}",
        stderr(&late)
    );
    poll.stop();
    for workbook in workbooks.iter().chain([&dir]) {
        let _ = std::fs::remove_dir_all(workbook);
    }
}

/// The cell of item `id`, round `class` (`r1`, `r2`), as text.
fn cell(dom: &str, id: &str, class: &str) -> String {
    let row = dom
        .split(&format!("id=\"lab-01-{id}\""))
        .nth(1)
        .unwrap_or_else(|| panic!("no row {id}:\n{dom}"));
    let row = row.split("</tr>").next().unwrap();
    let cell = row.split(&format!("class=\"{class}\">")).nth(1).unwrap();
    visible_text(cell.split("</td>").next().unwrap())
}

fn teachers_page_shows_both_rounds(poll: &Poll) {
    let Some(chromium) = chromium() else { return };
    let page = poll.endpoint.url(&poll.teacher);
    let dom = dump_dom(&chromium, &page);
    assert!(dom.contains(&poll.code), "the page shows the class code");
    let expected = [
        ("q01", "r1", "yes 7 58% no 5 42%"),
        ("q01", "r2", "yes 10 83% no 2 17%"),
        ("q26", "r1", "a 4 33% b 4 33% c 4 33% d 0 0%"),
        ("q26", "r2", "a 0 0% b 11 92% c 1 8% d 0 0%"),
        // Every learner left q02 blank: counted apart, not as 0 % of an answer.
        ("q02", "r1", "yes 0 0% no 0 0% 12 left it blank"),
    ];
    for (id, round, shown) in expected {
        assert_eq!(cell(&dom, id, round), shown, "{id}, {round}");
    }
    let text = visible_text(&dom);
    assert!(
        text.contains("Round 1: closed at") && text.contains("· 12 votes"),
        "{text}"
    );
    assert!(
        dom.contains("id=\"lab-01-q01\" class=\"split\""),
        "q01 split the class in round 1"
    );
    // The keys only once revealed.
    let outbox = lab("outbox");
    let explain = &outbox.key.checks[0].explain;
    assert!(!text.contains("Answer:") && !text.contains(explain.as_str()));
    assert_eq!(poll.teacher_action("labs/01/reveal").status, 303);
    let text = visible_text(&dump_dom(&chromium, &page));
    let right = if outbox.meta.checks[0].answer_for(outbox.key.checks[0].holds) {
        "yes"
    } else {
        "no"
    };
    assert!(
        text.contains(&format!("Answer: {right} · {}", outbox.key.checks[0].claim)),
        "{text}"
    );
    assert!(text.contains(explain.as_str()));
    assert_eq!(poll.teacher_action("labs/01/hide").status, 303);
    assert!(!visible_text(&dump_dom(&chromium, &page)).contains(explain.as_str()));
}

fn grader_reads_round_one(db: &Path) {
    let polled = workbook::poll::db::round_one_answers(db).unwrap();
    assert_eq!(polled.len(), LEARNERS);
    for (k, learner) in polled.iter().enumerate() {
        assert_eq!(learner.name, format!("Learner {k:02}"));
        assert_eq!(
            learner.roster_id.as_deref(),
            Some(format!("s{k:02}").as_str())
        );
        let [lab] = learner.labs.as_slice() else {
            panic!("{learner:?}")
        };
        let (q01, q26) = answers(k, 1);
        assert_eq!(lab.lab, "outbox");
        assert_eq!(
            lab.answers["q01"],
            Choice::try_from(q01.to_string()).unwrap()
        );
        assert_eq!(
            lab.answers["q26"],
            Choice::try_from(q26.to_string()).unwrap()
        );
        assert!(lab.voted_at <= lab.closed_at, "{lab:?}");
    }
    grade_class_scores_the_votes(db);
}

/// `grade-class --predictions-from`: a learner's predictions are their round-1 vote,
/// sealed at the server's time of the vote, found by roster id or name; a learner the poll
/// does not know earns nothing, and the grade says why.
fn grade_class_scores_the_votes(db: &Path) {
    use workbook::class::polled::Polled;
    use workbook::grade::score::score_predictions;
    let polled = Polled::read(db).unwrap();
    let lab = common::every_lab()
        .into_iter()
        .find(|l| l.meta.id == "outbox")
        .unwrap();
    let right = lab.right_answers();
    for (k, name) in [(0, "s00"), (3, "Learner 03")] {
        let predictions = polled.predictions(name, &lab).unwrap().unwrap();
        let seal = predictions.seal.clone().unwrap();
        assert!(seal.intact(&lab), "a vote is sealed as a run seals");
        let (q01, _) = answers(k, 1);
        assert_eq!(predictions.answers["q01"].show(), q01);
        let (mut notes, mut integrity) = (Vec::new(), Vec::new());
        let mode = workbook::settings::PredictionMode::Correctness;
        let grade = score_predictions(
            &lab,
            Some(&predictions),
            None,
            mode,
            &mut notes,
            &mut integrity,
        );
        let expected = (predictions.answers.iter())
            .filter(|(id, a)| right.get(*id) == Some(a))
            .count();
        assert_eq!(grade.correct, expected);
        assert!(grade.revised.is_empty(), "a closed vote is never revised");
    }
    let stranger = polled.predictions("nobody-here", &lab).unwrap_err();
    assert!(
        stranger.contains("no vote under `nobody-here`"),
        "{stranger}"
    );
}

#[test]
fn a_workbook_without_the_server_says_the_poll_is_the_teachers() {
    let learner = common::lab01_metadata();
    let out = run_cli(&learner, &["poll", "serve"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("comes with the teacher's edition only"),
        "{}",
        stderr(&out)
    );
    let out = run_cli(&learner, &["poll", "start"]);
    assert!(
        stderr(&out).contains("usage: cargo labs poll serve"),
        "{}",
        stderr(&out)
    );
    let out = run_cli(&learner, &["predict", "01", "--send", "http://127.0.0.1:9"]);
    assert!(
        stderr(&out).contains("`--send` needs `--code CODE`"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&learner);
}
