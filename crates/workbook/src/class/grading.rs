//! The grading of a class: the environment made ready and proven once, then each
//! submission in a job slot of its own, several at a time.

use super::code::{self, Taken};
use super::intake::{Intake, intake, locate_workbook};
use super::tree::{Pristine, Slot, Stamp, repair_build_folder, sync, touch};
use super::{ClassGrade, Options, copies, learners, table, work_dir};
use crate::error::{Error, Result};
use crate::grade::build::Built;
use crate::grade::run::{self, LabRun, RunEnv, SuiteEnv, cores};
use crate::grade::{
    self, Grade, GradedSuite, Integrity, LabEvidence, LabStatus, Learner, PredictionSource,
};
use crate::meta::Lab;
use crate::process::Limits;
use crate::sandbox::{Policy, Sandbox};
use crate::workbook::Workbook;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

/// One submission graded: its grade, the learner files it gave, and the seconds it took.
type Graded = ((Grade, Vec<Taken>), f64);

/// Everything a class grading shares.
struct Grader<'a> {
    wb: &'a Workbook,
    labs: Vec<&'a Lab>,
    work: PathBuf,
    sandbox: Option<Sandbox>,
    /// The student edition every submission's tree is restored from.
    pristine: Pristine,
    /// The layout salt of this grading's graded suites (see the `graded` crate).
    salt: u64,
    /// What the builds run rustc through, so that the salt never reaches a compiler
    /// (see `rustc_without_salt`).
    rustc_wrapper: Option<PathBuf>,
    /// The slots share one build folder: their builds take turns (a wait for the lock
    /// must not count against a build's time limit), their tests do not.
    build_lock: Mutex<()>,
    /// The live poll's votes, when predictions are scored from them.
    polled: Option<super::polled::Polled>,
}

/// Bubblewrap, or the teacher's explicit `--no-sandbox`; anything else stops here.
fn choose_sandbox(no_sandbox: bool) -> Result<Option<Sandbox>> {
    if no_sandbox {
        eprintln!("warning: --no-sandbox: submissions build and run with your privileges");
        return Ok(None);
    }
    match Sandbox::detect() {
        Ok(sandbox) => Ok(Some(sandbox)),
        Err(why) => Err(Error::Environment(format!(
            "{why}\nA class is graded in bubblewrap's sandbox. Install it (`apt install bubblewrap`) and let it \
             create user namespaces (on Ubuntu 24.04: `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`), \
             or grade without it, trusting the submissions with your machine: `--no-sandbox`."
        ))),
    }
}

/// Grades every submission in `dirs` and returns the class's grades.
pub fn grade_submissions(wb: &Workbook, dirs: &[PathBuf], options: &Options) -> Result<ClassGrade> {
    if let Some(dir) = dirs.iter().find(|d| !d.is_dir()) {
        return Err(Error::input(format!("{} is not a folder", dir.display())));
    }
    let labs = wb.chosen(&options.labs)?;
    let sandbox = choose_sandbox(options.no_sandbox)?;
    let work = work_dir(wb, options)?;
    let pristine_dir = work.join("pristine");
    export_pristine(wb, &pristine_dir)?;
    let rustc_wrapper = rustc_without_salt(&work);
    let grader = Grader {
        wb,
        labs,
        work,
        pristine: Pristine::read(&pristine_dir)?,
        sandbox,
        salt: graded_salt(),
        rustc_wrapper,
        build_lock: Mutex::new(()),
        polled: (options.predictions_from.as_deref())
            .map(super::polled::Polled::read)
            .transpose()?,
    };
    let mut jobs = options
        .jobs
        .unwrap_or_else(cores)
        .clamp(1, dirs.len().max(1));
    if grader.sandbox.is_none() && jobs > 1 {
        // Without the sandbox a submission's tests could write into the tree another
        // slot is grading: one at a time, each is checked before the next begins.
        eprintln!("--no-sandbox: grading one submission at a time");
        jobs = 1;
    }
    // A graded test caps the processes it may start (RLIMIT_NPROC), which root is exempt
    // from: a submission could then flood the machine and slow the others down.
    #[cfg(unix)]
    if nix::unistd::Uid::effective().is_root() {
        eprintln!(
            "note: grading as root, where a test's cap on the processes it starts does not bind: \
             one submission could start processes that slow down those graded beside it. \
             Grade as a normal user."
        );
    }
    let first = Slot::new(&grader.work, 0)?;
    grader.prepare(&first)?;
    let mut slots = vec![first];
    for i in 1..jobs {
        slots.push(Slot::new(&grader.work, i)?);
    }
    let named = learners(dirs);
    let graded = grader.grade_all(&slots, &named, dirs)?;
    let mut learners = Vec::new();
    let (mut taken, mut seconds) = (Vec::new(), Vec::new());
    for ((grade, files), time) in graded {
        learners.push(grade);
        taken.extend(files);
        seconds.push(time);
    }
    let copied_code = code::copied(&wb.root, &grader.pristine_dir(), &grader.labs, &taken);
    code::note(&copied_code, &mut learners);
    Ok(ClassGrade {
        version: grade::FORMAT_VERSION,
        sandboxed: grader.sandbox.is_some(),
        copied_code,
        copied_predictions: copied_predictions(&grader.labs, &learners),
        rows: table::rows(&learners),
        learners,
        seconds,
    })
}

