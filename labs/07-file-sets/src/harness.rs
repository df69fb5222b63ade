//! The world the build phase is graded in. Complete code: read it, do not change it.
//!
//! One simulated Cloud Storage origin (`sim_storage::ObjectStore`, SQLite in memory, one
//! per schedule) with two buckets: `datasets` for the files of each run and `releases`
//! for the acceptance manifest `accounts-positions/manifest.json`. Three identities use
//! it through a [`Gcs`] handle: the publisher, the reporting consumer and an analyst who
//! should only read.
//!
//! A schedule may *switch* at any request of the actor that is running: before the
//! request is sent, the other actor runs one whole attempt (a consumer run, a publication
//! attempt, the analyst's edits), then the first actor's request goes out. With two
//! faults this covers every interleaving with up to two context switches. The publisher
//! process can also crash right after any of its writes (`insert`, `delete`) reached the
//! store: the write is applied, the response and everything in the publisher's memory are
//! lost, and a new publisher process calls the same function again. The bucket is the
//! only durable state.

use crate::publication::{ACCESS, abandon, consume, publish};
use labkit::fault::{
    self, Crash, Exploration, Glyph, Replay, Scope, Sim, Token, Verdict, Violation,
};
use labkit::figure::Sequence;
use sim_storage::{DeleteRequest, Meta, ObjectStore, Preconditions, Role, StorageError, Upload};
use std::fmt;

/// The bucket that holds the data files of every run.
pub const DATA: &str = "datasets";
/// The bucket that holds the acceptance manifest.
pub const RELEASES: &str = "releases";
/// The acceptance manifest: the one object consumers start from.
pub const MANIFEST: &str = "accounts-positions/manifest.json";

/// The identity that publishes datasets.
pub const PUBLISHER: &str = "serviceAccount:publisher@bank-data.iam";
/// The identity of the reporting job that consumes them.
pub const CONSUMER: &str = "serviceAccount:reports@bank-data.iam";
/// An analyst who reads the data; nothing they do may change what consumers accept.
pub const ANALYST: &str = "user:analyst@bank.example";
/// The harness's own read-only identity, used to check invariants.
const AUDITOR: &str = "serviceAccount:auditor@bank-data.iam";

/// The run the world starts with, already accepted, and the run being published.
pub const RUN_1: &str = "run-1";
pub const RUN_2: &str = "run-2";

// ---------------------------------------------------------------------------------
// The dataset: accounts and positions, one pair of files per run.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: String,
    pub owner: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub account: String,
    pub instrument: String,
    pub quantity: i64,
}

/// One run's dataset. Each file starts with a `# run=…` line naming its run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dataset {
    pub run: String,
    pub accounts: Vec<Account>,
    pub positions: Vec<Position>,
}

fn account(id: &str, owner: &str) -> Account {
    Account {
        id: id.into(),
        owner: owner.into(),
    }
}

fn position(account: &str, instrument: &str, quantity: i64) -> Position {
    Position {
        account: account.into(),
        instrument: instrument.into(),
        quantity,
    }
}

/// The dataset of a run the scenarios know, or `None`.
pub fn dataset(run: &str) -> Option<Dataset> {
    match run {
        RUN_1 => Some(Dataset {
            run: RUN_1.into(),
            accounts: vec![account("A1", "Ada"), account("A2", "Grace")],
            positions: vec![
                position("A1", "BOND-2030", 100),
                position("A1", "EQ-ACME", 20),
                position("A2", "BOND-2030", 50),
            ],
        }),
        RUN_2 => Some(Dataset {
            run: RUN_2.into(),
            accounts: vec![
                account("A1", "Ada"),
                account("A2", "Grace"),
                account("A3", "Edsger"),
            ],
            positions: vec![
                position("A1", "BOND-2030", 90),
                position("A2", "BOND-2030", 50),
                position("A2", "EQ-ACME", 10),
                position("A3", "EQ-ACME", 40),
            ],
        }),
        _ => None,
    }
}

