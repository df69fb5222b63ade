//! The fence on its own: two owners take the lease one after the other, and the first
//! one, still holding its old epoch, tries to change the journal.

use super::{Protocol, new_world};
use crate::invariants::{checkpoint, records};
use crate::world::{Setup, Stop, World, Writer, state::*};
use labkit::fault::{Sim, Verdict, Violation};

const RECORD: &str = "P7:1000-1002";

/// Runs `body` in a new writer process; the journal is where the previous one left it.
/// The process's name (`writer-3`), and what `body` returned.
fn in_process<T>(
    sim: &mut Sim,
    world: &mut World,
    body: impl FnOnce(&mut Writer) -> T,
) -> (String, T) {
    let mut writer = Writer::start(sim, world, false);
    let owner = writer.owner().to_string();
    writer.note(|| format!("{owner} starts and opens journal.db"));
    (owner, body(&mut writer))
}

/// An owner: the process that took the lease, and the epoch it got.
struct Owner {
    name: String,
    epoch: i64,
}

/// Takes the lease in a new process: the owner, or the violation that it failed.
fn new_owner(yours: Protocol, sim: &mut Sim, world: &mut World) -> Result<Owner, Violation> {
    let (name, epoch) = in_process(sim, world, |writer| {
        let owner = writer.owner().to_string();
        let epoch = (yours.acquire_lease)(&mut writer.journal(), &owner);
        writer.note(|| format!("{owner} takes the lease: {epoch:?}"));
        epoch
    });
    let what = format!("{name} take the lease");
    let epoch = epoch.map_err(|stop| refused(&what, &stop))?;
    Ok(Owner { name, epoch })
}

/// The premise of a fence violation: who took which epoch.
fn two_owners(first: &Owner, second: &Owner) -> String {
    format!(
        "Let {} take the lease with epoch {}, and {} take the lease with epoch {}.",
        first.name, first.epoch, second.name, second.epoch
    )
}

fn refused(what: &str, stop: &Stop) -> Violation {
    Violation::new(
        "the current owner can write",
        &[
            format!("Let {what}."),
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

/// Two owners take the lease, one after the other; a later process, still acting with the
/// first owner's epoch, moves A from PREPARED to SENT; then one with the second owner's
/// epoch does.
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
    let (stale_process, stale) = in_process(sim, &mut world, |writer| {
        let epoch = first.epoch;
        let moved = (yours.transition)(&mut writer.journal(), epoch, RECORD, &[PREPARED], SENT, "");
        writer.note(|| {
            format!(
                "epoch {epoch}: {RECORD} PREPARED → SENT: {}",
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
                two_owners(&first, &second),
                format!("Then {stale_process}, still acting with {}'s epoch {}, moved {RECORD} from PREPARED to SENT: {}, and the record is {state}.", first.name, first.epoch, outcome(&stale)),
                "Contradiction: a transition must read the lease in its own transaction and return Stop::Fenced, writing nothing, when the epoch is not its own.".into(),
            ],
        ));
    }
    let (process, moved) = in_process(sim, &mut world, |writer| {
        (yours.transition)(
            &mut writer.journal(),
            second.epoch,
            RECORD,
            &[PREPARED],
            SENT,
            "",
        )
    });
    let what = format!(
        "{process} move the record with {}'s epoch {}, the epoch the lease holds",
        second.name, second.epoch
    );
    moved.map_err(|stop| refused(&what, &stop))
}

/// The first owner advances the checkpoint to 1003; a second owner takes the lease; a
/// process still acting with the first owner's epoch advances it to 1005; processes with
/// the second owner's epoch advance it to 1005, then to 1003.
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
    let (process, moved) = in_process(sim, &mut world, advance(first.epoch, 1003));
    let what = format!(
        "{process} advance the checkpoint to 1003 with {}'s epoch {}, the epoch the lease holds",
        first.name, first.epoch
    );
    moved.map_err(|stop| refused(&what, &stop))?;
    let second = new_owner(yours, sim, &mut world)?;
    let (stale_process, stale) = in_process(sim, &mut world, advance(first.epoch, 1005));
    let after_stale = checkpoint(world.keeper());
    if !matches!(stale, Err(Stop::Fenced { .. })) || after_stale != 1003 {
        return Err(Violation::new(
            "a stale epoch cannot move the checkpoint",
            &[
                two_owners(&first, &second),
                format!("Then {stale_process}, still acting with {}'s epoch {}, advanced the checkpoint to 1005: {}, and the checkpoint is {after_stale}.", first.name, first.epoch, outcome(&stale)),
                "Contradiction: the checkpoint is fenced like every other write: Stop::Fenced, and nothing written.".into(),
            ],
        ));
    }
    let (process, moved) = in_process(sim, &mut world, advance(second.epoch, 1005));
    let what = format!(
        "{process} advance the checkpoint to 1005 with {}'s epoch {}, the epoch the lease holds",
        second.name, second.epoch
    );
    moved.map_err(|stop| refused(&what, &stop))?;
    let (back_process, back) = in_process(sim, &mut world, advance(second.epoch, 1003));
    let end = checkpoint(world.keeper());
    if end != 1005 {
        return Err(Violation::new(
            "the checkpoint never moves backwards",
            &[
                "Let the checkpoint stand at 1005: positions below it are confirmed.".into(),
                format!("Then {back_process}'s advance to 1003 returned {} and left it at {end}.", outcome(&back)),
                "Contradiction: a restart from 1003 would deliver 1003 and 1004 again; advance the checkpoint only forwards.".into(),
            ],
        ));
    }
    Ok(())
}
