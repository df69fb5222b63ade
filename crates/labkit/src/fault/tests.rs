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
        report.contains("replay: cargo labs replay 00 toy v2:0.0.0.0.1@"),
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
    assert_eq!(replayed.fit, Fit::Verified);
    assert_eq!(replayed.ran, failure.token);
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
    let original_faults = original.path().iter().filter(|&&i| i != 0).count();
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
    assert!(check_determinism(&[Token::fault_free()], leaky).is_err());
}

#[test]
fn tokens_round_trip_and_reject_garbage() {
    let failure = explore(scope(2), scenario(Bug::MarkBeforeSend))
        .failure
        .unwrap();
    let text = failure.token.to_string();
    assert!(text.starts_with("v2:0.0.0.0.1@"), "{text}");
    assert_eq!(
        text.len(),
        "v2:0.0.0.0.1@".len() + 5,
        "five hex digits: {text}"
    );
    assert_eq!(Token::parse(&text), Ok(failure.token.clone()));
    assert_eq!(failure.token.path(), &[0, 0, 0, 0, 1]);
    assert!(failure.token.sites().is_some());

    assert_eq!(Token::parse("v2:none"), Ok(Token::fault_free()));
    assert_eq!(
        Token::parse("v2:"),
        Ok(Token::fault_free()),
        "as printed before"
    );
    assert_eq!(Token::fault_free().to_string(), "v2:none");
    let old = Token::parse("v1:0.2.0.1").unwrap();
    assert_eq!(old, Token::unverified(vec![0, 2, 0, 1]));
    assert_eq!(old.sites(), None);
    assert_eq!(old.to_string(), "v1:0.2.0.1");
    assert_eq!(Token::parse("v1:"), Ok(Token::fault_free()));
    assert_eq!(
        Token::parse_all(&["v2:", "v1:2"]),
        vec![Token::fault_free(), Token::unverified(vec![2])]
    );
    assert!(Token::parse("0.1").is_err());
    assert!(Token::parse("v1:0.x").is_err());
    assert!(
        Token::parse("v2:0.1").is_err(),
        "a v2 token names its sites"
    );
    assert!(Token::parse("v2:0.1@12").is_err());
    assert!(Token::parse("v2:0.1@1234g").is_err());
}

/// A scenario of two choices, as one version of a lab had it, and a later version that
/// renamed the first site and added a crash point before it.
fn two_versions() -> (
    impl FnMut(&mut Sim) -> Verdict,
    impl FnMut(&mut Sim) -> Verdict,
) {
    let before = |sim: &mut Sim| {
        sim.choose("relay:send", &["ok", "lost"]);
        sim.choose("relay:mark", &["ok", "lost", "late"]);
        Ok(())
    };
    let after = |sim: &mut Sim| {
        sim.choose("relay:start", &["continue", "crash"]);
        sim.choose("relay:deliver", &["ok", "lost"]);
        sim.choose("relay:mark", &["ok", "lost", "late"]);
        Ok(())
    };
    (before, after)
}

#[test]
fn a_token_from_another_version_of_the_scenario_is_refused() {
    let (mut before, mut after) = two_versions();
    let all = explore_all(scope(2), &mut before);
    let token = all
        .runs
        .iter()
        .map(|r| r.token.clone())
        .find(|t| t.path() == [0, 2])
        .unwrap();
    // The same path fits the arity of the new version (0 then 2 is a legal choice there),
    // but it names other choices: refused, not replayed as another schedule.
    assert_eq!(replay(&token, &mut before).fit, Fit::Verified);
    let replayed = replay(&token, &mut after);
    assert!(replayed.is_stale(), "{:?}", replayed.fit);
    // A path the new code cannot take at all is refused too, and says where.
    let Fit::Stale(reason) = replay(&Token::parse("v1:0.3").unwrap(), &mut before).fit else {
        panic!("a choice beyond the options offered is stale");
    };
    assert!(
        reason.contains("choice 2 asks for option 3 at `relay:mark`"),
        "{reason}"
    );
    // A v1 token replays, unverified; the fault-free token fits every version.
    assert_eq!(
        replay(&Token::unverified(vec![0, 1]), &mut after).fit,
        Fit::Unverified
    );
    assert_eq!(replay(&Token::fault_free(), &mut after).fit, Fit::Verified);
}

