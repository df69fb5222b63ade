//! The handle every request goes through ([`Gcs`]), and one schedule's [`World`].
//!
//! A schedule may *switch* at any request of the actor that is running: before the
//! request is sent, another actor runs one whole attempt (a consumer run, a publication
//! attempt, the analyst's edits), then the first actor's request goes out. With two
//! faults this covers every interleaving with up to two context switches. The publisher
//! process can also crash right after any of its writes (`insert`, `delete`) reached the
//! store: the write is applied, the response and everything in the publisher's memory are
//! lost, and a new publisher process calls the same function again. The bucket is the
//! only durable state.

use super::Report;
use super::{ANALYST, AUDITOR, CONSUMER, DATA, Error, MANIFEST, Manifest, PUBLISHER, RELEASES};
use labkit::fault::{Crash, Glyph, Sim};
use sim_storage::{DeleteRequest, Meta, ObjectStore, Preconditions, Role, StorageError, Upload};

/// Who is calling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    Publisher,
    Consumer,
    Analyst,
}

impl Actor {
    pub fn principal(self) -> &'static str {
        match self {
            Actor::Publisher => PUBLISHER,
            Actor::Consumer => CONSUMER,
            Actor::Analyst => ANALYST,
        }
    }

    /// The actor's lane in a timeline.
    pub fn lane(self) -> &'static str {
        match self {
            Actor::Publisher => "publisher",
            Actor::Consumer => "consumer",
            Actor::Analyst => "analyst",
        }
    }
}

/// Another actor's whole attempt, which a schedule may run before any request of the
/// running actor (a switch). The scenarios implement it; the world only runs it.
pub trait Peer {
    /// What the timeline says when the switch happens ("the consumer runs now").
    fn label(&self) -> &'static str;
    /// Runs the attempt to its end.
    fn run(self: Box<Self>, world: &mut World);
}

/// One schedule's world: the origin, the fault core, and what the consumers reported.
pub struct World<'s> {
    pub sim: &'s mut Sim,
    pub store: ObjectStore,
    /// The actor a switch may run, once; `None` once it ran.
    pub peer: Option<Box<dyn Peer>>,
    /// False while the world is set up and after the faults stop (no switch, no crash).
    pub faults: bool,
    /// Every report a consumer produced, for the checks.
    pub reports: Vec<Report>,
}

impl<'s> World<'s> {
    /// A new origin with the two buckets, the auditor's read access and `access`.
    pub fn new(sim: &'s mut Sim, access: &[(&str, &str, Role)]) -> Self {
        let mut store = ObjectStore::in_memory();
        for bucket in [DATA, RELEASES] {
            store
                .create_bucket(bucket, false)
                .expect("a new store has no buckets");
            store.grant(bucket, AUDITOR, Role::ObjectViewer);
        }
        for (bucket, member, role) in access {
            store.grant(bucket, member, *role);
        }
        World {
            sim,
            store,
            peer: None,
            faults: false,
            reports: Vec::new(),
        }
    }

    /// A handle for `actor`.
    pub fn gcs(&mut self, actor: Actor) -> Gcs<'_, 's> {
        Gcs { world: self, actor }
    }

    /// What the origin holds at `bucket/name` (the live version, or `generation`), read
    /// as the auditor: the truth the checks compare with.
    pub fn origin(
        &self,
        bucket: &str,
        name: &str,
        generation: Option<i64>,
    ) -> Option<(Meta, Vec<u8>)> {
        self.store
            .get_media(
                AUDITOR,
                bucket,
                name,
                generation,
                None,
                Preconditions::none(),
            )
            .ok()
    }

    /// The manifest the origin holds now, if any (read as the auditor).
    pub fn manifest(&self) -> Option<Manifest> {
        self.origin(RELEASES, MANIFEST, None)
            .and_then(|(_, bytes)| Manifest::parse(&bytes).ok())
    }
}

/// An actor's handle on Cloud Storage. Every request may first let the other actor run
/// (a switch), and every write of the publisher may be followed by a crash.
pub struct Gcs<'w, 's> {
    world: &'w mut World<'s>,
    actor: Actor,
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

impl Gcs<'_, '_> {
    /// Who this handle calls as.
    pub fn actor(&self) -> Actor {
        self.actor
    }

    /// Before each request: the schedule may switch to the other actor, once.
    fn before(&mut self, request: &'static str) {
        if !self.world.faults {
            return;
        }
        let Some(peer) = self.world.peer.take() else {
            return;
        };
        let label = peer.label();
        if self.world.sim.choose(request, &["continue", label]) == 0 {
            self.world.peer = Some(peer);
            return;
        }
        let lane = self.actor.lane();
        self.world.sim.event(lane, Glyph::Fault, || {
            (format!("pauses at {request}"), label.to_string())
        });
        peer.run(self.world);
    }

    fn log(&mut self, glyph: Glyph, client: impl FnOnce() -> String) {
        let lane = self.actor.lane();
        self.world
            .sim
            .event(lane, glyph, || (client(), String::new()));
    }

    fn after_write(&mut self, point: &'static str) -> Result<(), Crash> {
        if self.world.faults && self.actor == Actor::Publisher {
            self.world.sim.crash_point(point)?;
        }
        Ok(())
    }

    /// `objects.insert`: uploads a new generation of `bucket/name`.
    pub fn insert(&mut self, bucket: &str, name: &str, upload: Upload) -> Result<Meta, Error> {
        self.before("switch:before-insert");
        let pre = pre_text(&upload.preconditions);
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
        self.after_write("publisher:after-insert")?;
        Ok(result?)
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
        Ok(result?)
    }

    /// `objects.delete`: the live version, or the named generation.
    pub fn delete(
        &mut self,
        bucket: &str,
        name: &str,
        request: DeleteRequest,
    ) -> Result<(), Error> {
        self.before("switch:before-delete");
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
        self.after_write("publisher:after-delete")?;
        Ok(result?)
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
        Ok(result?)
    }
}