/// rustc as a grading's builds run it: without the grading's salt in its environment.
/// Cargo runs `graded`'s build script itself, with cargo's environment, so the script
/// still reads the salt; but every crate rustc compiles, the learner's included, would
/// otherwise see it too (`option_env!("BOUNDARY_GRADED_SALT")`) and could compute the
/// masks the key is kept under. A script in the build folder, which the build's sandbox
/// shows, written again before every build (unsandboxed, a test could rewrite it).
/// Without a Unix shell there is no sandbox either (`--no-sandbox`): a submission's code
/// runs with the teacher's privileges and could read far more than the salt.
fn rustc_without_salt(work: &Path) -> Option<PathBuf> {
    cfg!(unix).then(|| Slot::target_of(work).join("rustc-without-salt"))
}

#[cfg(unix)]
fn write_rustc_without_salt(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let script = "#!/bin/sh\n# rustc, run by a class grading's cargo without the grading's salt.\n\
                  exec env -u BOUNDARY_GRADED_SALT \"$@\"\n";
    std::fs::write(path, script).map_err(|e| Error::writing(path, e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::writing(path, e))
}

#[cfg(not(unix))]
fn write_rustc_without_salt(_path: &Path) -> Result<()> {
    Ok(())
}

/// A fresh salt for this grading: no two gradings lay out their graded suites alike.
fn graded_salt() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish() | 1
}

/// The pairs of learners whose sealed predictions share rare wrong answers, per lab.
fn copied_predictions(labs: &[&Lab], learners: &[Grade]) -> Vec<copies::PredictionPair> {
    let mut pairs = Vec::new();
    for lab in labs {
        let key = (lab.right_answers().into_iter())
            .map(|(id, a)| (id, a.show()))
            .collect();
        let sealed: Vec<copies::Sealed<'_>> = learners
            .iter()
            .filter_map(|g| {
                let graded = g.labs.iter().find(|l| l.lab == lab.meta.number)?;
                let learner = g.learner.as_ref()?;
                Some(copies::Sealed {
                    learner: &learner.name,
                    answers: &graded.predictions.sealed_answers,
                })
            })
            .collect();
        pairs.extend(copies::copied(&lab.meta.number, &sealed, &key));
    }
    pairs
}

/// Exports the student edition this grading grades over, fresh.
fn export_pristine(wb: &Workbook, dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| Error::writing(dir, e))?;
    }
    crate::export::export(wb, dir, None).map(|_| ())
}

