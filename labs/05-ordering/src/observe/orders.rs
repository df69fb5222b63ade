//! The order a pull hands out: one key for the bank, one key per account, no ordering.

use super::{SUB, Summary, TOPIC, account_key, bank_key, broker, effect, labels, scope};
use crate::world::Effect;
use labkit::Observation;
use labkit::fault;
use sim_pubsub::PubsubMessage;
use std::collections::BTreeSet;

/// The labels of one pull's messages, in the order it handed them out.
type Order = Vec<String>;

// ANCHOR: delivery_orders
/// Every order in which one pull can hand out A#1, B#1, A#2, B#2, over every schedule
/// with one fault. `key` chooses the ordering key of an effect.
fn delivery_orders(ordering: bool, key: fn(&Effect) -> String) -> BTreeSet<Order> {
    let mut orders = BTreeSet::new();
    fault::explore_all(scope(), |sim| {
        let mut broker = broker(ordering, 10);
        for e in [
            effect("A", 1),
            effect("B", 1),
            effect("A", 2),
            effect("B", 2),
        ] {
            let message = PubsubMessage::with_key(e.data(), key(&e));
            broker.publish(sim, TOPIC, message).expect("publish");
        }
        orders.insert(labels(&broker.pull(sim, SUB, 10).expect("pull")));
        Ok(())
    });
    orders
}
// ANCHOR_END: delivery_orders

/// The position of `label` in a pull's order.
fn position(order: &[String], label: &str) -> Option<usize> {
    order.iter().position(|l| l == label)
}

/// Whether the pull handed out `first` before `second`.
fn before(order: &[String], first: &str, second: &str) -> bool {
    matches!((position(order, first), position(order, second)), (Some(f), Some(s)) if f < s)
}

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let bank = delivery_orders(true, bank_key);
    let accounts = delivery_orders(true, account_key);
    let unordered = delivery_orders(false, account_key);
    obs.ask(
        "With one key for the bank, does every explored pull of the listing hand out B#1 before A#2?",
        bank.iter().all(|o| before(o, "B#1", "A#2")),
    );
    let publish_order = "A#1, B#1, A#2, B#2";
    let listed =
        |orders: &BTreeSet<Order>| -> Vec<String> { orders.iter().map(|o| o.join(", ")).collect() };
    // Each question's options, as the set of orders the pulls handed out.
    let which = |orders: &BTreeSet<Order>, options: [(&'static str, &[&str]); 4]| {
        let mut got = listed(orders);
        got.sort();
        options
            .into_iter()
            .find(|(_, o)| {
                let mut want: Vec<String> = o.iter().map(|s| s.to_string()).collect();
                want.sort();
                want == got
            })
            .map_or("?", |(letter, _)| letter)
    };
    obs.choose(
        "With one key per account, which orders do the explored pulls of the listing hand out?",
        which(
            &accounts,
            [
                ("a", &[publish_order]),
                ("b", &[publish_order, "B#2, B#1, A#2, A#1"]),
                ("c", &[publish_order, "B#1, A#1, B#2, A#2"]),
                ("d", &[publish_order, "B#1, B#2, A#1, A#2"]),
            ],
        ),
        format!("orders: {}", listed(&accounts).join(" | ")),
    );
    obs.choose(
        "With ordering disabled on the subscription and one key per account, which orders do the explored pulls of the listing hand out?",
        which(
            &unordered,
            [
                ("a", &[publish_order, "B#1, B#2, A#1, A#2"]),
                ("b", &[publish_order, "B#2, A#2, B#1, A#1"]),
                ("c", &[publish_order, "B#2, B#1, A#2, A#1"]),
                ("d", &[publish_order]),
            ],
        ),
        format!("orders: {}", listed(&unordered).join(" | ")),
    );
    let list =
        |orders: &BTreeSet<Order>| -> Vec<String> { orders.iter().map(|o| o.join(", ")).collect() };
    vec![
        ("orders_one_bank_key", list(&bank).into()),
        ("orders_per_account_keys", list(&accounts).into()),
        ("orders_without_ordering", list(&unordered).into()),
    ]
}
