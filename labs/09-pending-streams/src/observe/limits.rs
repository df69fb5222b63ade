//! How long a pending stream may wait, on the fault core's logical clock (one tick per
//! simulated second): the chapter's night schedule, with one call lost or moved.

use super::{Batch, commit_time_text, error_names};
use labkit::Observation;
use labkit::fault::Fate;
use serde_json::{Map, Value};
use sim_writeapi::{FINALIZED_BUFFER_LIMIT, Faults, HOUR, short};

/// The night schedule, in seconds on the simulated clock.
const W2_CREATES: u64 = 4 * HOUR;
const S1_FINALIZED: u64 = 18 * HOUR;
const S2_FINALIZED: u64 = 20 * HOUR;
const COMMIT: u64 = 21 * HOUR;

/// A finalize request lost before the service, met by the fate of the call `at` (0 and 1
/// are the workers' appends, 2 the finalize of s1, 3 that of s2).
fn lost_finalize(at: usize) -> Batch {
    let faults = Faults {
        finalize: &[Fate::Ok, Fate::NotApplied],
        ..Faults::NONE
    };
    let mut path = vec![0; at];
    path.push(1);
    Batch::with_faults(faults, &path)
}

impl Batch {
    /// Moves the simulated clock on to `at` seconds.
    fn until(&mut self, at: u64) {
        let now = self.sim.now();
        assert!(now <= at, "the schedule runs forward");
        self.sim.advance(at - now);
    }

    /// The workers on the night schedule: s1 created at hour 0, s2 at hour 4.
    fn night_workers(&mut self) -> [String; 2] {
        let s1 = self.worker("W1", 0, 2);
        self.until(W2_CREATES);
        [s1, self.worker("W2", 2, 5)]
    }

    /// The night schedule up to the hour of its commit: the group.
    fn night_until_commit(&mut self) -> [String; 2] {
        let [s1, s2] = self.night_workers();
        self.until(S1_FINALIZED);
        self.finalize(&s1).expect("finalize s1");
        self.until(S2_FINALIZED);
        self.finalize(&s2).expect("finalize s2");
        self.until(COMMIT);
        [s1, s2]
    }
}

/// The night schedule with a finalize or a commit lost, or the finalizations moved.
pub fn the_night_schedule(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = lost_finalize(2);
    let [s1, s2] = b.night_workers();
    b.until(S1_FINALIZED);
    assert!(b.finalize(&s1).is_err(), "a scripted lost request");
    b.until(S2_FINALIZED);
    b.finalize(&s1).expect("finalize s1 again");
    b.finalize(&s2).expect("finalize s2");
    b.until(COMMIT + 2 * HOUR);
    let late = b.commit(&[s1, s2]).expect("commit");
    obs.ask("In another run on the night schedule, the first finalize request for s1 is lost before it reaches the service. The coordinator finalizes s1 again when it finalizes s2, and commits two hours later than scheduled. Is that commit accepted?", late.stream_errors.is_empty());

    let mut b = Batch::with_next_commit(Fate::AppliedResponseLost);
    let group = b.night_until_commit();
    assert!(b.commit(&group).is_err(), "a scripted lost response");
    b.until(COMMIT + 5 * HOUR);
    let retry = b.commit(&group).expect("the retry answers");
    let once = b.shows(0, 5) && b.most_copies() == 1;
    summary.insert(
        "night_retry_after_applied".into(),
        format!(
            "stream_errors {}; every row visible once: {once}",
            error_names(&retry)
        )
        .into(),
    );
    let hours = FINALIZED_BUFFER_LIMIT / HOUR;
    summary.insert("finalized_buffer_limit_hours".into(), hours.into());
    resend_after_a_lost_request(obs);
    group_after_a_lost_finalize(obs);
    two_clocks(obs);
}

/// s2's finalize request is lost; the commit at hour 21 is refused; at hour 22.5 the
/// coordinator finalizes s2 and sends the group again.
fn group_after_a_lost_finalize(obs: &mut Observation) {
    let mut b = lost_finalize(3);
    let [s1, s2] = b.night_workers();
    b.until(S1_FINALIZED);
    b.finalize(&s1).expect("finalize s1");
    b.until(S2_FINALIZED);
    assert!(b.finalize(&s2).is_err(), "a scripted lost request");
    b.until(COMMIT);
    let group = [s1, s2.clone()];
    let refused = b.commit(&group).expect("commit");
    assert!(!refused.stream_errors.is_empty(), "s2 is open");
    b.until(COMMIT + 3 * HOUR / 2);
    b.finalize(&s2).expect("finalize s2");
    let again = b.commit(&group).expect("commit again");
    let letter = match (b.shows(0, 2), b.shows(2, 5)) {
        (false, false) => "a",
        (true, false) => "b",
        (false, true) => "c",
        (true, true) => "d",
    };
    obs.choose("In another run on the night schedule, the finalize request for s2 is lost before it reaches the service, and the commit at the scheduled hour is refused. An hour and a half later the coordinator finalizes s2 and sends [s1, s2] again. Which rows does the table show then?",
        letter,
        format!(
            "the first commit answered stream_errors {}; the second {}; the table shows {} rows",
            error_names(&refused),
            error_names(&again),
            b.visible()
        ),
    );
}

/// The short names of the streams a commit's answer reports errors for.
fn streams_in_errors(b: &mut Batch, group: &[String]) -> (Vec<String>, String) {
    let answer = b.commit(group).expect("commit");
    let names = (answer.stream_errors.iter())
        .map(|e| short(&e.entity).to_string())
        .collect();
    let seen = format!(
        "commit_time {}, stream_errors {}; the table shows {} rows",
        commit_time_text(answer.commit_time),
        error_names(&answer),
        b.visible()
    );
    (names, seen)
}

/// Both streams finalized only at hour 21, the group committed at hour 24.5.
fn two_clocks(obs: &mut Observation) {
    let mut b = Batch::new();
    let [s1, s2] = b.night_workers();
    b.until(COMMIT);
    b.finalize(&s1).expect("finalize s1");
    b.finalize(&s2).expect("finalize s2");
    b.until(COMMIT + 7 * HOUR / 2);
    let (names, seen) = streams_in_errors(&mut b, &[s1, s2]);
    obs.choose("In another run on the night schedule, the coordinator finalizes both streams only at the scheduled commit hour, and commits three and a half hours later. Which streams does the answer's stream_errors name?",
        match names.join(" ").as_str() {
            "" => "a",
            "s1" => "b",
            "s2" => "c",
            "s1 s2" => "d",
            _ => "none of these",
        },
        seen,
    );
}

/// The commit request at hour 21 is lost; the next process sends it again two hours later.
fn resend_after_a_lost_request(obs: &mut Observation) {
    let mut b = Batch::with_next_commit(Fate::NotApplied);
    let group = b.night_until_commit();
    assert!(b.commit(&group).is_err(), "a scripted lost request");
    b.until(COMMIT + 2 * HOUR);
    let again = b.commit(&group).expect("the resend answers");
    obs.ask("In another run on the night schedule, the commit request is lost before it reaches the service. The coordinator's next process sends the same commit two hours later than scheduled. Is that commit accepted?", again.stream_errors.is_empty());
}
