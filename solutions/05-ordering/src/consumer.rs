//! The build phase, solved: a consumer that applies each account's effects in sequence,
//! recognises effects it already applied (in the same transaction as the effect), and
//! acknowledges only after the commit.

use ordering::world::{Consumer, Crash, Delivery, Effect};
use rusqlite::Transaction;

// ANCHOR: handle
/// Applies the effect one delivered message carries.
pub fn handle(consumer: &mut Consumer, received: &Delivery) -> Result<(), Crash> {
    let effect = Effect::parse(&received.message);
    let tx = consumer.begin();
    let next = next_seq(&tx, &effect.account);
    if effect.seq < next {
        // Applied and committed before: a redelivery. Acknowledge, change nothing.
        drop(tx);
        consumer.note(|| format!("{} already applied: ack only", effect.data()));
        return consumer.ack(received);
    }
    if effect.seq > next || consumer.apply(&tx, &effect).is_err() {
        // A gap (the account's previous effect is not applied yet) or a busy ledger:
        // apply nothing, and let the broker bring the message back in order.
        drop(tx);
        return consumer.nack(received);
    }
    tx.execute(
        "INSERT INTO applied (account, seq, message_id) VALUES (?1, ?2, ?3)",
        (&effect.account, effect.seq, &received.message.message_id),
    )
    .expect("record applied");
    consumer.commit(tx)?;
    // Only now is the effect durable: now the ack may go.
    consumer.ack(received)
}
// ANCHOR_END: handle

// ANCHOR: next_seq
/// The sequence number of the account's next effect, read inside the transaction that
/// will apply it.
fn next_seq(tx: &Transaction, account: &str) -> i64 {
    tx.query_row(
        "SELECT COALESCE(MAX(seq), 0) + 1 FROM applied WHERE account = ?1",
        [account],
        |r| r.get(0),
    )
    .expect("read applied")
}
// ANCHOR_END: next_seq
