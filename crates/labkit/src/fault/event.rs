//! What a run records: each decision ([`Choice`]) and each line of its timeline
//! ([`Event`], with its [`Glyph`]).

/// One recorded decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The choice site's name, as the code under test passes it to [`Sim::choose`](super::Sim::choose).
    pub site: &'static str,
    /// The label of the option taken.
    pub option: &'static str,
    /// The index of the option taken: 0 is the fault-free path, and a token records it.
    pub index: usize,
    /// How many options the driver may still explore here (1 once the fault budget is
    /// spent or the run is healed).
    pub arity: usize,
}

/// The glyph in the first column of a timeline line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Glyph {
    /// A blank: an ordinary step, nothing went wrong.
    Normal,
    /// `!` a crash.
    Crash,
    /// `^` recovery after a crash.
    Recover,
    /// `~` an indefinite outcome: the caller does not know what happened.
    Indefinite,
    /// `x` a definite error.
    Error,
    /// `*` a fault injected into the world (a lost ack, a stale owner waking up).
    Fault,
}

impl Glyph {
    pub(crate) fn symbol(self) -> char {
        match self {
            Glyph::Normal => ' ',
            Glyph::Crash => '!',
            Glyph::Recover => '^',
            Glyph::Indefinite => '~',
            Glyph::Error => 'x',
            Glyph::Fault => '*',
        }
    }
}

/// One line of the timeline: what a participant saw, and what was really true.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The logical clock's reading when the line was recorded.
    pub tick: u64,
    /// The participant the line is about (a client, a server, the network).
    pub actor: &'static str,
    /// The mark in the line's first column, so a reader finds the faults at a glance.
    pub glyph: Glyph,
    /// What the participant saw, which may be wrong or incomplete.
    pub client: String,
    /// What was really true at that moment (empty when it is what the participant saw).
    pub truth: String,
}
