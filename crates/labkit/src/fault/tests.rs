//! Tests of the fault core on a tiny outbox relay whose schedule counts can be worked out
//! by hand.

use super::*;
use std::collections::BTreeMap;

/// The durable world of the toy: outbox rows (id, sent) and the receiver's effects.
#[derive(Default)]
struct World {
    outbox: Vec<(&'static str, bool)>,
    effects: BTreeMap<&'static str, u32>,
    in_flight: Vec<&'static str>,
}

#[derive(Clone, Copy, PartialEq)]
enum Bug {
    None,
    MarkBeforeSend,
    ReceiverWithoutIdentity,
}

impl World {
    fn receive(&mut self, id: &'static str, bug: Bug) {
        let count = self.effects.entry(id).or_insert(0);
        if *count == 0 || bug == Bug::ReceiverWithoutIdentity {
            *count += 1;
        }
    }

    /// The network delivers whatever is still in flight.
    fn settle(&mut self, bug: Bug) {
        for late in std::mem::take(&mut self.in_flight) {
            self.receive(late, bug);
        }
    }

    fn send(&mut self, sim: &mut Sim, id: &'static str, bug: Bug) -> Result<(), &'static str> {
        // A request that was "applied later" lands before the next one.
        self.settle(bug);
        let fate = sim.fate(
            "receiver:deliver",
            &[Fate::Ok, Fate::AppliedResponseLost, Fate::AppliedLater],
        );
        sim.event(
            "relay",
            if fate.is_indefinite() {
                Glyph::Indefinite
            } else {
                Glyph::Normal
            },
            || {
                let seen = if fate.is_indefinite() {
                    "DEADLINE_EXCEEDED"
                } else {
                    "OK"
                };
                (format!("deliver {id} -> {seen}"), fate.label().to_string())
            },
        );
        match fate {
            Fate::Ok => {
                self.receive(id, bug);
                Ok(())
            }
            Fate::AppliedResponseLost => {
                self.receive(id, bug);
                Err("DEADLINE_EXCEEDED")
            }
            _ => {
                self.in_flight.push(id);
                Err("DEADLINE_EXCEEDED")
            }
        }
    }
}

fn relay_pass(world: &mut World, sim: &mut Sim, bug: Bug) -> Result<(), Crash> {
    for i in 0..world.outbox.len() {
        let (id, sent) = world.outbox[i];
        if sent {
            continue;
        }
        sim.crash_point("relay:before-send")?;
        if bug == Bug::MarkBeforeSend {
            world.outbox[i].1 = true;
            sim.crash_point("relay:after-mark")?;
            let _ = world.send(sim, id, bug);
        } else if world.send(sim, id, bug).is_ok() {
            sim.crash_point("relay:after-send")?;
            world.outbox[i].1 = true;
        }
    }
    Ok(())
}

fn scenario(bug: Bug) -> impl FnMut(&mut Sim) -> Verdict {
    move |sim: &mut Sim| {
        let mut world = World {
            outbox: vec![("m1", false), ("m2", false)],
            ..World::default()
        };
        for _pass in 0..3 {
            if relay_pass(&mut world, sim, bug).is_err() {
                sim.event("relay", Glyph::Recover, || {
                    ("restart from the outbox".into(), String::new())
                });
            }
        }
        sim.heal();
        world.settle(bug);
        relay_pass(&mut world, sim, bug).expect("healed runs do not crash");
        relay_pass(&mut world, sim, bug).expect("healed runs do not crash");
        for (id, _) in &world.outbox {
            let applied = world.effects.get(id).copied().unwrap_or(0);
            if applied != 1 {
                return Err(Violation::new(
                    "every outbox row takes effect exactly once",
                    &[
                        format!("Let {id} be an outbox row."),
                        format!("Then the receiver applied it {applied} time(s)."),
                        "Contradiction: exactly once means one.".into(),
                    ],
                ));
            }
        }
        Ok(())
    }
}

const fn scope(max_faults: usize) -> Scope {
    Scope {
        lab: "00",
        scenario: "toy",
        max_faults,
    }
}

#[test]
fn exhaustive_count_equals_the_hand_count_for_independent_choices() {
    // Two independent choices of arity 2 and 3: 1 schedule with 0 faults, (2-1)+(3-1) = 3
    // with one fault, 1*2 = 2 with two faults; 6 = 2*3 in all.
    let result = explore(scope(2), |sim| {
        sim.choose("a", &["x", "y"]);
        sim.choose("b", &["x", "y", "z"]);
        Ok(())
    });
    assert_eq!(result.per_level, vec![1, 3, 2]);
    assert_eq!(result.schedules, 6);
}

#[test]
fn one_fault_schedules_are_one_plus_crash_points_plus_twice_the_three_way_calls() {
    // With one fault, every choice after it has arity 1, so the count is 1 + K + 2M for K
    // crash points and M three-way calls on the fault-free path. Here, two rows, each with
    // a crash point before the send, a three-way send and a crash point after it.
    let result = explore_all(scope(1), scenario(Bug::None));
    assert_eq!(result.per_level, vec![1, 2 + 2 + 2 * 2]);
    assert!(result.failure.is_none(), "{}", result.failure.unwrap());
    assert_eq!(result.runs.len(), 9);
}

#[test]
fn a_correct_relay_survives_every_schedule_with_two_faults() {
    explore(scope(2), scenario(Bug::None)).assert_ok_reaching(2);
}

#[test]
#[should_panic(expected = "no schedule with 3 faults was explored")]
fn an_exploration_that_never_reaches_its_fault_budget_is_reported() {
    explore(scope(3), |sim: &mut Sim| {
        sim.choose("only", &["a", "b"]);
        Ok(())
    })
    .assert_ok_reaching(3);
}

#[test]
fn a_planted_bug_is_found_with_the_fewest_faults() {
    for bug in [Bug::MarkBeforeSend, Bug::ReceiverWithoutIdentity] {
        let result = explore(scope(2), scenario(bug));
        let failure = result.failure.expect("the bug is found");
        assert_eq!(failure.faults.len(), 1, "{failure}");
        assert_eq!(result.per_level[0], 1, "the fault-free run passes first");
    }
}

#[test]
fn mark_before_send_is_caught_at_the_crash_between_mark_and_send() {
    let failure = explore(scope(2), scenario(Bug::MarkBeforeSend))
        .failure
        .unwrap();
    assert_eq!(failure.faults, vec!["relay:after-mark=crash".to_string()]);
    let report = failure.to_string();
    assert!(report.contains("Let m2 be an outbox row."), "{report}");
    assert!(
        report.contains("replay: cargo labs replay 00 toy v1:0.0.0.0.1"),
        "{report}"
    );
    assert!(
        report.contains("  relay ! crash at relay:after-mark"),
        "{report}"
    );
}

#[test]
fn replay_reproduces_a_counterexample() {
    let failure = explore(scope(2), scenario(Bug::ReceiverWithoutIdentity))
        .failure
        .unwrap();
    let token = Token::parse(&failure.token.to_string()).unwrap();
    let replayed = replay(&token, scenario(Bug::ReceiverWithoutIdentity));
    assert_eq!(replayed.verdict.unwrap_err(), failure.violation);
    assert_eq!(replayed.events, failure.events);
    assert!(!replayed.diverged);
}

#[test]
fn shrinking_a_random_counterexample_yields_a_one_fault_schedule() {
    let report = random(
        scope(0),
        0xC0FFEE,
        500,
        (1, 2),
        scenario(Bug::MarkBeforeSend),
    );
    let failure = report
        .failure
        .expect("a fault-heavy random run finds the bug");
    let original = report.original.unwrap();
    let original_faults = original.0.iter().filter(|&&i| i != 0).count();
    assert!(original_faults >= failure.faults.len());
    assert_eq!(failure.faults.len(), 1, "{failure}");
}

#[test]
fn the_same_seed_prints_the_same_timeline_byte_for_byte() {
    let first = random(
        scope(0),
        42,
        200,
        (1, 3),
        scenario(Bug::ReceiverWithoutIdentity),
    );
    let second = random(
        scope(0),
        42,
        200,
        (1, 3),
        scenario(Bug::ReceiverWithoutIdentity),
    );
    let (a, b) = (first.failure.unwrap(), second.failure.unwrap());
    assert_eq!(a.to_string(), b.to_string());
    assert_eq!(first.runs, second.runs);
}

#[test]
fn the_determinism_self_check_passes_on_a_sample_and_catches_a_leak() {
    let all = explore_all(scope(1), scenario(Bug::None));
    let sample: Vec<Token> = all.runs.iter().map(|r| r.token.clone()).collect();
    assert_eq!(check_determinism(&sample, scenario(Bug::None)), Ok(9));

    // A scenario that reads ambient state outside the Sim is caught.
    let mut calls = 0u32;
    let leaky = move |sim: &mut Sim| {
        calls += 1;
        let n = calls;
        sim.note("leak", || format!("call number {n}"));
        Ok(())
    };
    assert!(check_determinism(&[Token(vec![])], leaky).is_err());
}

#[test]
fn tokens_round_trip_and_reject_garbage() {
    let token = Token(vec![0, 2, 0, 1]);
    assert_eq!(token.to_string(), "v1:0.2.0.1");
    assert_eq!(Token::parse("v1:0.2.0.1"), Ok(token));
    assert_eq!(Token::parse("v1:"), Ok(Token(vec![])));
    assert_eq!(
        Token::parse_all(&["v1:", "v1:2"]),
        vec![Token(vec![]), Token(vec![2])]
    );
    assert!(Token::parse("0.1").is_err());
    assert!(Token::parse("v1:0.x").is_err());
}

#[test]
fn a_stale_token_is_reported_as_diverged() {
    let replayed = replay(&Token(vec![7]), |sim: &mut Sim| {
        sim.choose("only", &["a", "b"]);
        Ok(())
    });
    assert!(replayed.diverged);
}

#[test]
fn a_panic_is_reported_as_a_bug_not_a_fault() {
    let result = explore(scope(0), |_sim: &mut Sim| -> Verdict {
        panic!("not yet implemented")
    });
    let failure = result.failure.unwrap();
    assert_eq!(
        failure.violation.invariant,
        "the code under test does not panic"
    );
    assert!(failure.violation.explanation[0].contains("not yet implemented"));
}

#[test]
fn the_crash_matrix_has_one_row_per_single_fault() {
    let all = explore_all(scope(1), scenario(Bug::MarkBeforeSend));
    let matrix = CrashMatrix::from_exploration(&all);
    let lost = matrix
        .cell("relay:after-mark=crash")
        .expect("row for the crash after mark");
    assert_eq!(
        lost.broken.as_deref(),
        Some("every outbox row takes effect exactly once")
    );
    let fine = matrix.cell("relay:before-send=crash").unwrap();
    assert_eq!(fine.broken, None);
    assert!(matrix.render().contains("relay:after-mark=crash"));
}
