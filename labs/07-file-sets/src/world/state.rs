//! One schedule's [`World`]: the origin, the fault core, the actors that may be switched
//! in, and what the checks need to know.
//!
//! A schedule may *switch* at any request of the actor that is running: before the
//! request is sent, another actor runs one whole attempt (a consumer run, a publication
//! attempt, the analyst's edits, the restatement job), then the first actor's request
//! goes out. One switch per schedule; with two faults this covers every interleaving with
//! up to two context switches. The publisher process can also crash right after any of
//! its writes (`insert`, `delete`) reached the store: the write is applied, the response
//! and everything in the publisher's memory are lost, and a new publisher process calls
//! the same function again. The bucket is the only durable state.

use super::{
    ANALYST, AUDITOR, CONSUMER, DATA, Gcs, MANIFEST, Manifest, PUBLISHER, RELEASES, RESTATEMENTS,
    Report,
};
use labkit::fault::{Glyph, Sim, Violation};
use sim_storage::{Meta, ObjectStore, Preconditions, Role};

/// Who is calling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    Publisher,
    Consumer,
    Analyst,
    /// Another team's job in the same bucket (see [`RESTATEMENTS`]).
    Restatements,
}

impl Actor {
    pub fn principal(self) -> &'static str {
        match self {
            Actor::Publisher => PUBLISHER,
            Actor::Consumer => CONSUMER,
            Actor::Analyst => ANALYST,
            Actor::Restatements => RESTATEMENTS,
        }
    }

    /// The actor's lane in a timeline.
    pub fn lane(self) -> &'static str {
        match self {
            Actor::Publisher => "publisher",
            Actor::Consumer => "consumer",
            Actor::Analyst => "analyst",
            Actor::Restatements => "restatements",
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

/// One write that reached the store, as the world reports it to the checks.
#[derive(Clone, Copy, Debug)]
pub struct Write<'a> {
    pub actor: Actor,
    pub bucket: &'a str,
    pub name: &'a str,
    /// The live generation the write replaced or deleted, if there was one.
    pub replaced: Option<i64>,
    /// Whether the writer's attempt had read that generation (a get or a list) before.
    pub replaced_was_read: bool,
}

/// One schedule's world: the origin, the fault core, and what the checks need.
pub struct World<'s> {
    pub sim: &'s mut Sim,
    pub store: ObjectStore,
    /// The actors a switch may run; the first switch runs one of them and drops the rest.
    pub peers: Vec<Box<dyn Peer>>,
    /// False while the world is set up and after the faults stop (no switch, no crash).
    pub faults: bool,
    /// True while the world is set up: requests are not written to the timeline.
    pub quiet: bool,
    /// Every report a consumer produced, for the checks.
    pub reports: Vec<Report>,
    /// The run the manifest accepted after each of its changes, oldest first (`None`
    /// while there is no manifest, or none that parses).
    pub accepted: Vec<Option<String>>,
    /// The first invariant a write broke, kept until the scenario checks.
    pub broken: Option<Violation>,
    /// Called after every write that reached the store (the checks live elsewhere).
    pub on_write: fn(&mut World, Write),
}

impl<'s> World<'s> {
    /// A new origin with the two buckets, the world's fixed bindings (the auditor reads
    /// everything; the restatement job writes `datasets`) and the bindings of `access`.
    pub fn new(
        sim: &'s mut Sim,
        access: &[(&str, &str, Role)],
        on_write: fn(&mut World, Write),
    ) -> Self {
        let mut store = ObjectStore::in_memory();
        for bucket in [DATA, RELEASES] {
            store
                .create_bucket(bucket, false)
                .expect("a new store has no buckets");
            store.grant(bucket, AUDITOR, Role::ObjectViewer);
        }
        store.grant(DATA, RESTATEMENTS, Role::ObjectUser);
        store.grant(RELEASES, RESTATEMENTS, Role::ObjectViewer);
        for (bucket, member, role) in access {
            store.grant(bucket, member, *role);
        }
        World {
            sim,
            store,
            peers: Vec::new(),
            faults: false,
            quiet: false,
            reports: Vec::new(),
            accepted: vec![None],
            broken: None,
            on_write,
        }
    }

    /// A handle for `actor`: one attempt of one process, in the actor's lane.
    pub fn gcs(&mut self, actor: Actor) -> Gcs<'_, 's> {
        Gcs::new(self, actor, actor.lane())
    }

    /// A handle for one attempt of a process of `actor` that runs beside another of the
    /// same actor, in a lane of its own.
    pub fn gcs_in(&mut self, actor: Actor, lane: &'static str) -> Gcs<'_, 's> {
        Gcs::new(self, actor, lane)
    }

    /// Keeps the first broken invariant, and marks the moment in the timeline (the
    /// schedule goes on to its end; the scenario reports this one).
    pub fn breach(&mut self, violation: Violation) {
        if self.broken.is_none() {
            let invariant = violation.invariant.clone();
            self.sim.event("auditor", Glyph::Error, || {
                (format!("broken here: {invariant}"), String::new())
            });
            self.broken = Some(violation);
        }
    }

    /// What the origin holds at `bucket/name` (the live version, or `generation`), read
    /// as the auditor: the truth the checks compare with.
    pub fn origin(
        &self,
        bucket: &str,
        name: &str,
        generation: Option<i64>,
    ) -> Option<(Meta, Vec<u8>)> {
        let none = Preconditions::none();
        self.store
            .get_media(AUDITOR, bucket, name, generation, None, none)
            .ok()
    }

    /// The live generation of `bucket/name`, if there is one.
    pub fn live_generation(&self, bucket: &str, name: &str) -> Option<i64> {
        let none = Preconditions::none();
        let meta = self.store.get(AUDITOR, bucket, name, None, none).ok()?;
        Some(meta.generation)
    }

    /// The manifest the origin holds now, if any (read as the auditor).
    pub fn manifest(&self) -> Option<Manifest> {
        self.origin(RELEASES, MANIFEST, None)
            .and_then(|(_, bytes)| Manifest::parse(&bytes).ok())
    }
}