#[test]
fn a_replay_that_ends_before_the_token_does_is_stale() {
    let replayed = replay(&Token::unverified(vec![0, 0, 1]), |sim: &mut Sim| {
        sim.choose("only", &["a", "b"]);
        Ok(())
    });
    assert!(replayed.is_stale(), "{:?}", replayed.fit);
}

#[test]
fn a_stale_token_is_reported_as_diverged() {
    let replayed = replay(&Token::unverified(vec![7]), |sim: &mut Sim| {
        sim.choose("only", &["a", "b"]);
        Ok(())
    });
    assert!(replayed.is_stale());
}

/// A relay that retries a lost delivery forever: with no fault it finishes; once a
/// response is lost it never stops.
fn retry_forever(sim: &mut Sim) -> Verdict {
    sim.crash_point("relay:start").ok();
    let mut lost_once = false;
    loop {
        let fate = sim.fate("receiver:deliver", &[Fate::Ok, Fate::AppliedResponseLost]);
        sim.event("relay", Glyph::Indefinite, || {
            ("deliver m1".into(), fate.label().into())
        });
        lost_once |= fate != Fate::Ok;
        if !lost_once {
            return Ok(());
        }
    }
}

#[test]
fn a_schedule_that_never_finishes_is_a_failure_with_a_token_and_a_timeline() {
    let failure = explore(scope(1), retry_forever)
        .failure
        .expect("the endless retry is reported");
    assert_eq!(
        failure.violation.invariant,
        format!("every schedule finishes within {DEFAULT_CHOICE_LIMIT} choices")
    );
    let report = failure.to_string();
    assert!(
        report.contains(&format!(
            "did not finish after {DEFAULT_CHOICE_LIMIT} choices"
        )),
        "{report}"
    );
    assert!(report.contains("receiver:deliver (100)"), "{report}");
    assert_eq!(failure.token.path(), &[0, 1], "the prefix up to the fault");
    assert!(
        report.contains("replay: cargo labs replay 00 toy v2:0.1@"),
        "{report}"
    );
    // The timeline shows the loop, not ten thousand lines.
    assert!(report.lines().count() < 60, "{report}");
    assert!(report.contains("earlier events not shown"), "{report}");
    // The token replays to the same failure.
    let replayed = replay(&failure.token, retry_forever);
    assert_eq!(replayed.fit, Fit::Verified);
    assert_eq!(replayed.verdict.unwrap_err(), failure.violation);
}

#[test]
fn a_scenario_longer_by_design_raises_its_choice_limit() {
    let long = |limit: usize| {
        move |sim: &mut Sim| {
            sim.limit_choices(limit);
            for _ in 0..2 * DEFAULT_CHOICE_LIMIT {
                sim.choose("step", &["ok", "fail"]);
            }
            Ok(())
        }
    };
    assert!(
        explore(scope(0), long(DEFAULT_CHOICE_LIMIT))
            .failure
            .is_some()
    );
    explore(scope(0), long(3 * DEFAULT_CHOICE_LIMIT)).assert_ok_reaching(0);
    let failure = explore(scope(0), long(50)).failure.unwrap();
    assert!(failure.violation.invariant.contains("within 50 choices"));
    // A random run is stopped the same way.
    let report = random(scope(0), 1, 1, (0, 1), long(50));
    assert!(report.failure.is_some());
}

