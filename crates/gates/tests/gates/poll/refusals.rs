//! Bad input: each kind is refused with its 4xx and a reason, stores nothing, and the
//! server answers the next request.

use super::common;
use super::harness::{Poll, accepted, lab, vote};
use workbook::poll::http::Reply;
use workbook::poll::wire::{Choice, Refusal, Round, Vote};

/// One bad request: what it is, how to send it, and the refusal it must get.
struct Case<'a> {
    what: &'static str,
    send: Box<dyn Fn() -> Reply + 'a>,
    status: u16,
    reason: &'static str,
}

fn case<'a>(
    what: &'static str,
    status: u16,
    reason: &'static str,
    send: impl Fn() -> Reply + 'a,
) -> Case<'a> {
    Case {
        what,
        send: Box::new(send),
        status,
        reason,
    }
}

/// Sends the case's request and checks the refusal: its status, a phrase of its reason,
/// nothing stored, and the server answering afterwards.
fn refused(poll: &Poll, case: Case<'_>) {
    let what = case.what;
    let before = poll.counts();
    let reply = (case.send)();
    assert_eq!(reply.status, case.status, "{what}: {}", reply.body);
    let refusal: Refusal =
        serde_json::from_str(&reply.body).unwrap_or_else(|e| panic!("{what}: {e}: {}", reply.body));
    assert_eq!(refusal.kind.status(), case.status, "{what}");
    assert!(
        refusal.error.contains(case.reason),
        "{what}: `{}` does not say `{}`",
        refusal.error,
        case.reason
    );
    assert_eq!(poll.counts(), before, "{what} stored something");
    assert_eq!(poll.get("/").status, 200, "after {what}, the poll answers");
}

fn with(vote: &Vote, change: impl FnOnce(&mut Vote)) -> Vote {
    let mut vote = vote.clone();
    change(&mut vote);
    vote
}

/// Bodies that are no vote: not JSON, a malformed answer, another type, past the cap.
fn bodies<'a>(poll: &'a Poll, good: &'a Vote) -> Vec<Case<'a>> {
    let json = "application/json";
    let maybe = serde_json::to_string(good)
        .unwrap()
        .replace("\"yes\"", "\"maybe\"");
    vec![
        case(
            "a body that is not JSON",
            400,
            "not well formed",
            move || poll.post("/votes", json, b"{\"code\": "),
        ),
        case(
            "an answer that is none",
            400,
            "is not an answer",
            move || poll.post("/votes", json, maybe.as_bytes()),
        ),
        case(
            "another content type",
            415,
            "Content-Type: application/json",
            || poll.post("/votes", "text/plain", b"hello"),
        ),
        case(
            "a body past the cap",
            413,
            "at most 16384 bytes",
            move || poll.post("/votes", json, &vec![b' '; 64 * 1024]),
        ),
    ]
}

/// A change that spoils a good vote, and the refusal the spoiled vote gets.
type Spoiled = (&'static str, u16, &'static str, fn(&mut Vote));

/// Votes for the wrong class, lab or items, or under a name not the sender's to use.
const SPOILED: [Spoiled; 14] = [
    ("a wrong class code", 403, "not the class code", |v| {
        v.code = "ZZZ".into()
    }),
    ("a lab that does not exist", 404, "not in this poll", |v| {
        v.lab = "99".into()
    }),
    ("a lab not polled", 404, "it polls lab 01", |v| {
        v.lab = "snapshots".into()
    }),
    ("a lab asked otherwise", 409, "asks other questions", |v| {
        v.items = "0".into()
    }),
    ("no answer", 400, "holds no answer", |v| v.answers.clear()),
    (
        "an item the lab lacks",
        400,
        "`q99` is not an item of lab 01",
        |v| {
            v.answers.insert("q99".into(), Choice::Yes);
        },
    ),
    ("an item named otherwise", 400, "`q1` is not an item", |v| {
        v.answers.insert("q1".into(), Choice::Yes);
    }),
    ("a letter for yes/no", 400, "takes `yes` or `no`", |v| {
        v.answers.insert("q01".into(), Choice::Letter('b'));
    }),
    (
        "a letter not offered",
        400,
        "takes one of a, b, c, d",
        |v| {
            v.answers.insert("q26".into(), Choice::Letter('z'));
        },
    ),
    ("an empty name", 400, "a name is 1 to 60", |v| {
        v.name = " ".into()
    }),
    ("a name off the roster", 403, "not on the class list", |v| {
        v.name = "Eve".into()
    }),
    (
        "a bound name, no token",
        401,
        "Ada Lovelace already votes from another",
        |_| (),
    ),
    (
        "another's token",
        403,
        "nobody may vote as somebody else",
        |v| {
            v.token = Some("0".repeat(32));
        },
    ),
    (
        "a token of another form",
        403,
        "not one this poll gives",
        |v| {
            v.token = Some("x".into());
        },
    ),
];

