//! The handle every request of an actor goes through: the four `objects` methods the
//! lab uses, each logged in the timeline, each a point where the schedule may switch to
//! another actor, and each write of the publisher a point where its process may crash.

use super::{Actor, Error, World, Write};
use labkit::fault::{Crash, Glyph};
use sim_storage::{DeleteRequest, Meta, Preconditions, StorageError, Upload};

/// An actor's handle on Cloud Storage. Every request may first let another actor run
/// (a switch), and every write of the publisher may be followed by a crash.
pub struct Gcs<'w, 's> {
    world: &'w mut World<'s>,
    actor: Actor,
    /// Its process's lane in the timeline: two processes of one actor get two lanes.
    lane: &'static str,
    /// Every generation this attempt has read or listed: what it knows of the bucket.
    seen: Vec<i64>,
}

fn describe<T>(result: &Result<T, StorageError>, ok: impl FnOnce(&T) -> String) -> String {
    match result {
        Ok(v) => ok(v),
        Err(e) => e.to_string(),
    }
}

fn pre_text(p: &Preconditions) -> String {
    let mut parts = Vec::new();
    if let Some(g) = p.if_generation_match {
        parts.push(format!("ifGenerationMatch={g}"));
    }
    if let Some(m) = p.if_metageneration_match {
        parts.push(format!("ifMetagenerationMatch={m}"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

impl<'w, 's> Gcs<'w, 's> {
    /// A handle for one attempt of `actor` (a new process knows nothing yet), logged in
    /// `lane`.
    pub(super) fn new(world: &'w mut World<'s>, actor: Actor, lane: &'static str) -> Self {
        Gcs {
            world,
            actor,
            lane,
            seen: Vec::new(),
        }
    }

    /// Who this handle calls as.
    pub fn actor(&self) -> Actor {
        self.actor
    }

    /// Before each request: the schedule may switch to another actor, once.
    fn before(&mut self, request: &'static str) {
        if !self.world.faults || self.world.peers.is_empty() {
            return;
        }
        let mut options = vec!["continue"];
        options.extend(self.world.peers.iter().map(|p| p.label()));
        let chosen = self.world.sim.choose(request, &options);
        if chosen == 0 {
            return;
        }
        let peer = self.world.peers.swap_remove(chosen - 1);
        self.world.peers.clear();
        let (lane, label) = (self.lane, options[chosen]);
        self.world.sim.event(lane, Glyph::Fault, || {
            (format!("pauses at {request}"), label.to_string())
        });
        peer.run(self.world);
    }

    /// After a write reached the store: the world's checks see it, then the publisher's
    /// process may crash (the write stays applied).
    fn wrote(
        &mut self,
        point: &'static str,
        (bucket, name): (&str, &str),
        replaced: Option<i64>,
    ) -> Result<(), Crash> {
        let write = Write {
            actor: self.actor,
            bucket,
            name,
            replaced,
            replaced_was_read: replaced.is_some_and(|g| self.seen.contains(&g)),
        };
        (self.world.on_write)(self.world, write);
        if self.world.faults && self.actor == Actor::Publisher {
            self.world.sim.crash_point(point)?;
        }
        Ok(())
    }

    fn log(&mut self, glyph: Glyph, client: impl FnOnce() -> String) {
        if self.world.quiet {
            return;
        }
        let lane = self.lane;
        self.world
            .sim
            .event(lane, glyph, || (client(), String::new()));
    }

    /// `objects.insert`: uploads a new generation of `bucket/name`.
    pub fn insert(&mut self, bucket: &str, name: &str, upload: Upload) -> Result<Meta, Error> {
        self.before("switch:before-insert");
        let pre = pre_text(&upload.preconditions);
        let replaced = self.world.live_generation(bucket, name);
        let result = self
            .world
            .store
            .insert(self.actor.principal(), bucket, name, upload);
        let glyph = if result.is_ok() {
            Glyph::Normal
        } else {
            Glyph::Error
        };
        self.log(glyph, || {
            format!(
                "insert {bucket}/{name}{pre} -> {}",
                describe(&result, |m| format!("200 generation {}", m.generation))
            )
        });
        let meta = result?;
        self.seen.push(meta.generation);
        self.wrote("publisher:after-insert", (bucket, name), replaced)?;
        Ok(meta)
    }

    /// `objects.get?alt=media`: the live version, or the named generation.
    pub fn get_media(
        &mut self,
        bucket: &str,
        name: &str,
        generation: Option<i64>,
    ) -> Result<(Meta, Vec<u8>), Error> {
        self.before("switch:before-get");
        let result = self.world.store.get_media(
            self.actor.principal(),
            bucket,
            name,
            generation,
            None,
            Preconditions::none(),
        );
        let glyph = if result.is_ok() {
            Glyph::Normal
        } else {
            Glyph::Error
        };
        self.log(glyph, || {
            let at = generation
                .map(|g| format!("?generation={g}"))
                .unwrap_or_default();
            format!(
                "get {bucket}/{name}{at} -> {}",
                describe(&result, |(m, _)| format!("200 generation {}", m.generation))
            )
        });
        let (meta, bytes) = result?;
        self.seen.push(meta.generation);
        Ok((meta, bytes))
    }

    /// `objects.delete`: the live version, or the named generation.
    pub fn delete(
        &mut self,
        bucket: &str,
        name: &str,
        request: DeleteRequest,
    ) -> Result<(), Error> {
        self.before("switch:before-delete");
        let target = (request.generation).or_else(|| self.world.live_generation(bucket, name));
        let result = self
            .world
            .store
            .delete(self.actor.principal(), bucket, name, request);
        let glyph = if result.is_ok() {
            Glyph::Normal
        } else {
            Glyph::Error
        };
        self.log(glyph, || {
            let at = request
                .generation
                .map(|g| format!("?generation={g}"))
                .unwrap_or_default();
            let pre = pre_text(&request.preconditions);
            format!(
                "delete {bucket}/{name}{at}{pre} -> {}",
                describe(&result, |_| "204".into())
            )
        });
        result?;
        self.wrote("publisher:after-delete", (bucket, name), target)?;
        Ok(())
    }

    /// `objects.list`: the live objects under `prefix`.
    pub fn list(&mut self, bucket: &str, prefix: &str) -> Result<Vec<Meta>, Error> {
        self.before("switch:before-list");
        let result = self
            .world
            .store
            .list(self.actor.principal(), bucket, prefix);
        self.log(Glyph::Normal, || {
            format!(
                "list {bucket}/{prefix} -> {}",
                describe(&result, |m| format!("{} object(s)", m.len()))
            )
        });
        let listed = result?;
        self.seen.extend(listed.iter().map(|m| m.generation));
        Ok(listed)
    }
}
