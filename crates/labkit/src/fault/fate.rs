//! What a choice decides for the code under test: a [`Crash`] at a crash point, and the
//! [`Fate`] of a call to a simulated service.

use std::fmt;

/// The error that a crash point returns. Code propagates it with `?`; the scenario then
/// drops every volatile value (it goes out of scope), keeps what is durable (files,
/// SQLite databases, the simulated services' stores) and runs the recovery code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crash {
    /// The crash point's name, so the timeline and the fault list say where it crashed.
    pub point: &'static str,
}

impl fmt::Display for Crash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "crashed at {}", self.point)
    }
}

impl std::error::Error for Crash {}

/// What really happens to one call to a simulated service. The caller never sees this
/// value; the service turns it into a response or an error code, and the trace records it
/// as the truth beside what the caller saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Applied, and the response arrives.
    Ok,
    /// Refused before it was applied, with an error that says so (e.g. ABORTED from a
    /// commit, OVERLOADED or RESOURCE_EXHAUSTED from an overloaded server, an AppendRows
    /// response carrying `error`). Never a transport UNAVAILABLE: a broken connection says
    /// nothing about whether the server applied the call (google.rpc.Code: "it is not
    /// always safe to retry non-idempotent operations").
    Rejected,
    /// Applied, but the response is lost: the caller sees an indefinite error
    /// (e.g. DEADLINE_EXCEEDED).
    AppliedResponseLost,
    /// Never applied, and the caller sees the same indefinite error.
    NotApplied,
    /// Not applied yet: the request is still in flight and lands later, after the caller
    /// has already seen the indefinite error.
    AppliedLater,
}

impl Fate {
    /// Every fate, for a call that may meet any of them (`sim.fate(site, &Fate::ALL)`).
    pub const ALL: [Fate; 5] = [
        Fate::Ok,
        Fate::Rejected,
        Fate::AppliedResponseLost,
        Fate::NotApplied,
        Fate::AppliedLater,
    ];

    /// The fate in words, as fault lists and timelines print it.
    pub fn label(self) -> &'static str {
        match self {
            Fate::Ok => "ok",
            Fate::Rejected => "rejected (definite)",
            Fate::AppliedResponseLost => "applied, response lost",
            Fate::NotApplied => "not applied",
            Fate::AppliedLater => "applied later",
        }
    }

    /// True when the caller cannot tell from the response whether the effect happened.
    pub fn is_indefinite(self) -> bool {
        matches!(
            self,
            Fate::AppliedResponseLost | Fate::NotApplied | Fate::AppliedLater
        )
    }
}