fn spoiled<'a>(poll: &'a Poll, good: &'a Vote) -> Vec<Case<'a>> {
    let case_of = |(what, status, reason, change): Spoiled| {
        case(what, status, reason, move || poll.vote(&with(good, change)))
    };
    SPOILED.into_iter().map(case_of).collect()
}

/// Rounds not open: round 2 before round 1 closes, for a vote and for the teacher.
fn early<'a>(poll: &'a Poll, good: &'a Vote, token: &'a str) -> Vec<Case<'a>> {
    let round_two = with(good, |v| {
        v.round = Round::Two;
        v.token = Some(token.to_string());
    });
    vec![
        case(
            "round 2 too early",
            409,
            "opens when the teacher closes round 1",
            move || poll.vote(&round_two),
        ),
        case(
            "round 2 closed first",
            409,
            "close round 1 first",
            move || poll.teacher_action("labs/01/rounds/2/close"),
        ),
    ]
}

/// Paths that are not the poll's, or not the asker's.
fn paths(poll: &Poll) -> Vec<Case<'_>> {
    let wrong = format!("/teacher/{}", "f".repeat(32));
    let action = format!("{wrong}/labs/01/reveal");
    vec![
        case("a path not the poll's", 404, "nothing here", || {
            poll.get("/admin")
        }),
        case("a vote by GET", 405, "POST /votes", || poll.get("/votes")),
        case(
            "a wrong teacher's token",
            403,
            "not the teacher's token",
            move || poll.get(&format!("{wrong}/")),
        ),
        case(
            "a wrong token's action",
            403,
            "not the teacher's token",
            move || poll.post(&action, "text/plain", b""),
        ),
    ]
}

#[test]
fn every_bad_input_is_refused_with_its_reason_and_stores_nothing() {
    let dir = common::scratch_dir("poll-refusals");
    let roster = dir.join("roster.csv");
    std::fs::write(&roster, "s01,Ada Lovelace\ns02,Grace Hopper\n").unwrap();
    // Flood control has a test of its own: here fifty requests in a second must all pass.
    let args = [
        "--labs",
        "01",
        "--rate",
        "1000",
        "--roster",
        roster.to_str().unwrap(),
    ];
    let poll = Poll::start(&dir.join("poll.db"), &args);
    let answers = [("q01", Choice::Yes), ("q26", Choice::Letter('d'))];
    let good = vote(&poll, &lab("outbox"), "Ada Lovelace", Round::One, &answers);
    let ada = accepted(&poll.vote(&good));
    assert_eq!(poll.counts(), (1, 1, 2));
    let cases = (bodies(&poll, &good).into_iter())
        .chain(spoiled(&poll, &good))
        .chain(early(&poll, &good, &ada.token))
        .chain(paths(&poll));
    for case in cases {
        refused(&poll, case);
    }
    // Not HTTP at all: hyper refuses it (without a reason of ours) and the poll goes on.
    let garbage = poll.raw(b"\x16\x03\x01 hello, not http\r\n\r\n");
    assert!(garbage.starts_with("HTTP/1.1 4"), "{garbage}");
    assert_eq!(poll.get("/").status, 200);
    // A closed round.
    assert_eq!(poll.teacher_action("labs/01/rounds/1/close").status, 303);
    let late = with(&good, |v| v.token = Some(ada.token.clone()));
    let closed = case("a closed round", 409, "was closed by the teacher", || {
        poll.vote(&late)
    });
    refused(&poll, closed);
    assert_eq!(poll.counts(), (1, 1, 2), "the one vote stored is the first");
    poll.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_flood_from_one_address_is_refused_and_the_teacher_still_sees_the_page() {
    let dir = common::scratch_dir("poll-flood");
    // One request a second, three at once: a loop of forty votes cannot all pass.
    let poll = Poll::start(&dir.join("poll.db"), &["--labs", "01", "--rate", "1"]);
    let outbox = lab("outbox");
    let (mut passed, mut refused) = (0, 0);
    for i in 0..40 {
        let bot = vote(
            &poll,
            &outbox,
            &format!("bot {i}"),
            Round::One,
            &[("q01", Choice::Yes)],
        );
        let reply = poll.vote(&bot);
        match reply.status {
            200 => passed += 1,
            429 => {
                refused += 1;
                let refusal: Refusal = serde_json::from_str(&reply.body).unwrap();
                assert!(
                    refusal.error.contains("too many requests"),
                    "{}",
                    refusal.error
                );
            }
            other => panic!("{other}: {}", reply.body),
        }
    }
    assert!(refused > 0, "a flood of forty votes was never refused");
    assert_eq!(
        poll.counts(),
        (passed, passed, passed),
        "only the votes let through are stored"
    );
    let page = poll.get(&poll.teacher);
    assert_eq!(
        page.status, 200,
        "the teacher's page answers during the flood"
    );
    assert!(page.body.contains("Round 1: open"), "{}", page.body);
    poll.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
