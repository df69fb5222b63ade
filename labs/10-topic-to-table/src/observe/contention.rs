//! The seed's pipeline without any injected fault (no killed connection, no commit fault,
//! no lock break), and who meets the lock conflicts that remain.

use super::protocols::{CONSUMER_OFFSET_AT_READ, ONE_TRANSACTION, PRODUCER_OUTSIDE};
use crate::scenarios::{Config, Outcome, run_pipeline};
use crate::world::Sim;
use sim_topic::Chaos;
use std::collections::BTreeSet;

/// The three protocols, each run once without injected faults.
pub struct Calm {
    pub outside: Outcome,
    pub offset_at_read: Outcome,
    pub one_tx: Outcome,
}

/// The seed's configuration (four producers, two hot rows, 240 messages) with every kind
/// of injected fault off.
const CALM: Config = Config {
    chaos: Chaos::NONE,
    ..Config::CHAOS
};

/// Runs the three protocols in the seed's configuration without injected faults.
pub fn calm_runs() -> Calm {
    let run = |protocol| run_pipeline(&mut Sim::fault_free(), CALM, protocol);
    Calm {
        outside: run(PRODUCER_OUTSIDE),
        offset_at_read: run(CONSUMER_OFFSET_AT_READ),
        one_tx: run(ONE_TRANSACTION),
    }
}

/// The ABORTED commits of a fault-free one-transaction run of `config`, recorded: each
/// as (actor, the row whose lock broke, such as `hot(0, 0)`).
fn aborts(config: Config) -> Vec<(&'static str, String)> {
    let mut sim = Sim::replaying(&[]);
    run_pipeline(&mut sim, config, ONE_TRANSACTION);
    (sim.events().iter())
        .filter(|e| e.client.starts_with("COMMIT: ABORTED"))
        .map(|e| {
            (
                e.actor,
                e.truth.split(" read at").next().unwrap_or("").into(),
            )
        })
        .collect()
}

/// The rows named by the consumer's aborts in the seed's configuration without faults.
pub fn consumer_abort_rows() -> BTreeSet<String> {
    (aborts(CALM).into_iter())
        .filter(|(actor, _)| *actor == "consumer")
        .map(|(_, row)| row)
        .collect()
}

/// Who met an abort: eight producers with twenty messages each over `hot_keys` hot rows,
/// without injected faults.
pub fn aborted_actors(hot_keys: i64) -> BTreeSet<&'static str> {
    let config = Config {
        producers: 8,
        messages_per_producer: 20,
        hot_keys,
        ..CALM
    };
    aborts(config).into_iter().map(|(actor, _)| actor).collect()
}
