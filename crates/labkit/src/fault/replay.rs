//! Replaying a token, with the timeline recorded and a verdict on whether the token fits
//! the code ([`Fit`]), and the determinism self-check.

use super::event::Event;
use super::explore::{recording, run_once, silent};
use super::outcome::Verdict;
use super::sim::Sim;
use super::timeline::{render_timeline, render_timeline_width};
use super::token::{SiteDigest, Token};
use crate::hash::Fnv64;

/// Whether a replayed token fits the code it was replayed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The code offered the same choices along the token's path as the code it was made
    /// on (or the token is the fault-free one, the same schedule in every version).
    Verified,
    /// The token names no sites (a `v1:` token, or one built by hand): the code offered
    /// every option it asks for, but nothing proves they are the choices it was made on.
    Unverified,
    /// The token does not fit this code, for the reason given: it was made on another
    /// version of the scenario or of the code under test, and names another schedule
    /// here.
    Stale(String),
}

/// The result of replaying one token.
#[derive(Clone, Debug)]
pub struct Replay {
    /// Whether the replayed schedule kept every invariant.
    pub verdict: Verdict,
    /// The timeline the replay recorded.
    pub events: Vec<Event>,
    /// The faults taken, as `site=option`, in order.
    pub faults: Vec<String>,
    /// Whether the token fits this code.
    pub fit: Fit,
    /// The token of the schedule this code ran (with this code's site digest).
    pub ran: Token,
}

impl Replay {
    /// The timeline within [`BOOK_WIDTH`](super::BOOK_WIDTH) columns.
    pub fn timeline(&self) -> String {
        render_timeline(&self.events)
    }

    /// The timeline within `width` columns.
    pub(crate) fn timeline_width(&self, width: usize) -> String {
        render_timeline_width(&self.events, width)
    }

    /// True when the token does not fit the code it was replayed on.
    pub fn is_stale(&self) -> bool {
        matches!(self.fit, Fit::Stale(_))
    }

    /// A hash of everything the replay printed and concluded.
    pub fn fingerprint(&self) -> u64 {
        let mut hash = Fnv64::new();
        hash.write(self.timeline().as_bytes());
        hash.write(format!("{:?}", self.verdict).as_bytes());
        hash.finish()
    }
}

/// Whether `token` fits the run `sim` made along it.
fn fit(token: &Token, sim: &Sim) -> Fit {
    if let Some(d) = sim.divergence() {
        return Fit::Stale(format!(
            "its choice {} asks for option {} at `{}`, where this code offers {}",
            d.position + 1,
            d.asked,
            d.site,
            if d.offered == 1 {
                "no other option".to_string()
            } else {
                format!("options 0 to {}", d.offered - 1)
            }
        ));
    }
    let length = token.path().len();
    if length == 0 {
        return Fit::Verified;
    }
    let ran = sim.path();
    if ran.len() < length {
        return Fit::Stale(format!(
            "it names {length} choices, and this code's run makes only {}",
            ran.len()
        ));
    }
    match token.sites() {
        None => Fit::Unverified,
        Some(made_on) => {
            let here = SiteDigest::of(&ran[..length]);
            if here == made_on {
                Fit::Verified
            } else {
                Fit::Stale(format!(
                    "it was made on choices with digest {made_on}, and this code's choices along the same path have digest {here}"
                ))
            }
        }
    }
}

/// Replays one token with the timeline recorded, and says whether the token fits the code.
pub fn replay(token: &Token, mut scenario: impl FnMut(&mut Sim) -> Verdict) -> Replay {
    let mut sim = recording(token);
    let verdict = run_once(&mut scenario, &mut sim);
    Replay {
        verdict,
        events: sim.events().to_vec(),
        faults: sim.fault_list(),
        fit: fit(token, &sim),
        ran: Token::of_run(sim.path()),
    }
}

/// The determinism self-check: replays each token twice and compares the fingerprints of
/// what was printed. Also checks that recording a timeline does not change the path.
///
/// A token need not fit the code: the learner's code may offer other choices than the
/// code a suite's sample was made on, and a token names some schedule of it all the same,
/// which is what is replayed twice.
pub fn check_determinism(
    tokens: &[Token],
    mut scenario: impl FnMut(&mut Sim) -> Verdict,
) -> Result<usize, String> {
    for token in tokens {
        let first = replay(token, &mut scenario);
        let second = replay(token, &mut scenario);
        if first.fingerprint() != second.fingerprint() {
            return Err(format!(
                "schedule {token} printed two different timelines:\n{}\n---\n{}",
                first.timeline(),
                second.timeline()
            ));
        }
        let mut quiet = silent(token.path().to_vec(), usize::MAX);
        let verdict = run_once(&mut scenario, &mut quiet);
        if verdict.is_ok() != first.verdict.is_ok() || quiet.fault_list() != first.faults {
            return Err(format!(
                "schedule {token} behaves differently when its timeline is recorded"
            ));
        }
    }
    Ok(tokens.len())
}
