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

pub(super) fn observe(obs: &mut Observation) -> Summary {
    let bank = delivery_orders(true, bank_key);
    let accounts = delivery_orders(true, account_key);
    let unordered = delivery_orders(false, account_key);
    let publish_order = "A#1, B#1, A#2, B#2";
    let listed =
        |orders: &BTreeSet<Order>| -> Vec<String> { orders.iter().map(|o| o.join(", ")).collect() };
    // The question's options, as the set of orders the pulls handed out.
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
    // Which of the three runs has a pull that hands out B#1 first.
    let b1_first = |orders: &BTreeSet<Order>| orders.iter().any(|o| position(o, "B#1") == Some(0));
    let runs = [&bank, &accounts, &unordered].map(b1_first);
    obs.choose(
        "The listing runs with one key for the bank, with one key per account, and with the keys per account but ordering disabled on the subscription. In which of these runs does some explored pull hand out B#1 first?",
        match runs {
            [false, false, false] => "a",
            [true, true, true] => "b",
            [false, true, false] => "c",
            [false, true, true] => "d",
            _ => "?",
        },
        format!("a pull hands out B#1 first (bank, per account, unordered): {runs:?}"),
    );
    vec![
        ("orders_one_bank_key", listed(&bank).into()),
        ("orders_per_account_keys", listed(&accounts).into()),
        ("orders_without_ordering", listed(&unordered).into()),
    ]
}