impl Dataset {
    pub fn accounts_csv(&self) -> Vec<u8> {
        let mut out = format!("# run={}\naccount,owner\n", self.run);
        for a in &self.accounts {
            out.push_str(&format!("{},{}\n", a.id, a.owner));
        }
        out.into_bytes()
    }

    pub fn positions_csv(&self) -> Vec<u8> {
        let mut out = format!("# run={}\naccount,instrument,quantity\n", self.run);
        for p in &self.positions {
            out.push_str(&format!("{},{},{}\n", p.account, p.instrument, p.quantity));
        }
        out.into_bytes()
    }
}

/// Splits a file into its run tag and its data rows (the header row dropped).
fn rows(bytes: &[u8]) -> Result<(String, Vec<Vec<String>>), String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let mut lines = text.lines();
    let run = lines
        .next()
        .and_then(|l| l.strip_prefix("# run="))
        .ok_or("no `# run=` line")?
        .to_string();
    lines.next().ok_or("no header row")?;
    Ok((
        run,
        lines
            .map(|l| l.split(',').map(String::from).collect())
            .collect(),
    ))
}

/// Parses an accounts file: its run tag and its accounts.
pub fn parse_accounts(bytes: &[u8]) -> Result<(String, Vec<Account>), String> {
    let (run, rows) = rows(bytes)?;
    let accounts = rows
        .into_iter()
        .map(|r| match r.as_slice() {
            [id, owner] => Ok(account(id, owner)),
            _ => Err(format!("bad account row {r:?}")),
        })
        .collect::<Result<_, _>>()?;
    Ok((run, accounts))
}

/// Parses a positions file: its run tag and its positions.
pub fn parse_positions(bytes: &[u8]) -> Result<(String, Vec<Position>), String> {
    let (run, rows) = rows(bytes)?;
    let positions = rows
        .into_iter()
        .map(|r| match r.as_slice() {
            [a, i, q] => q
                .parse()
                .map(|q| position(a, i, q))
                .map_err(|_| format!("bad quantity in {r:?}")),
            _ => Err(format!("bad position row {r:?}")),
        })
        .collect::<Result<_, _>>()?;
    Ok((run, positions))
}

/// What a consumer reports: computed from one accounts file and one positions file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The run the consumer believes it read.
    pub run: String,
    pub accounts: usize,
    pub positions: usize,
    pub total_quantity: i64,
}

/// The report for `run` computed from the given rows.
pub fn report(run: &str, accounts: &[Account], positions: &[Position]) -> Report {
    Report {
        run: run.to_string(),
        accounts: accounts.len(),
        positions: positions.len(),
        total_quantity: positions.iter().map(|p| p.quantity).sum(),
    }
}

// ---------------------------------------------------------------------------------
// The manifest.

// ANCHOR: manifest
/// A reference to one data file: its name in `datasets` and, when pinned, its generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRef {
    pub name: String,
    pub generation: Option<i64>,
}

/// The acceptance manifest: which run consumers should read, and where its files are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub run: String,
    pub accounts: FileRef,
    pub positions: FileRef,
}

// ANCHOR_END: manifest

impl Manifest {
    pub fn to_json(&self) -> Vec<u8> {
        let file = |f: &FileRef| serde_json::json!({"name": f.name, "generation": f.generation});
        serde_json::json!({
            "run": self.run,
            "accounts": file(&self.accounts),
            "positions": file(&self.positions),
        })
        .to_string()
        .into_bytes()
    }

    pub fn parse(bytes: &[u8]) -> Result<Manifest, String> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| format!("manifest is not JSON: {e}"))?;
        let file = |key: &str| -> Result<FileRef, String> {
            let f = &value[key];
            Ok(FileRef {
                name: f["name"]
                    .as_str()
                    .ok_or(format!("no {key}.name"))?
                    .to_string(),
                generation: f["generation"].as_i64(),
            })
        };
        Ok(Manifest {
            run: value["run"].as_str().ok_or("no run")?.to_string(),
            accounts: file("accounts")?,
            positions: file("positions")?,
        })
    }
}