impl Grader<'_> {
    fn pristine_dir(&self) -> PathBuf {
        self.work.join("pristine")
    }

    /// Fetches the dependencies (with the network, outside the sandbox: the teacher's own
    /// files) and builds the starters exactly as a submission will be built. When the
    /// starters do not build, no submission can: stop, and say why and what to do.
    fn prepare(&self, slot: &Slot) -> Result<()> {
        let fetched = self.fetch();
        sync(&self.pristine, &slot.tree)?;
        eprintln!("building the starters once, as every submission will be built …");
        let runs = self.build_only(slot, true)?;
        let failures: Vec<String> = runs
            .into_iter()
            .filter_map(|(lab, problem)| problem.map(|p| format!("lab {lab}: {p}")))
            .collect();
        if failures.is_empty() {
            return Ok(());
        }
        let fetch_note = match fetched {
            Ok(()) => String::new(),
            Err(why) => format!("\n`cargo fetch` failed before it: {why}"),
        };
        Err(Error::Environment(format!(
            "the starters do not build here, so no submission could be graded (nothing was graded):\n{}{fetch_note}\n\
             Fix: make `cargo build --examples` work in {} (its dependencies must be in cargo's cache: run `cargo fetch` \
             there once with the network), then grade again.",
            failures.join("\n"),
            self.pristine_dir().display()
        )))
    }

    /// `cargo fetch` in the pristine tree: offline first (a machine whose cache holds the
    /// crates needs no network), then with the network; its last words when both fail.
    fn fetch(&self) -> std::result::Result<(), String> {
        let limit = Duration::from_secs(self.wb.settings.limits.build_time_limit_secs);
        let mut last = String::new();
        for offline in [true, false] {
            let mut command = crate::process::cargo();
            command.args(["fetch", "--quiet"]);
            if offline {
                command.arg("--offline");
            }
            let job = crate::process::Job::new(command, limit);
            match crate::process::run(job, &self.pristine_dir()) {
                Ok(done) if done.success() => return Ok(()),
                Ok(done) => last = crate::process::tail(&crate::text::strip_ansi(&done.stderr), 8),
                Err(e) => return Err(format!("cargo could not be started: {e}")),
            }
        }
        Err(last)
    }
}

/// The sandbox policies of one slot: building (the tree and its build folder writable)
/// and running tests (the tree and the slot's copies of the executables read-only, no
/// `/proc`). Tests never see the build folder: it holds the grading's layout in plain text
/// (`graded`'s build script writes its salt and masks there), which with a compiler
/// soundness hole turns into the key of a running test.
fn policies(slot: &Slot, registry_writable: bool, tmp_bytes: u64) -> (Policy, Policy) {
    let build = Policy {
        readable: Vec::new(),
        writable: vec![slot.build_tree.clone(), slot.target.clone()],
        proc_fs: true,
        registry_writable,
        tmp_bytes,
        clear_env: false,
        dir: slot.build_tree.clone(),
    };
    let run = Policy {
        readable: vec![slot.tree.clone(), slot.bin.clone()],
        writable: Vec::new(),
        proc_fs: false,
        registry_writable: false,
        tmp_bytes,
        clear_env: true,
        dir: slot.tree.clone(),
    };
    (build, run)
}

const MIB: u64 = 1 << 20;

