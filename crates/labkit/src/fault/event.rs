//! What a run records: each decision ([`Choice`]) and each line of its timeline
//! ([`Event`], with its [`Glyph`]).

/// One recorded decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub site: &'static str,
    pub option: &'static str,
    pub index: usize,
    /// How many options the driver may still explore here (1 once the fault budget is
    /// spent or the run is healed).
    pub arity: usize,
}

/// The glyph in the first column of a timeline line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Glyph {
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
    pub fn symbol(self) -> char {
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
    pub tick: u64,
    pub actor: &'static str,
    pub glyph: Glyph,
    pub client: String,
    pub truth: String,
}