// ---------------------------------------------------------------------------------
// The actors' handle on the store.

/// Why an actor's attempt stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The publisher process crashed (its last write may have been applied).
    Crashed(Crash),
    /// The store answered with an error status (403, 404, 412, 416).
    Http(StorageError),
    /// The actor refused to go on: an incomplete, mixed or foreign set, and the reason.
    Rejected(String),
}

impl Error {
    /// The HTTP status, when the store answered with an error.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Http(e) => Some(e.code()),
            _ => None,
        }
    }
}

impl From<Crash> for Error {
    fn from(c: Crash) -> Self {
        Error::Crashed(c)
    }
}

impl From<StorageError> for Error {
    fn from(e: StorageError) -> Self {
        Error::Http(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Crashed(c) => write!(f, "{c}"),
            Error::Http(e) => write!(f, "{e}"),
            Error::Rejected(why) => write!(f, "rejected: {why}"),
        }
    }
}

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

    fn lane(self) -> &'static str {
        match self {
            Actor::Publisher => "publisher",
            Actor::Consumer => "consumer",
            Actor::Analyst => "analyst",
        }
    }
}

/// The other actor a schedule may switch to, once.
#[derive(Clone, Debug)]
enum Peer {
    Consumer,
    Publisher(Dataset),
    Analyst,
}

/// One schedule's world: the origin, the fault core, and what the consumers reported.
pub struct World<'s> {
    sim: &'s mut Sim,
    store: ObjectStore,
    peer: Option<Peer>,
    faults: bool,
    reports: Vec<Report>,
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
        let label = match peer {
            Peer::Consumer => "the consumer runs now",
            Peer::Publisher(_) => "a publication attempt runs now",
            Peer::Analyst => "the analyst edits now",
        };
        if self.world.sim.choose(request, &["continue", label]) == 0 {
            self.world.peer = Some(peer);
            return;
        }
        let lane = self.actor.lane();
        self.world.sim.event(lane, Glyph::Fault, || {
            (format!("pauses at {request}"), label.to_string())
        });
        run_peer(self.world, peer);
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

/// What the analyst tries: "fix" the accepted accounts file by hand, then replace the
/// manifest, create one, delete it.
fn analyst_edits(gcs: &mut Gcs) {
    if let Ok((_, bytes)) = gcs.get_media(RELEASES, MANIFEST, None)
        && let Ok(accepted) = Manifest::parse(&bytes)
    {
        let fixed = format!(
            "# run={}\naccount,owner\nA1,Ada (fixed by hand)\n",
            accepted.run
        );
        let _ = gcs.insert(DATA, &accepted.accounts.name, Upload::new(fixed));
    }
    let forged = Manifest {
        run: "run-hand-fixed".into(),
        accounts: FileRef {
            name: "latest/accounts.csv".into(),
            generation: None,
        },
        positions: FileRef {
            name: "latest/positions.csv".into(),
            generation: None,
        },
    };
    let _ = gcs.insert(RELEASES, MANIFEST, Upload::new(forged.to_json()));
    let _ = gcs.insert(
        RELEASES,
        MANIFEST,
        Upload::new(forged.to_json()).if_generation_match(0),
    );
    let _ = gcs.delete(RELEASES, MANIFEST, DeleteRequest::default());
}

fn run_peer(world: &mut World, peer: Peer) {
    match peer {
        Peer::Consumer => run_consumer(world),
        Peer::Publisher(data) => {
            let _ = run_publisher(world, &data);
        }
        Peer::Analyst => analyst_edits(&mut Gcs {
            world,
            actor: Actor::Analyst,
        }),
    }
}

/// One consumer run; a report it produces is kept for the checks.
fn run_consumer(world: &mut World) {
    let result = consume(&mut Gcs {
        world: &mut *world,
        actor: Actor::Consumer,
    });
    world
        .sim
        .event("consumer", Glyph::Normal, || match &result {
            Ok(r) => (
                format!(
                    "reports {}: {} accounts, {} positions, total {}",
                    r.run, r.accounts, r.positions, r.total_quantity
                ),
                String::new(),
            ),
            Err(e) => (format!("no report: {e}"), String::new()),
        });
    if let Ok(report) = result {
        world.reports.push(report);
    }
}

