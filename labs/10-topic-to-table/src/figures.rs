//! The book's figures: the protocol, the signals over a seeded chaos run, aborts against
//! the number of hot rows, the signals page and the starter's first failure.

use crate::observe::{OBSERVE_SEED, ONE_TRANSACTION, signals_page};
use crate::scenarios::{Config, Protocol, Window, aborts_with_hot_keys, explore_small, seeded_run};
use labkit::figure::{BarChart, Sequence};

/// The first failure of the small scope with the learner's code, as the chapter shows it
/// (generated, so the book cannot drift from what `cargo labs check 10` prints).
fn first_small_failure(yours: Protocol) -> String {
    match explore_small(yours, 2).failure {
        Some(failure) => format!("{failure}\n"),
        None => "every schedule of the small scope passes\n".to_string(),
    }
}

fn protocol() -> String {
    Sequence::new(
        "Exactly once from topic to table",
        &["producer tx", "hot[k]", "topic", "consumer tx", "sink"],
    )
    .divider("producer: retry_tx until commit")
    .call("producer tx", "hot[k]", "SELECT val (optimistic lock)")
    .call("producer tx", "hot[k]", "UPSERT val + 1")
    .call("producer tx", "topic", "tx_writer.write(w:seq:ts)")
    .reply("topic", "producer tx", "COMMIT: message + row, or neither")
    .note("producer tx", "seq += 1 only after Ok")
    .divider("consumer: retry_tx until commit")
    .call("consumer tx", "topic", "receive_batch_with_tx")
    .reply("topic", "consumer tx", "next batch of the read session")
    .call("consumer tx", "sink", "UPSERT key (writer_id, seq)")
    .call("consumer tx", "hot[k]", "SELECT + UPSERT val + 1")
    .reply("topic", "consumer tx", "COMMIT: offset + rows, or neither")
    .crash("consumer tx", "ABORTED / OVERLOADED / UNAVAILABLE")
    .note("consumer tx", "new session at the committed offset")
    .note("consumer tx", "unknown: read the offset back")
    .to_svg()
}

fn signals_chart() -> String {
    let outcome = seeded_run(OBSERVE_SEED, Config::CHAOS, ONE_TRANSACTION);
    let windows = &outcome.windows;
    let series = |name: &str, f: fn(&Window) -> u64| {
        let values = windows.iter().map(|w| f(w) as f64).collect::<Vec<f64>>();
        (name.to_string(), values)
    };
    let width = (outcome.signals.ticks / windows.len() as u64).max(1);
    let s = &outcome.signals;
    BarChart {
        title: format!(
            "Seeded chaos run: lost {}, e2e p50 {} / p99 {} ticks, availability {:.0} % \
             write / {:.0} % read",
            s.lost,
            s.e2e_p50,
            s.e2e_p99,
            s.write_availability * 100.0,
            s.read_availability * 100.0
        ),
        y_label: "events per window".into(),
        categories: (0..windows.len())
            .map(|i| format!("t{}", i as u64 * width))
            .collect(),
        series: vec![
            series("delivered", |w| w.delivered),
            series("aborts (TLI)", |w| w.aborts),
            series("failed / unknown", |w| w.unavailable),
            series("redelivered", |w| w.redelivered),
        ],
    }
    .to_svg()
}

fn aborts_chart() -> String {
    let keys = [1, 2, 4, 8];
    let aborts = keys
        .iter()
        .map(|k| aborts_with_hot_keys(*k, ONE_TRANSACTION) as f64);
    BarChart {
        title: "Aborts by hot rows (8 producers)".into(),
        y_label: "ABORTED (locks invalidated)".into(),
        categories: keys.iter().map(|k| k.to_string()).collect(),
        series: vec![("8 producers".into(), aborts.collect())],
    }
    .to_svg()
}

/// The figures `cargo labs bless` writes into `book/src/figures`; `yours` is the code
/// whose first failure they show.
pub fn figures(yours: Protocol) -> Vec<(&'static str, String)> {
    vec![
        ("10-protocol.svg", protocol()),
        ("10-signals.svg", signals_chart()),
        ("10-aborts-by-hot-rows.svg", aborts_chart()),
        ("10-signals.md", signals_page()),
        ("10-first-failure.txt", first_small_failure(yours)),
    ]
}
