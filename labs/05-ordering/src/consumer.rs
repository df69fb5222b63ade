//! The build phase: your consumer.
//!
//! `handle` runs once per delivered message, in the order of the batch the broker handed
//! out. The consumer process can crash just before or just after `Consumer::commit` (`?`
//! passes the crash up); a new process then pulls again with only what the ledger
//! committed. Acknowledgements can be lost; the ledger can answer `Busy`.
//!
//! Goal, under every schedule the graded suite explores: no message lost, no effect
//! applied twice, each account's effects applied in sequence (`A#1` before `A#2`), and the
//! balances of the fault-free run. Grade it with `cargo labs check 05`.

use crate::world::{Consumer, Effect};
use labkit::fault::Crash;
use sim_pubsub::ReceivedMessage;

// ANCHOR: handle
/// Applies the effect one delivered message carries.
pub fn handle(consumer: &mut Consumer, received: &ReceivedMessage) -> Result<(), Crash> {
    let effect = Effect::parse(&received.message);
    // Acknowledge at once, so that the broker does not send it again while we work.
    // TODO: an ack is a promise that the work is durable. Where must it go?
    consumer.ack(received)?;
    let tx = consumer.begin();
    // TODO: Pub/Sub delivers at least once: this effect may be applied already (look at
    // the `applied` table, inside `tx`). And the account's previous effect may be missing
    // (a nack or a busy ledger earlier in the batch): apply only the account's next one.
    if consumer.apply(&tx, &effect).is_err() {
        // Busy: nothing applied; ask for the message again.
        return consumer.nack(received);
    }
    // TODO: record that this effect is applied, in the same transaction.
    consumer.commit(tx)
}
// ANCHOR_END: handle
