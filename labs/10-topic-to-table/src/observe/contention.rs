//! The seed's pipeline without any injected fault: no killed connection, no commit fault,
//! no lock break.

use super::protocols::{CONSUMER_OFFSET_AT_READ, ONE_TRANSACTION, PRODUCER_OUTSIDE};
use crate::scenarios::{Config, Outcome, run_pipeline};
use crate::world::Sim;
use sim_topic::Chaos;

/// The three protocols, each run once without injected faults.
pub struct Calm {
    pub outside: Outcome,
    pub offset_at_read: Outcome,
    pub one_tx: Outcome,
}

/// Runs the seed's configuration (four producers, two hot rows, 240 messages) with every
/// kind of injected fault off.
pub fn calm_runs() -> Calm {
    let config = Config {
        chaos: Chaos::NONE,
        ..Config::CHAOS
    };
    let run = |protocol| run_pipeline(&mut Sim::fault_free(), config, protocol);
    Calm {
        outside: run(PRODUCER_OUTSIDE),
        offset_at_read: run(CONSUMER_OFFSET_AT_READ),
        one_tx: run(ONE_TRANSACTION),
    }
}