impl Grader<'_> {
    /// How one slot builds and runs, given its sandbox wrappers.
    fn run_env<'a>(
        &self,
        slot: &Slot,
        build_wrap: &'a (dyn Fn(Command) -> Command + Sync),
        run_wrap: &'a (dyn Fn(Command) -> Command + Sync),
    ) -> RunEnv<'a> {
        let limits = &self.wb.settings.limits;
        let file_bytes = Some(limits.max_file_mib * MIB);
        RunEnv {
            target_dir: Some(slot.target.clone()),
            // The sandbox has no network, and a grade must not depend on one: every crate
            // comes from the cache the preparation filled.
            build_env: [
                ("CARGO_NET_OFFLINE".into(), "true".into()),
                ("CARGO_TERM_COLOR".into(), "never".into()),
                ("BOUNDARY_GRADED_SALT".into(), self.salt.to_string()),
            ]
            .into_iter()
            .chain(
                self.rustc_wrapper
                    .iter()
                    .map(|wrapper| ("RUSTC_WRAPPER".into(), wrapper.display().to_string())),
            )
            .collect(),
            build_wrap: Some(build_wrap),
            build_limits: Limits {
                memory_bytes: Some(limits.max_build_memory_mib * MIB),
                file_bytes,
            },
            build_time: Duration::from_secs(limits.build_time_limit_secs),
            growth_cap: Some(limits.max_build_growth_mib * MIB),
            cancel: None,
            tests: SuiteEnv {
                test_limit: Duration::ZERO,
                suite_budget: Duration::from_secs(limits.max_lab_time_secs),
                output_cap: limits.max_test_output_bytes as usize,
                limits: Limits {
                    memory_bytes: Some(limits.max_test_memory_mib * MIB),
                    file_bytes,
                },
                jobs: 1,
                env: vec![
                    ("TMPDIR".into(), "/tmp".into()),
                    ("CARGO_TERM_COLOR".into(), "never".into()),
                ],
                wrap: Some(run_wrap),
                cancel: None,
                // Without the sandbox a test could rewrite any binary of the grading.
                verify_binary: self.sandbox.is_none(),
                longest_first: false,
            },
        }
    }

    /// Builds the graded suites of the labs in `slot` as they are; for each lab, what
    /// went wrong (`None`: it built).
    fn build_only(
        &self,
        slot: &Slot,
        registry_writable: bool,
    ) -> Result<Vec<(String, Option<String>)>> {
        let tmp = self.wb.settings.limits.max_tmp_mib * MIB;
        let (build_policy, run_policy) = policies(slot, registry_writable, tmp);
        let wrap = |policy: &Policy, c: Command| match &self.sandbox {
            Some(s) => s.wrap(&c, policy),
            None => c,
        };
        let (build_wrap, run_wrap) = (|c| wrap(&build_policy, c), |c| wrap(&run_policy, c));
        let env = self.run_env(slot, &build_wrap, &run_wrap);
        let packages: Vec<&str> = self.labs.iter().map(|l| l.meta.package.as_str()).collect();
        let built = self.build(slot, &packages, &env)?;
        Ok(self
            .labs
            .iter()
            .map(|lab| {
                let problem = built.executable(&lab.meta.package).err().map(|p| match p {
                    grade::build::BuildProblem::DoesNotCompile(e) => {
                        crate::process::tail(&crate::text::strip_ansi(&e), 12)
                    }
                    grade::build::BuildProblem::Capped(cap, why) => {
                        format!("stopped by the {cap:?} cap: {why}")
                    }
                    grade::build::BuildProblem::Cancelled => "cancelled".into(),
                    grade::build::BuildProblem::Failed(why) => why,
                });
                (lab.meta.number.clone(), problem)
            })
            .collect())
    }

    /// Grades every submission, `slots.len()` at a time, in the order given.
    fn grade_all(
        &self,
        slots: &[Slot],
        named: &[Learner],
        dirs: &[PathBuf],
    ) -> Result<Vec<Graded>> {
        type Done = Option<Result<Graded>>;
        let next = Mutex::new(0usize);
        let done: Mutex<Vec<Done>> = Mutex::new((0..dirs.len()).map(|_| None).collect());
        std::thread::scope(|scope| {
            for slot in slots {
                scope.spawn(|| {
                    loop {
                        let i = {
                            let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                            *n += 1;
                            *n - 1
                        };
                        let Some(dir) = dirs.get(i) else { break };
                        eprintln!("grading {} ({}/{}) …", named[i].name, i + 1, dirs.len());
                        let started = std::time::Instant::now();
                        let result = self.grade_one(slot, named[i].clone(), dir);
                        let result = result.map(|grade| (grade, started.elapsed().as_secs_f64()));
                        let failed = result.is_err();
                        done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                        if failed {
                            // A grader fault stops this slot; the others finish what they hold.
                            *next.lock().unwrap_or_else(|e| e.into_inner()) = dirs.len();
                        }
                    }
                });
            }
        });
        let mut out = Vec::new();
        for result in done.into_inner().unwrap_or_default().into_iter().flatten() {
            let ((grade, files), seconds) = result?;
            let learner = grade.learner.as_ref().map_or("?", |l| l.name.as_str());
            eprintln!(
                "  {learner}: {} / {} points in {seconds:.1} s",
                grade.points, grade.max_points
            );
            out.push(((grade, files), seconds));
        }
        Ok(out)
    }
}

