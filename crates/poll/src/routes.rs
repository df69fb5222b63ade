//! What each request gets. The learner-facing part is two paths: `GET /` (what this is)
//! and `POST /votes`. The teacher's part lives under `/teacher/TOKEN/` and answers on
//! this machine only unless the teacher opts in (`--remote-teacher`): the page, the board
//! it refreshes, and the actions that close a round and show or hide a lab's keys.
//!
//! Only the teacher's page ever renders a key or an explanation, and only for a lab the
//! teacher revealed; no learner-facing answer is built from anything but the vote, the
//! receipt and the refusal types, none of which has room for one.

use crate::error::{PollError, Result};
use crate::limit::Limiter;
use crate::store::{Ballot, Identity, Store, same_secret};
use crate::{page, vote};
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::Instant;
use workbook::meta::Lab;
use workbook::poll::wire::{MAX_BODY_BYTES, Receipt, RefusalKind, Round, VOTES_PATH, Vote};

/// Everything a request may need.
pub struct State {
    /// The labs polled, with their keys (the teacher's edition).
    pub labs: Vec<Lab>,
    pub identity: Identity,
    pub store: Mutex<Store>,
    pub limiter: Mutex<Limiter>,
    pub remote_teacher: bool,
    pub listen: SocketAddr,
}

/// A request, as read by the HTTP layer: its body is already whole and within the cap.
pub struct Call {
    pub method: String,
    pub path: String,
    pub remote: IpAddr,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// What goes back: a status, a body and the headers that depend on the request.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    pub location: Option<String>,
    pub retry_after: Option<u64>,
}

impl Reply {
    fn ok(content_type: &'static str, body: String) -> Reply {
        Reply {
            status: 200,
            content_type,
            body,
            location: None,
            retry_after: None,
        }
    }

    fn see_other(location: String) -> Reply {
        Reply {
            status: 303,
            location: Some(location),
            ..Reply::ok("text/plain; charset=utf-8", String::new())
        }
    }

    /// A refusal: JSON, which the learner's CLI reads and a person can too.
    pub fn refused(error: &PollError) -> Reply {
        Reply {
            status: error.status(),
            retry_after: error.retry_after,
            ..Reply::ok(
                "application/json",
                serde_json::to_string(&error.refusal()).unwrap_or_default(),
            )
        }
    }
}

impl State {
    /// The rest of a teacher's path (`board`, `labs/…`) when `path` carries the right
    /// token; `None` for every other path.
    fn teacher_path<'p>(&self, path: &'p str) -> Option<&'p str> {
        let rest = path.strip_prefix("/teacher/")?;
        let (token, rest) = rest.split_once('/').unwrap_or((rest, ""));
        same_secret(token, &self.identity.teacher_token).then_some(rest)
    }

    /// Takes a token from the client's bucket (a request with the teacher's token from an
    /// address allowed to use it takes none: the teacher's page refreshes itself).
    pub fn admit(&self, path: &str, remote: IpAddr) -> Result<()> {
        if self.teacher_path(path).is_some() && self.teacher_may_call_from(remote) {
            return Ok(());
        }
        let admitted = self
            .limiter
            .lock()
            .expect("the limiter's lock")
            .admit(remote, Instant::now());
        admitted.map_err(|wait| PollError {
            retry_after: Some(wait.as_secs().max(1)),
            ..PollError::new(
                RefusalKind::TooMany,
                format!(
                    "too many requests from {remote}: wait {} s; one vote per round is enough",
                    wait.as_secs().max(1)
                ),
            )
        })
    }

    fn teacher_may_call_from(&self, remote: IpAddr) -> bool {
        self.remote_teacher || remote.to_canonical().is_loopback()
    }
}

/// Answers one request.
pub fn route(state: &State, call: Call) -> Reply {
    let answer = match call.path.strip_prefix("/teacher/") {
        Some(_) => teacher(state, &call),
        None => learner(state, &call),
    };
    answer.unwrap_or_else(|error| Reply::refused(&error))
}

