//! The fence on its own: two owners take the lease one after the other, and the first
//! one, still holding its old epoch, tries to change the journal.

use super::{Protocol, new_world};
use crate::invariants::{checkpoint, records};
use crate::world::{Setup, Stop, World, Writer, state::*};
use labkit::fault::{Sim, Verdict, Violation};

const RECORD: &str = "P7:1000-1002";

/// Runs `body` in a new writer process; the journal is where the previous one left it.
fn in_process<T>(sim: &mut Sim, world: &mut World, body: impl FnOnce(&mut Writer) -> T) -> T {
    let mut writer = Writer::start(sim, world, false);
    let owner = writer.owner().to_string();
    writer.note(|| format!("{owner} starts and opens journal.db"));
    body(&mut writer)
}

/// Takes the lease in a new process: its epoch, or the violation that it failed.
fn new_owner(yours: Protocol, sim: &mut Sim, world: &mut World) -> Result<i64, Violation> {
    in_process(sim, world, |writer| {
        let owner = writer.owner().to_string();
        let epoch = (yours.acquire_lease)(&mut writer.journal(), &owner);
        writer.note(|| format!("{owner} takes the lease: {epoch:?}"));
        epoch.map_err(|stop| refused("a new owner take the lease", &stop))
    })
}

fn refused(what: &str, stop: &Stop) -> Violation {
    Violation::new(
        "the current owner can write",
        &[
            format!("Let {what}, with the epoch the lease holds."),
            format!("Then it was refused: {stop}."),
            "Contradiction: the fence refuses only an epoch older than the lease's.".into(),
        ],
    )
}

fn outcome(result: &Result<(), Stop>) -> String {
    result
        .as_ref()
        .map_or_else(|stop| stop.to_string(), |()| "Ok".into())
}

/// writer-1 and writer-2 take the lease; writer-1, still at epoch 1, moves A from
/// PREPARED to SENT; then writer-2 does.
pub fn fence_record_scenario(yours: Protocol, sim: &mut Sim) -> Verdict {
    let mut world = new_world(yours, Setup::LEDGER);
    world
        .keeper()
        .execute(
            "INSERT INTO journal (batch_id, partition, destination, write_stream, row_offset,
                row_count, source_first, source_end, fingerprint, serialization_version,
                state, owner_epoch)
             VALUES (?1, 'P7', 'ledger', 's1', 0, 3, 1000, 1003, 'h', 1, 'PREPARED', 0)",
            [RECORD],
        )
        .expect("the record");
    let first = new_owner(yours, sim, &mut world)?;
    let second = new_owner(yours, sim, &mut world)?;
    let stale = in_process(sim, &mut world, |writer| {
        let moved = (yours.transition)(&mut writer.journal(), first, RECORD, &[PREPARED], SENT, "");
        writer.note(|| {
            format!(
                "epoch {first}: {RECORD} PREPARED → SENT: {}",
                outcome(&moved)
            )
        });
        moved
    });
    let state = records(world.keeper())[0].state.clone();
    if !matches!(stale, Err(Stop::Fenced { .. })) || state != PREPARED {
        return Err(Violation::new(
            "a stale epoch moves no record",
            &[
                format!("Let writer-1 hold epoch {first}, and writer-2 take the lease with epoch {second}."),
                format!("Then writer-1's move of {RECORD} from PREPARED to SENT returned {}, and the record is {state}.", outcome(&stale)),
                "Contradiction: a transition must read the lease in its own transaction and return Stop::Fenced, writing nothing, when the epoch is not its own.".into(),
            ],
        ));
    }
    in_process(sim, &mut world, |writer| {
        (yours.transition)(&mut writer.journal(), second, RECORD, &[PREPARED], SENT, "")
    })
    .map_err(|stop| refused("writer-2 move the record", &stop))
}

/// writer-1 advances the checkpoint to 1003; writer-2 takes the lease; writer-1, still at
/// epoch 1, advances it to 1005; writer-2 advances it to 1005, then to 1003.
pub fn fence_checkpoint_scenario(yours: Protocol, sim: &mut Sim) -> Verdict {
    let mut world = new_world(yours, Setup::LEDGER);
    let first = new_owner(yours, sim, &mut world)?;
    let advance = |epoch: i64, to: i64| {
        move |writer: &mut Writer| {
            let moved = (yours.advance_checkpoint)(&mut writer.journal(), epoch, to);
            writer.note(|| format!("epoch {epoch}: checkpoint → {to}: {}", outcome(&moved)));
            moved
        }
    };
    in_process(sim, &mut world, advance(first, 1003))
        .map_err(|stop| refused("writer-1 advance the checkpoint to 1003", &stop))?;
    let second = new_owner(yours, sim, &mut world)?;
    let stale = in_process(sim, &mut world, advance(first, 1005));
    let after_stale = checkpoint(world.keeper());
    if !matches!(stale, Err(Stop::Fenced { .. })) || after_stale != 1003 {
        return Err(Violation::new(
            "a stale epoch cannot move the checkpoint",
            &[
                format!("Let writer-1 hold epoch {first}, and writer-2 take the lease with epoch {second}."),
                format!("Then writer-1's advance to 1005 returned {}, and the checkpoint is {after_stale}.", outcome(&stale)),
                "Contradiction: the checkpoint is fenced like every other write: Stop::Fenced, and nothing written.".into(),
            ],
        ));
    }
    in_process(sim, &mut world, advance(second, 1005))
        .map_err(|stop| refused("writer-2 advance the checkpoint to 1005", &stop))?;
    let back = in_process(sim, &mut world, advance(second, 1003));
    let end = checkpoint(world.keeper());
    if end != 1005 {
        return Err(Violation::new(
            "the checkpoint never moves backwards",
            &[
                "Let the checkpoint stand at 1005: positions below it are confirmed.".into(),
                format!("Then writer-2's advance to 1003 returned {} and left it at {end}.", outcome(&back)),
                "Contradiction: a restart from 1003 would deliver 1003 and 1004 again; advance the checkpoint only forwards.".into(),
            ],
        ));
    }
    Ok(())
}