#[test]
fn a_seeded_run_returns_the_token_that_replays_it() {
    let seeded = run_seeded(42, (1, 3), scenario(Bug::ReceiverWithoutIdentity));
    let report = random(
        scope(0),
        42,
        1,
        (1, 3),
        scenario(Bug::ReceiverWithoutIdentity),
    );
    assert_eq!(seeded.verdict.is_err(), report.failure.is_some());
    if let Some(original) = report.original {
        assert_eq!(seeded.token, original);
    }
    assert!(!seeded.faults.is_empty(), "seed 42 takes a fault");
    assert_ne!(
        seeded.token.path().last(),
        Some(&0),
        "trailing zeros dropped"
    );
    let replayed = replay(&seeded.token, scenario(Bug::ReceiverWithoutIdentity));
    assert_eq!(replayed.fit, Fit::Verified);
    assert_eq!(replayed.faults, seeded.faults);
    assert_eq!(replayed.verdict, seeded.verdict);
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

fn event(tick: u64, actor: &'static str, glyph: Glyph, client: &str, truth: &str) -> Event {
    Event {
        tick,
        actor,
        glyph,
        client: client.into(),
        truth: truth.into(),
    }
}

/// Every character of `part` but whitespace appears in `whole`'s, in order from `from`:
/// wrapping may only add line breaks and indentation.
fn find_unwrapped(whole: &str, part: &str, from: usize) -> Option<usize> {
    let strip = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let (whole, part) = (strip(whole), strip(part));
    whole[from..].find(&part).map(|at| from + at + part.len())
}

#[test]
fn a_wide_timeline_renders_within_the_width_with_nothing_lost() {
    let events = vec![
        event(
            0,
            "writer",
            Glyph::Recover,
            "writer-1 starts and opens journal.db",
            "",
        ),
        event(
            9,
            "writer",
            Glyph::Crash,
            "crash at writer:after-append",
            "memory and connections lost",
        ),
        event(
            9,
            "writer",
            Glyph::Recover,
            "writer-1 ends: crashed at writer:after-append",
            "its memory is gone; journal.db remains",
        ),
        event(
            11,
            "consumer",
            Glyph::Error,
            "COMMIT: ABORTED (Transaction locks invalidated) because another transaction committed first on the same hot row",
            "hot(0, 0) read at version 1, now 2; the retry re-reads from the committed offset, which had already moved past 0#1",
        ),
        event(
            12,
            "p0",
            Glyph::Normal,
            &format!("payload {}", "x".repeat(130)),
            "a word longer than any line is cut, not dropped",
        ),
    ];
    for width in [40, 60, 88, 120, 400] {
        let text = render_timeline_width(&events, width);
        for line in text.lines() {
            assert!(
                line.chars().count() <= width,
                "wider than {width}: `{line}`\n{text}"
            );
        }
        let mut at = 0;
        for e in &events {
            at = find_unwrapped(&text, &e.client, at)
                .unwrap_or_else(|| panic!("lost `{}` at width {width}:\n{text}", e.client));
            at = find_unwrapped(&text, &e.truth, at)
                .unwrap_or_else(|| panic!("lost `{}` at width {width}:\n{text}", e.truth));
        }
        assert_eq!(text, render_timeline_width(&events, width), "deterministic");
    }
    // At the book's width the short truths stay in their column, the long ones stack.
    let book = render_timeline(&events);
    assert!(
        book.lines()
            .any(|l| l.contains("crash at writer:after-append")
                && l.ends_with("memory and connections lost")),
        "{book}"
    );
    assert!(
        book.lines()
            .any(|l| l.trim_start().starts_with("truth: its memory is gone")),
        "{book}"
    );
    // A timeline that fits is one line per event, as it always was: the truth column
    // starts after the widest client text.
    let narrow = &events[..2];
    let text = render_timeline(narrow);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert_eq!(
        text.lines().nth(2).unwrap(),
        format!(
            "    9  writer ! {:<36}  memory and connections lost",
            "crash at writer:after-append"
        )
    );
}

#[test]
fn a_failure_report_fits_the_width_it_is_given() {
    let failure = explore(scope(2), scenario(Bug::MarkBeforeSend))
        .failure
        .unwrap();
    for width in [44, 88] {
        let report = format!("{failure:width$}");
        for line in report.lines().filter(|l| !l.starts_with("replay: ")) {
            assert!(line.chars().count() <= width, "`{line}`\n{report}");
        }
        assert!(find_unwrapped(&report, "Contradiction: exactly once means one.", 0).is_some());
        assert!(report.ends_with(&format!(" {}", failure.token)), "{report}");
    }
    assert_eq!(format!("{failure}"), format!("{failure:88}"));
}

#[test]
fn a_crash_matrix_row_too_wide_puts_its_outcome_under_its_fault() {
    let matrix = CrashMatrix {
        rows: vec![
            MatrixRow {
                fault: "writeapi:BatchCommitWriteStreams=applied, response lost".into(),
                broken: Some("one append identity per source range".into()),
            },
            MatrixRow {
                fault: "coordinator:after-commit=crash".into(),
                broken: None,
            },
        ],
    };
    let text = matrix.render_width(60);
    assert!(text.lines().all(|l| l.chars().count() <= 60), "{text}");
    assert!(
        text.contains("response lost\n    FAIL: one append identity per source range\n"),
        "{text}"
    );
    assert!(
        text.contains("coordinator:after-commit=crash  pass\n"),
        "{text}"
    );
}
