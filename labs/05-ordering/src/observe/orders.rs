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
    obs.ask(
        "With one key per account, does every explored pull of the listing hand out A#1 first?",
        accounts
            .iter()
            .all(|o| o.first().is_some_and(|l| l == "A#1")),
    );
    obs.ask("With ordering disabled on the subscription, does some explored pull of the listing hand out A#2 before A#1?", unordered.iter().any(|o| before(o, "A#2", "A#1")));
    let list =
        |orders: &BTreeSet<Order>| -> Vec<String> { orders.iter().map(|o| o.join(", ")).collect() };
    vec![
        ("orders_one_bank_key", list(&bank).into()),
        ("orders_per_account_keys", list(&accounts).into()),
        ("orders_without_ordering", list(&unordered).into()),
    ]
}
