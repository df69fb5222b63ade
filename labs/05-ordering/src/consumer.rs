//! The build phase: your consumer.
//!
//! `handle` runs once per delivered message, in the order of the batch the broker handed
//! out. What the world can do to it is in `world.rs`: an ack can be lost, the ledger can
//! answer `Busy`, the process can crash just before or just after a commit (`?` passes
//! the crash up; a new process then pulls again with only what the ledger committed), and
//! it can stall while another consumer process takes its messages over. A publisher may
//! also publish an effect twice.
//!
//! Goal, under every schedule the graded suite explores: every published effect applied
//! exactly once, each account's effects in their sequence (`A#1` before `A#2`), every
//! message acknowledged in the end, and the balances of the fault-free run. Grade it with
//! `cargo labs check 05`; `cargo labs hint 05` gives one hint at a time.

use ordering::world::{Consumer, Crash, Delivery, Effect};

// ANCHOR: handle
/// Applies the effect one delivered message carries.
pub fn handle(consumer: &mut Consumer, received: &Delivery) -> Result<(), Crash> {
    let effect = Effect::parse(&received.message);
    // Acknowledge at once, so that the broker does not send it again while we work.
    consumer.ack(received)?;
    let tx = consumer.begin();
    if consumer.apply(&tx, &effect).is_err() {
        // Busy: nothing applied; ask for the message again.
        return consumer.nack(received);
    }
    // TODO: this consumer trusts the broker to hand out each effect once, in order,
    // and to stay quiet about what it was told is acknowledged. Make it meet the goal
    // above whatever the world does.
    consumer.commit(tx)
}
// ANCHOR_END: handle