impl Grader<'_> {
    /// Grades one submission in `slot`; returns its grade and the learner files it took.
    fn grade_one(&self, slot: &Slot, learner: Learner, dir: &Path) -> Result<(Grade, Vec<Taken>)> {
        let Some(root) = locate_workbook(dir) else {
            let why = format!(
                "{} is not a copy of the workbook (no labs/ and book.toml in it, nor in one folder below it)",
                dir.display()
            );
            let labs = self
                .labs
                .iter()
                .map(|lab| grade::score::unrun(lab, LabStatus::NotAWorkbook, &why))
                .collect();
            return Ok((grade::total(labs, Some(learner)), Vec::new()));
        };
        // From memory: unsandboxed, an earlier submission's tests could have written to
        // any folder, the pristine one included.
        sync(&self.pristine, &slot.tree)?;
        let limits = &self.wb.settings.limits;
        let mut intakes: Vec<Intake> = self
            .labs
            .iter()
            .map(|lab| intake(lab, &root, limits))
            .collect();
        let mut files = Vec::new();
        for (lab, taken) in self.labs.iter().zip(&intakes) {
            for (file, text) in &taken.files {
                let path = slot.tree.join(lab.learner_path(file));
                std::fs::write(&path, text).map_err(|e| Error::writing(&path, e))?;
                files.push(Taken {
                    learner: learner.name.clone(),
                    lab: lab.meta.number.clone(),
                    path: lab.learner_path(file),
                    text: text.clone(),
                });
            }
        }
        let runs = self.run_labs(slot)?;
        let sandboxed = self.sandbox.is_some();
        let learner_name = learner.name.clone();
        let grades = (self.labs.iter().zip(runs).zip(intakes.iter_mut()))
            .map(|((lab, (suite, run)), taken)| {
                let mut integrity = Integrity {
                    notes: std::mem::take(&mut taken.review),
                    sandboxed,
                    refused: taken.refused,
                };
                integrity.notes.extend(
                    taken
                        .problems
                        .iter()
                        .map(|p| grade::Note::new(grade::Severity::Info, p.clone())),
                );
                let (predictions, source) = match &self.polled {
                    Some(polled) => (
                        polled.predictions(&learner_name, lab),
                        PredictionSource::Poll,
                    ),
                    None => (
                        std::mem::replace(&mut taken.predictions, Ok(None)),
                        PredictionSource::File,
                    ),
                };
                grade::grade_lab(LabEvidence {
                    lab,
                    predictions,
                    first_seal: None,
                    source,
                    mode: self.wb.settings.prediction_mode(&lab.meta.number),
                    run,
                    expected: suite.expected,
                    integrity,
                    notes: taken.problems.clone(),
                })
            })
            .collect();
        let mut grade = grade::total(grades, Some(learner));
        if root != dir {
            grade.found_in = Some(root.display().to_string());
        }
        Ok((grade, files))
    }

    /// Builds `packages` from `slot`'s tree, in turn with the other slots, in the build
    /// tree they share (see [`Slot`]): the learner files are touched first, so cargo
    /// rebuilds each lab from this submission's files (see [`touch`]), and each
    /// executable is copied into the slot's own folder before the next build can replace
    /// it; the tests run the copy, in the slot's own tree.
    fn build(&self, slot: &Slot, packages: &[&str], env: &RunEnv<'_>) -> Result<Built> {
        let _turn = self.build_lock.lock().unwrap_or_else(|e| e.into_inner());
        // The build tree becomes this slot's tree (only what differs is written, so the
        // harnesses' sources keep their times and are not rebuilt).
        sync(&Pristine::read(&slot.tree)?, &slot.build_tree)?;
        for lab in &self.labs {
            for file in &lab.meta.learner_files {
                let path = slot.build_tree.join(lab.learner_path(file));
                if path.is_file() {
                    touch(&path)?;
                }
            }
        }
        if let Some(wrapper) = &self.rustc_wrapper {
            write_rustc_without_salt(wrapper)?;
        }
        let mut built = run::build_suites(&slot.build_tree, packages, env)?;
        built
            .keep_executables(&slot.bin)
            .map_err(|e| Error::writing(&slot.bin, e))?;
        if env.tests.verify_binary {
            built.remember_executables();
        }
        Ok(built)
    }

    /// Builds `suites` in `slot`, then runs them. Unsandboxed, the build folder must be
    /// as the build left it once the tests are over: whatever a test wrote there is
    /// deleted, so that the next submission's build makes it again, and the submission
    /// is named.
    fn build_and_run(
        &self,
        slot: &Slot,
        suites: &[GradedSuite],
        env: &RunEnv<'_>,
    ) -> Result<Vec<LabRun>> {
        let packages: Vec<&str> = suites.iter().map(|s| s.package.as_str()).collect();
        let built = match self.build(slot, &packages, env) {
            Ok(built) => built,
            Err(e) => {
                return Ok(suites
                    .iter()
                    .map(|_| LabRun::GraderFault(e.to_string()))
                    .collect());
            }
        };
        let watched = self.sandbox.is_none().then(|| Stamp::of(&slot.target));
        let mut runs: Vec<LabRun> = suites
            .iter()
            .map(|suite| run::run_built(&built, &slot.tree, suite, env))
            .collect();
        if let Some(before) = watched {
            let changed = before.changes(&Stamp::of(&slot.target));
            if !changed.is_empty() {
                repair_build_folder(&slot.target, &changed)?;
                let shown: Vec<String> = (changed.iter().take(5))
                    .map(|p| p.display().to_string())
                    .collect();
                let more = if changed.len() > 5 { ", …" } else { "" };
                let note = grade::Note::new(
                    grade::Severity::Serious,
                    format!(
                        "the tests of this submission wrote into the grader's build folder ({}{more}): \
                         what they wrote was deleted before the next submission was built",
                        shown.join(", ")
                    ),
                );
                for run in &mut runs {
                    if let LabRun::Ran(suite) = run {
                        suite.notes.push(note.clone());
                    }
                }
            }
        }
        Ok(runs)
    }

    /// Builds and runs every lab in `slot`; a lab that failed for no reason in its own
    /// code is settled by building the starters again.
    fn run_labs(&self, slot: &Slot) -> Result<Vec<(GradedSuite, LabRun)>> {
        let tmp = self.wb.settings.limits.max_tmp_mib * MIB;
        let (build_policy, run_policy) = policies(slot, false, tmp);
        let wrap = |policy: &Policy, c: Command| match &self.sandbox {
            Some(s) => s.wrap(&c, policy),
            None => c,
        };
        let (build_wrap, run_wrap) = (|c| wrap(&build_policy, c), |c| wrap(&run_policy, c));
        let env = self.run_env(slot, &build_wrap, &run_wrap);
        let settings = &self.wb.settings;
        let suites: Vec<GradedSuite> = self
            .labs
            .iter()
            .map(|l| GradedSuite::of(l, &slot.tree, settings))
            .collect();
        let mut runs = self.build_and_run(slot, &suites, &env)?;
        // A cap that stopped the whole build stopped every lab in it: build each such lab
        // alone, so that only the one that hit the cap pays for it.
        let capped: Vec<usize> = (0..runs.len())
            .filter(|&i| matches!(runs[i], LabRun::BuildCapped { .. }))
            .collect();
        if capped.len() > 1 {
            for i in capped {
                runs[i] = self
                    .build_and_run(slot, std::slice::from_ref(&suites[i]), &env)?
                    .remove(0);
            }
        }
        if runs.iter().any(|r| matches!(r, LabRun::GraderFault(_))) {
            runs = self.settle_faults(slot, runs)?;
        }
        Ok(suites.into_iter().zip(runs).collect())
    }

    /// A lab whose build failed with no error in its own code: either the grader's
    /// environment broke (then the starters fail too, and grading stops) or the
    /// learner's files made the compiler fail (then the starters build, and it is theirs).
    fn settle_faults(&self, slot: &Slot, runs: Vec<LabRun>) -> Result<Vec<LabRun>> {
        let faults: Vec<String> = runs
            .iter()
            .filter_map(|r| match r {
                LabRun::GraderFault(why) => Some(why.clone()),
                _ => None,
            })
            .collect();
        sync(&self.pristine, &slot.tree)?;
        let starters = self.build_only(slot, false)?;
        let broken: Vec<String> = starters
            .into_iter()
            .filter_map(|(lab, p)| p.map(|p| format!("lab {lab}: {p}")))
            .collect();
        if !broken.is_empty() {
            return Err(Error::Environment(format!(
                "the grader's environment failed in the middle of the class (the starters no longer build): \
                 grading stopped, and nothing was written.\n{}\nfirst seen as: {}\nFix the machine (disk space, \
                 the toolchain, cargo's cache), then grade again; --work keeps what was built.",
                broken.join("\n"),
                faults.join("\n")
            )));
        }
        Ok(runs
            .into_iter()
            .map(|r| match r {
                LabRun::GraderFault(why) => LabRun::DidNotCompile(format!(
                    "the compiler failed on this submission's files, while the starters build: {why}"
                )),
                other => other,
            })
            .collect())
    }
}