fn learner(state: &State, call: &Call) -> Result<Reply> {
    match (call.method.as_str(), call.path.as_str()) {
        ("GET" | "HEAD", "/") => Ok(Reply::ok(
            "text/plain; charset=utf-8",
            page::learner_text(state),
        )),
        ("POST", VOTES_PATH) => take_vote(state, call),
        (_, "/" | VOTES_PATH) => Err(PollError::new(
            RefusalKind::WrongMethod,
            "send a vote with POST /votes; GET / says how",
        )),
        _ => Err(PollError::new(
            RefusalKind::NotFound,
            "nothing here: a poll answers GET / and POST /votes",
        )),
    }
}

fn take_vote(state: &State, call: &Call) -> Result<Reply> {
    let json = (call.content_type.as_deref())
        .is_some_and(|t| t.split(';').next() == Some("application/json"));
    if !json {
        return Err(PollError::new(
            RefusalKind::NotJson,
            "a vote is JSON: send it with Content-Type: application/json",
        ));
    }
    if call.body.len() > MAX_BODY_BYTES {
        return Err(too_large());
    }
    let vote: Vote = serde_json::from_slice(&call.body).map_err(|e| {
        PollError::new(
            RefusalKind::Malformed,
            format!("the vote is not well formed: {e}"),
        )
    })?;
    let lab = vote::check(&state.labs, &state.identity.code, &vote)?;
    let ballot = Ballot {
        lab: &lab.meta.id,
        round: vote.round,
        name: vote.name.trim(),
        token: vote.token.as_deref(),
        answers: &vote.answers,
    };
    let recorded = state
        .store
        .lock()
        .expect("the store's lock")
        .record(&ballot)?;
    let receipt = Receipt {
        lab: lab.meta.number.clone(),
        round: vote.round,
        name: recorded.name,
        token: recorded.token,
        received_at: recorded.received_at,
        answered: vote.answers.len(),
        items: lab.prediction_count(),
    };
    Ok(Reply::ok(
        "application/json",
        serde_json::to_string(&receipt).unwrap_or_default(),
    ))
}

pub fn too_large() -> PollError {
    PollError::new(
        RefusalKind::TooLarge,
        format!("a request body is at most {MAX_BODY_BYTES} bytes; a vote is far smaller"),
    )
}

fn teacher(state: &State, call: &Call) -> Result<Reply> {
    if !state.teacher_may_call_from(call.remote) {
        return Err(PollError::new(
            RefusalKind::TeacherOnly,
            "the teacher's page answers on the teacher's machine only (the poll was not started with --remote-teacher)",
        ));
    }
    let Some(rest) = state.teacher_path(&call.path) else {
        return Err(PollError::new(
            RefusalKind::TokenWrong,
            "this is not the teacher's token",
        ));
    };
    let base = format!("/teacher/{}/", state.identity.teacher_token);
    let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
    match (call.method.as_str(), parts.as_slice()) {
        ("GET" | "HEAD", []) => Ok(Reply::ok(
            "text/html; charset=utf-8",
            page::teacher_page(state, &page::tallies(state)?),
        )),
        ("GET" | "HEAD", ["board"]) => Ok(Reply::ok(
            "text/html; charset=utf-8",
            page::board(state, &page::tallies(state)?),
        )),
        ("POST", ["labs", lab, "rounds", round, "close"]) => {
            let lab = vote::find(&state.labs, lab)?;
            let round = (round.parse::<u8>().ok())
                .and_then(|r| Round::try_from(r).ok())
                .ok_or_else(|| PollError::new(RefusalKind::NotFound, "a round is 1 or 2"))?;
            state.store.lock().expect("the store's lock").close(
                &lab.meta.id,
                &lab.meta.number,
                round,
            )?;
            Ok(Reply::see_other(format!("{base}#lab-{}", lab.meta.number)))
        }
        ("POST", ["labs", lab, action @ ("reveal" | "hide")]) => {
            let lab = vote::find(&state.labs, lab)?;
            let mut store = state.store.lock().expect("the store's lock");
            let reveal = *action == "reveal";
            if reveal {
                // Once the keys are on the screen no vote may follow: every open round
                // of the lab closes (closing a closed one changes nothing).
                for round in Round::BOTH {
                    store.close(&lab.meta.id, &lab.meta.number, round)?;
                }
            }
            store.set_revealed(&lab.meta.id, reveal)?;
            Ok(Reply::see_other(format!("{base}#lab-{}", lab.meta.number)))
        }
        _ => Err(PollError::new(
            RefusalKind::NotFound,
            "the teacher's page has no such part",
        )),
    }
}
