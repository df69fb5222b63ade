//! A bounded load test on loopback: 300 learners vote on 34 items of lab 01, both rounds,
//! from eight client threads at once, and the database holds every vote. It counts; it
//! does not time (the benchmark example does).

use super::common;
use super::harness::{Poll, accepted, lab, vote};
use std::collections::BTreeMap;
use workbook::meta::{Lab, item_id};
use workbook::poll::wire::{Choice, Round};

const LEARNERS: usize = 300;
const ITEMS: usize = 34;
const THREADS: usize = 8;

/// Learner `k`'s answer to item `i` in `round`: spread over the item's choices.
fn answer(lab: &Lab, k: usize, i: usize, round: Round) -> Choice {
    let checks = lab.meta.checks.len();
    let spin = k * 7 + i * 3 + usize::from(round.number());
    if i < checks {
        if spin.is_multiple_of(2) {
            Choice::Yes
        } else {
            Choice::No
        }
    } else {
        let letters: Vec<&String> = lab.meta.questions[i - checks].options.keys().collect();
        Choice::try_from(letters[spin % letters.len()].clone()).unwrap()
    }
}

/// Every learner `k ≡ t (mod THREADS)` votes in `round`, thread `t`; returns their tokens.
fn round_of_votes(
    poll: &Poll,
    lab: &Lab,
    round: Round,
    tokens: &[Option<String>],
) -> Vec<Option<String>> {
    let mut out = vec![None; LEARNERS];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    for k in (t..LEARNERS).step_by(THREADS) {
                        let answers: Vec<(String, Choice)> = (0..ITEMS)
                            .map(|i| (item_id(i), answer(lab, k, i, round)))
                            .collect();
                        let pairs: Vec<(&str, Choice)> =
                            answers.iter().map(|(id, c)| (id.as_str(), *c)).collect();
                        let mut ballot = vote(poll, lab, &format!("learner {k:03}"), round, &pairs);
                        ballot.token = tokens[k].clone();
                        mine.push((k, accepted(&poll.vote(&ballot)).token));
                    }
                    mine
                })
            })
            .collect();
        for handle in handles {
            for (k, token) in handle.join().unwrap() {
                out[k] = Some(token);
            }
        }
    });
    out
}

#[test]
fn three_hundred_learners_thirty_four_items_two_rounds_lose_no_vote() {
    let dir = common::scratch_dir("poll-load");
    let poll = Poll::start(&dir.join("poll.db"), &["--labs", "01", "--rate", "100000"]);
    let outbox = lab("outbox");
    let tokens = round_of_votes(&poll, &outbox, Round::One, &vec![None; LEARNERS]);
    assert_eq!(poll.teacher_action("labs/01/rounds/1/close").status, 303);
    let again = round_of_votes(&poll, &outbox, Round::Two, &tokens);
    assert_eq!(again, tokens, "round 2 came from the same learners");
    assert_eq!(poll.teacher_action("labs/01/rounds/2/close").status, 303);
    let expected_answers = (2 * LEARNERS * ITEMS) as i64;
    assert_eq!(
        poll.counts(),
        (LEARNERS as i64, 2 * LEARNERS as i64, expected_answers)
    );
    // Every answer counted where it belongs: the database's tally equals the script's.
    let conn = workbook::poll::db::open_for_reading(&poll.db).unwrap();
    let mut statement = conn
        .prepare("SELECT round, item, choice, count(*) FROM answers GROUP BY round, item, choice")
        .unwrap();
    let stored: BTreeMap<(u8, String, String), usize> = statement
        .query_map([], |r| {
            Ok((
                (r.get(0)?, r.get(1)?, r.get(2)?),
                r.get::<_, i64>(3)? as usize,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut scripted: BTreeMap<(u8, String, String), usize> = BTreeMap::new();
    for round in Round::BOTH {
        for k in 0..LEARNERS {
            for i in 0..ITEMS {
                let key = (
                    round.number(),
                    item_id(i),
                    answer(&outbox, k, i, round).to_string(),
                );
                *scripted.entry(key).or_default() += 1;
            }
        }
    }
    assert_eq!(stored, scripted);
    poll.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
