//! No learner-facing answer carries a key, a claim, an explanation or a hint, of any
//! lab: not a receipt, not a refusal, not `GET /`, not what the CLI prints after a send,
//! and not even once the teacher has revealed every lab on the teacher's page.

use super::common::{self, run_cli, stderr, stdout};
use super::harness::{Poll, accepted, vote};
use workbook::meta::{Lab, item_id};
use workbook::poll::wire::{Choice, Round};

/// Every text a learner must not read here, with what it is.
fn secrets(labs: &[Lab]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = (workbook::export::secrets(labs).into_iter())
        .map(|s| (s.what, s.text))
        .collect();
    for lab in labs {
        let explained = (lab.key.checks.iter().map(|c| &c.explain))
            .chain(lab.key.questions.iter().map(|q| &q.explain));
        out.extend(
            explained.map(|e| (format!("lab {}'s explanation", lab.meta.number), e.clone())),
        );
        out.extend((lab.key.questions.iter()).map(|q| {
            (
                format!("lab {}'s name of a question", lab.meta.number),
                q.id.clone(),
            )
        }));
    }
    out
}

/// The fields a learner-facing JSON answer may have: a receipt's, a refusal's.
const FIELDS: [&str; 9] = [
    "lab",
    "round",
    "name",
    "token",
    "received_at",
    "answered",
    "items",
    "kind",
    "error",
];

fn check(what: &str, body: &str, secrets: &[(String, String)]) {
    for (name, text) in secrets {
        assert!(!body.contains(text.as_str()), "{what} holds {name}: {body}");
    }
    if let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(body) {
        for field in fields.keys() {
            assert!(
                FIELDS.contains(&field.as_str()),
                "{what} has a field `{field}`: {body}"
            );
        }
    }
}

/// Every answer of `lab` right, as its key has them (a learner who sent exactly the key
/// must get nothing back that says so).
fn right_answers(lab: &Lab) -> Vec<(String, Choice)> {
    (lab.right_answers().into_iter())
        .map(|(id, answer)| (id, Choice::of(&answer).unwrap()))
        .collect()
}

/// The learner-facing answers to a round of votes, good and bad, for every lab.
fn learner_answers(
    poll: &Poll,
    labs: &[Lab],
    round: Round,
    tokens: &mut [Option<String>],
) -> Vec<(String, String)> {
    let mut bodies = vec![
        ("GET /".to_string(), poll.get("/").body),
        ("GET /nowhere".to_string(), poll.get("/nowhere").body),
    ];
    for (lab, token) in labs.iter().zip(tokens.iter_mut()) {
        let n = &lab.meta.number;
        let answers = right_answers(lab);
        let pairs: Vec<(&str, Choice)> = answers.iter().map(|(id, c)| (id.as_str(), *c)).collect();
        let mut good = vote(poll, lab, &format!("learner of lab {n}"), round, &pairs);
        good.token = token.clone();
        let receipt = poll.vote(&good);
        *token = Some(accepted(&receipt).token);
        bodies.push((format!("lab {n}'s receipt"), receipt.body));
        let last = item_id(lab.prediction_count() - 1);
        let mut bad = good.clone();
        bad.answers.insert(
            last,
            if lab.meta.questions.is_empty() {
                Choice::Letter('a')
            } else {
                Choice::Yes
            },
        );
        bodies.push((format!("lab {n}'s refused answer"), poll.vote(&bad).body));
        bad.answers.insert("q99".into(), Choice::Yes);
        bodies.push((format!("lab {n}'s refused item"), poll.vote(&bad).body));
        bodies.push((
            format!("lab {n}'s other round"),
            poll.vote(&vote(poll, lab, "someone", Round::Two, &pairs))
                .body,
        ));
        let teacher = format!("/teacher/{}/board", "0".repeat(32));
        bodies.push((
            format!("lab {n}: the board with a wrong token"),
            poll.get(&teacher).body,
        ));
    }
    bodies
}

/// What a learner's CLI prints when it sends, both rounds (the second after the teacher
/// revealed every lab).
fn cli_sends(poll: &Poll) -> Vec<(String, String)> {
    let workbook = common::lab01_metadata();
    let set = ["predict", "01", "--set", "q01=yes", "--set", "q26=a"];
    let set = run_cli(&workbook, &set);
    assert!(set.status.success(), "{}", stderr(&set));
    let url = poll.url();
    let mut printed = Vec::new();
    for round in ["1", "2"] {
        let send = [
            "predict", "01", "--send", &url, "--code", &poll.code, "--round", round,
        ];
        let sent = run_cli(&workbook, &[&send[..], &["--name", "cli learner"]].concat());
        let text = format!("{}{}", stdout(&sent), stderr(&sent));
        printed.push((format!("the CLI's send, round {round}"), text));
    }
    let _ = std::fs::remove_dir_all(&workbook);
    printed
}

#[test]
fn no_learner_facing_answer_holds_a_key_a_claim_or_an_explanation() {
    let labs = common::labs();
    let secrets = secrets(&labs);
    let dir = common::scratch_dir("poll-leaks");
    let poll = Poll::start(&dir.join("poll.db"), &["--rate", "100000"]);
    let mut tokens = vec![None; labs.len()];
    let mut bodies = learner_answers(&poll, &labs, Round::One, &mut tokens);
    // The teacher closes round 1, the class votes again, and the teacher reveals every
    // lab (which closes its rounds): the learners' side stays as it was, the refusals of
    // votes sent after the reveal included.
    for lab in &labs {
        assert_eq!(
            poll.teacher_action(&format!("labs/{}/rounds/1/close", lab.meta.number))
                .status,
            303
        );
    }
    bodies.extend(learner_answers(&poll, &labs, Round::Two, &mut tokens));
    for lab in &labs {
        assert_eq!(
            poll.teacher_action(&format!("labs/{}/reveal", lab.meta.number))
                .status,
            303
        );
    }
    let page = poll.get(&poll.teacher).body;
    // An explanation the page shows as it is written (HTML escapes quotes and code).
    let plain = (labs.iter().flat_map(|l| &l.key.checks))
        .map(|c| c.explain.as_str())
        .find(|e| !e.contains(['\'', '"', '&', '<', '>', '`']))
        .expect("an explanation HTML shows unescaped");
    assert!(page.contains(plain), "the teacher's page shows the keys");
    bodies.push(("GET / once revealed".to_string(), poll.get("/").body));
    bodies.extend(cli_sends(&poll));
    assert!(bodies.len() > 6 * labs.len(), "{} answers", bodies.len());
    for (what, body) in &bodies {
        check(what, body, &secrets);
    }
    poll.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