/// One publication attempt by a publisher process.
fn run_publisher(world: &mut World, data: &Dataset) -> Result<(), Error> {
    let result = publish(
        &mut Gcs {
            world: &mut *world,
            actor: Actor::Publisher,
        },
        data,
    );
    if let Err(e) = &result {
        let glyph = if matches!(e, Error::Crashed(_)) {
            Glyph::Recover
        } else {
            Glyph::Error
        };
        world.sim.event("publisher", glyph, || {
            (
                format!("attempt for {} ends: {e}", data.run),
                "the bucket keeps what was written".into(),
            )
        });
    }
    result
}

fn run_abandon(world: &mut World, run: &str) -> Result<(), Error> {
    let result = abandon(
        &mut Gcs {
            world: &mut *world,
            actor: Actor::Publisher,
        },
        run,
    );
    if let Err(e) = &result {
        world.sim.event("publisher", Glyph::Recover, || {
            (format!("abandon {run} ends: {e}"), String::new())
        });
    }
    result
}

impl<'s> World<'s> {
    fn new(sim: &'s mut Sim) -> Self {
        let mut store = ObjectStore::in_memory();
        for bucket in [DATA, RELEASES] {
            store
                .create_bucket(bucket, false)
                .expect("a new store has no buckets");
            store.grant(bucket, AUDITOR, Role::ObjectViewer);
        }
        for (bucket, member, role) in ACCESS {
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

    /// Publishes run-1 without faults: every scenario starts from an accepted set.
    fn accept_first_run(&mut self) -> Verdict {
        let first = dataset(RUN_1).expect("run-1");
        run_publisher(self, &first).map_err(|e| {
            Violation::new(
                "a fault-free publication is accepted",
                &[
                    "Let run-1 be published with no crash and no other actor.".into(),
                    format!("Then `publish` returned: {e}."),
                    "Contradiction: without faults, a publication must complete.".into(),
                ],
            )
        })?;
        self.check_manifest()
    }

    fn origin(&self, bucket: &str, name: &str, generation: Option<i64>) -> Option<(Meta, Vec<u8>)> {
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
    fn manifest(&self) -> Option<Manifest> {
        self.origin(RELEASES, MANIFEST, None)
            .and_then(|(_, bytes)| Manifest::parse(&bytes).ok())
    }

    /// The manifest must name a known run, and each file it names must exist with
    /// exactly that run's content.
    fn check_manifest(&self) -> Verdict {
        let Some((meta, bytes)) = self.origin(RELEASES, MANIFEST, None) else {
            return Err(Violation::new(
                "the accepted set stays readable",
                &[
                    "Let the manifest be the object consumers start from.".into(),
                    "Then it no longer exists.".into(),
                    "Contradiction: consumers can no longer find the accepted set.".into(),
                ],
            ));
        };
        let manifest = Manifest::parse(&bytes).map_err(|e| {
            Violation::new(
                "the manifest is well formed",
                &[format!("It does not parse: {e}.")],
            )
        })?;
        let Some(data) = dataset(&manifest.run) else {
            return Err(Violation::new(
                "the manifest names a run the publisher published",
                &[
                    format!(
                        "Let the manifest (generation {}) name run `{}`.",
                        meta.generation, manifest.run
                    ),
                    "Then no publisher ever published that run.".into(),
                    "Contradiction: someone other than the publisher changed the manifest.".into(),
                ],
            ));
        };
        for (file, expected) in [
            (&manifest.accounts, data.accounts_csv()),
            (&manifest.positions, data.positions_csv()),
        ] {
            let found = self.origin(DATA, &file.name, file.generation);
            let at = file.generation.map(|g| format!("#{g}")).unwrap_or_default();
            let problem = match &found {
                None => Some("does not exist".to_string()),
                Some((_, bytes)) if *bytes != expected => {
                    let tag = rows(bytes).map(|(run, _)| run).unwrap_or_default();
                    Some(format!("holds other content (tagged `{tag}`)"))
                }
                _ => None,
            };
            if let Some(problem) = problem {
                return Err(Violation::new(
                    "the manifest never points at missing or different data",
                    &[
                        format!("Let the manifest accept {} with file {}{at}.", manifest.run, file.name),
                        format!("Then that file {problem}."),
                        "Contradiction: an accepted set must stay complete and exactly as validated. Pin files by generation, and never delete what the manifest names.".into(),
                    ],
                ));
            }
        }
        Ok(())
    }

    /// Every report a consumer produced must be exactly its run's report.
    fn check_reports(&self) -> Verdict {
        for r in &self.reports {
            let expected = dataset(&r.run).map(|d| report(&d.run, &d.accounts, &d.positions));
            if expected.as_ref() != Some(r) {
                let want = expected
                    .map(|e| {
                        format!(
                            "{} accounts, {} positions, total {}",
                            e.accounts, e.positions, e.total_quantity
                        )
                    })
                    .unwrap_or_else(|| "no such run".into());
                return Err(Violation::new(
                    "no consumer reports from an incomplete or mixed set",
                    &[
                        format!("Let a consumer report run {}.", r.run),
                        format!(
                            "Then it counted {} accounts, {} positions, total {}, but run {} has {want}.",
                            r.accounts, r.positions, r.total_quantity, r.run
                        ),
                        "Contradiction: the report was computed from files of different runs, or from an incomplete run. Read exactly the generations the manifest names, and check each file's run.".into(),
                    ],
                ));
            }
        }
        Ok(())
    }

    /// Only the publisher's identity ever changed the manifest.
    fn check_manifest_writers(&self) -> Verdict {
        for entry in self.store.audit() {
            if entry.bucket == RELEASES
                && entry.name == MANIFEST
                && entry.status == 200
                && entry.principal != PUBLISHER
            {
                return Err(Violation::new(
                    "only the publisher's identity changes the manifest",
                    &[
                        format!("Let {} call {} on the manifest.", entry.principal, entry.method),
                        "Then the request succeeded (200).".into(),
                        "Contradiction: consumers trust the manifest because only the publisher can write it. Grant the other identities read-only roles on the releases bucket.".into(),
                    ],
                ));
            }
        }
        Ok(())
    }

    fn check_all(&self) -> Verdict {
        self.check_manifest_writers()?;
        self.check_reports()?;
        self.check_manifest()
    }

    /// After the faults: the publisher finishes run-2, and a consumer reports it.
    fn finish(&mut self) -> Verdict {
        self.sim.heal();
        self.faults = false;
        self.peer = None;
        let second = dataset(RUN_2).expect("run-2");
        if let Err(e) = run_publisher(self, &second) {
            return Err(Violation::new(
                "a publication can be resumed: publish is safe to call again",
                &[
                    "Let run-2 be published again after the faults stopped (the earlier attempt completed, crashed, or never ran).".into(),
                    format!("Then `publish` returned: {e}."),
                    "Contradiction: calling publish again must finish or confirm the run: a file already uploaded with the same content is the publisher's own earlier write, not a conflict.".into(),
                ],
            ));
        }
        run_consumer(self);
        self.check_all()?;
        match self.reports.last() {
            Some(r) if r.run == RUN_2 => Ok(()),
            last => Err(Violation::new(
                "consumers see the new set once it is accepted",
                &[
                    "Let run-2 be accepted and a consumer run afterwards.".into(),
                    format!("Then its last report is {last:?}."),
                    "Contradiction: a consumer must report the accepted run.".into(),
                ],
            )),
        }
    }
}

// ---------------------------------------------------------------------------------
// The graded scenarios.

// ANCHOR: scenarios
/// Which actor runs first, and which one may be switched in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// The publisher publishes run-2 (and restarts after a crash); a consumer run may
    /// happen before any of its requests.
    Publish,
    /// A consumer runs; a whole publication attempt of run-2 may happen before any of
    /// its requests.
    Consume,
    /// The publisher's attempt at run-2 may crash; then the publisher abandons run-2
    /// (and restarts after a crash), while a consumer run may happen before any request.
    Abandon,
    /// The publisher publishes run-2; before any of its requests the analyst may "fix"
    /// the accepted accounts file by hand and try to replace, create or delete the
    /// manifest.
    Analyst,
}

// ANCHOR_END: scenarios

impl Scenario {
    pub const ALL: [Scenario; 4] = [
        Scenario::Publish,
        Scenario::Consume,
        Scenario::Abandon,
        Scenario::Analyst,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::Publish => "publish",
            Scenario::Consume => "consume",
            Scenario::Abandon => "abandon",
            Scenario::Analyst => "analyst",
        }
    }
}

/// One graded schedule of `scenario`.
pub fn run_scenario(sim: &mut Sim, scenario: Scenario) -> Verdict {
    let mut world = World::new(sim);
    world.accept_first_run()?;
    world.faults = true;
    let second = dataset(RUN_2).expect("run-2");
    match scenario {
        Scenario::Publish | Scenario::Analyst => {
            world.peer = Some(if scenario == Scenario::Publish {
                Peer::Consumer
            } else {
                Peer::Analyst
            });
            for _attempt in 0..2 {
                if run_publisher(&mut world, &second).is_ok() {
                    break;
                }
                world.check_all()?;
            }
        }
        Scenario::Consume => {
            world.peer = Some(Peer::Publisher(second.clone()));
            run_consumer(&mut world);
        }
        Scenario::Abandon => {
            let _ = run_publisher(&mut world, &second);
            world.check_all()?;
            world.peer = Some(Peer::Consumer);
            let mut outcome = run_abandon(&mut world, RUN_2);
            if matches!(outcome, Err(Error::Crashed(_))) {
                world.check_all()?;
                outcome = run_abandon(&mut world, RUN_2);
            }
            world.check_all()?;
            let accepted = world.manifest().map(|m| m.run);
            let left = world.store.list(AUDITOR, DATA, "").unwrap_or_default();
            let leftovers: Vec<String> = left
                .iter()
                .filter_map(|m| world.origin(DATA, &m.name, None))
                .filter(|(_, bytes)| rows(bytes).map(|(run, _)| run == RUN_2).unwrap_or(false))
                .map(|(m, _)| format!("{}#{}", m.name, m.generation))
                .collect();
            if accepted.as_deref() != Some(RUN_2) && (outcome.is_err() || !leftovers.is_empty()) {
                return Err(Violation::new(
                    "an abandoned publication leaves nothing behind",
                    &[
                        format!("Let run-2 be abandoned while the manifest accepts {accepted:?}."),
                        format!("Then `abandon` returned {outcome:?} and run-2 files remain: {leftovers:?}."),
                        "Contradiction: abandoning a run that was never accepted must remove its files, and only its files.".into(),
                    ],
                ));
            }
        }
    }
    world.check_all()?;
    if scenario == Scenario::Abandon {
        return Ok(());
    }
    world.finish()
}

/// The scope of a graded exploration of `scenario` with up to `max_faults` faults.
pub fn scope(scenario: Scenario, max_faults: usize) -> Scope {
    Scope {
        lab: "07",
        scenario: scenario.name(),
        max_faults,
    }
}

/// Explores every schedule of `scenario` with up to `max_faults` faults.
pub fn explore_scenario(scenario: Scenario, max_faults: usize) -> Exploration {
    fault::explore(scope(scenario, max_faults), |sim| {
        run_scenario(sim, scenario)
    })
}

fn replay_with(scenario: Scenario, token: &Token) -> Replay {
    fault::replay(token, |sim| run_scenario(sim, scenario))
}

fn replay_publish(token: &Token) -> Replay {
    replay_with(Scenario::Publish, token)
}
fn replay_consume(token: &Token) -> Replay {
    replay_with(Scenario::Consume, token)
}
fn replay_abandon(token: &Token) -> Replay {
    replay_with(Scenario::Abandon, token)
}
fn replay_analyst(token: &Token) -> Replay {
    replay_with(Scenario::Analyst, token)
}

/// The scenarios `cargo labs replay 07 NAME TOKEN` can replay.
pub const SCENARIOS: &[(&str, labkit::ReplayFn)] = &[
    ("publish", replay_publish),
    ("consume", replay_consume),
    ("abandon", replay_abandon),
    ("analyst", replay_analyst),
];

// ---------------------------------------------------------------------------------
// Figures.

/// The first failure of the `publish` scenario with the learner's code, as the chapter
/// shows it (generated, so the book cannot drift from what `cargo labs check 07` prints).
fn first_publish_failure() -> String {
    match explore_scenario(Scenario::Publish, 2).failure {
        Some(failure) => format!("{failure}\n"),
        None => "every schedule of the publish scenario passes\n".to_string(),
    }
}

/// The figures of chapter 7.
pub fn figures() -> Vec<(&'static str, String)> {
    // Generations are named, not numbered: a real one is a 16-digit number (see the
    // first-failure figure) that is compared, never computed with.
    let publication = Sequence::new(
        "Publishing a file set by version identity",
        &["publisher", "datasets", "releases", "consumer"],
    )
    .call(
        "publisher",
        "datasets",
        "insert runs/run-2/accounts.csv ifGenerationMatch=0",
    )
    .reply("datasets", "publisher", "200 generation gA")
    .call(
        "publisher",
        "datasets",
        "insert runs/run-2/positions.csv ifGenerationMatch=0",
    )
    .reply("datasets", "publisher", "200 generation gP")
    .call(
        "publisher",
        "datasets",
        "get ?generation=gA, ?generation=gP",
    )
    .note("publisher", "validate the set")
    .call("publisher", "releases", "get manifest")
    .reply("releases", "publisher", "run-1, generation gM1")
    .call(
        "publisher",
        "releases",
        "insert manifest {run-2: gA, gP} ifGenerationMatch=gM1",
    )
    .reply("releases", "publisher", "200 generation gM2")
    .divider("a consumer, at any time")
    .call("consumer", "releases", "get manifest")
    .reply("releases", "consumer", "run-2: accounts#gA, positions#gP")
    .call("consumer", "datasets", "get accounts.csv?generation=gA")
    .call("consumer", "datasets", "get positions.csv?generation=gP")
    .note("consumer", "report run-2")
    .divider("after a crash")
    .crash("publisher", "crash after any write")
    .call(
        "publisher",
        "datasets",
        "insert … ifGenerationMatch=0 again",
    )
    .reply(
        "datasets",
        "publisher",
        "412: same bytes? reuse the generation",
    )
    .note("publisher", "or abandon run-2");
    let cache = Sequence::new(
        "The origin is strongly consistent; the public cache is not",
        &["publisher", "origin", "public cache", "reader"],
    )
    .call("reader", "public cache", "GET manifest (anonymous)")
    .call("public cache", "origin", "miss: fetch")
    .reply(
        "origin",
        "public cache",
        "run-1, Cache-Control: public, max-age=60",
    )
    .reply("public cache", "reader", "run-1 (served by the origin)")
    .call("publisher", "origin", "insert manifest run-2")
    .reply(
        "origin",
        "publisher",
        "200: every origin read now sees run-2",
    )
    .call("reader", "public cache", "GET manifest (age 30 s)")
    .reply(
        "public cache",
        "reader",
        "run-1 (served by the cache: stale)",
    )
    .call("reader", "origin", "GET manifest (authenticated)")
    .reply("origin", "reader", "run-2")
    .call(
        "reader",
        "public cache",
        "GET manifest (age 60 s = max-age)",
    )
    .call("public cache", "origin", "stale: fetch again")
    .reply("public cache", "reader", "run-2");
    vec![
        ("07-publication.svg", publication.to_svg()),
        ("07-cache.svg", cache.to_svg()),
        ("07-first-failure.txt", first_publish_failure()),
    ]
}
