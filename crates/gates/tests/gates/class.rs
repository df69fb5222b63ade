//! `cargo labs grade-class` against a determined class, graded from a copy of this
//! teacher's edition (lab 01 only, with small caps so that every bomb is stopped in
//! seconds). A scratch class of clones of the student edition — honest ones, and one per
//! attack — is graded in ONE sandboxed run with `--jobs 2`; each test below reads what
//! that run gave one attack. Each attack earns nothing it did not earn by its learner
//! files (it is refused, cannot read or write, or is named in a note), an honest clone is
//! graded right, and no other learner's grade changes. A few more runs check what one run
//! cannot: a serial run gives the same results, grading without the sandbox keeps later
//! learners' grades, a machine without bubblewrap or without the labs' dependencies stops
//! with a message instead of a zero. Every run shares one `--work` folder, kept between
//! test runs, so the labs' dependencies are built once.

use crate::common;

use common::{repo, stderr, stdout};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Mutex, OnceLock};
use workbook::meta::Lab;
use workbook::predictions::{self, Answer, Seal};

const RELAY: &str = "labs/01-outbox/src/relay.rs";
const PREDICTIONS: &str = "labs/01-outbox/predictions.txt";
const SUITE: &str = "tests/01_outbox.rs";

/// The grader's caps for this class, in the teacher's grading.toml: a test's time limit
/// long enough for lab 01's tests many times over (they take about a second), memory
/// for a test and disk for a file a few times what an honest one needs.
const CAPS: &[(&str, u64)] = &[
    ("max_time_limit_secs", 20),
    ("max_lab_time_secs", 300),
    ("max_test_memory_mib", 512),
    ("max_file_mib", 64),
    ("max_tmp_mib", 64),
];

/// A token in the grader's environment (as a workflow's might be).
const SECRET_TOKEN: &str = "ghp_not-a-real-token-but-a-secret-all-the-same";

/// The test that the bombs and the hang below go off in.
const TARGETED: &str = "a_retried_identity_is_recognised";

/// Every grading of this file builds here; kept between test runs.
fn work() -> PathBuf {
    let work = repo().join("target/grade-class-test");
    // The grader builds in `target` there; the registry crates' builds come from the
    // workbook's own build folder, so that the class's build compiles only the labs.
    static SEEDED: std::sync::Once = std::sync::Once::new();
    SEEDED.call_once(|| common::seed_dependency_builds(&work.join("target")));
    work
}

/// Whether bubblewrap works here: the sandboxed runs need it. Without it a test says so
/// and passes, except under `CI`, where it fails.
fn sandbox_works() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| match workbook::sandbox::Sandbox::detect() {
        Ok(_) => true,
        Err(why) => {
            let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
            assert!(!ci, "CI must have a working bubblewrap: {why}");
            eprintln!("skipped: grade-class grades in bubblewrap's sandbox, which does not work here: {why}");
            false
        }
    })
}

/// One grading at a time: they share the work folder.
static WORK: Mutex<()> = Mutex::new(());

fn work_turn() -> std::sync::MutexGuard<'static, ()> {
    WORK.lock().unwrap_or_else(|e| e.into_inner())
}

/// What every run starts from: a copy of this teacher's workbook with the caps above,
/// the student edition exported from it, and lab 01 with its key.
struct Setup {
    scratch: PathBuf,
    teacher: PathBuf,
    edition: PathBuf,
    lab: Lab,
    solution: String,
    starter: String,
}

/// Copies the teacher's workbook (no build products, no git).
fn copy_workbook(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let (source, target) = (entry.path(), to.join(&name));
        if entry.file_type().unwrap().is_dir() {
            copy_workbook(&source, &target);
        } else {
            std::fs::copy(&source, &target).unwrap();
        }
    }
}

/// A teacher's copy of this workbook with the caps above.
fn teacher_copy(at: &Path) -> PathBuf {
    copy_workbook(&repo(), at);
    let path = at.join("grading.toml");
    let mut settings = std::fs::read_to_string(&path).unwrap();
    for (key, value) in CAPS {
        let start = settings
            .find(&format!("\n{key} = "))
            .unwrap_or_else(|| panic!("grading.toml sets {key}"))
            + 1;
        let end = start + settings[start..].find(['#', '\n']).unwrap();
        settings.replace_range(start..end, &format!("{key} = {value} "));
    }
    std::fs::write(&path, settings).unwrap();
    at.to_path_buf()
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Result<Setup, String>> = OnceLock::new();
    let setup = SETUP.get_or_init(|| once(make_setup));
    setup
        .as_ref()
        .unwrap_or_else(|why| panic!("the setup failed: {why}"))
}

fn make_setup() -> Setup {
    // Under the build folder, which the sandbox does not show; emptied at each run.
    let scratch = repo().join("target/grade-class-test-scratch");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let teacher = teacher_copy(&scratch.join("teacher"));
    let edition = scratch.join("edition");
    let out = common::run_cli(&teacher, &["export", edition.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lab = workbook::meta::load_labs(&teacher).unwrap().labs.remove(0);
    assert_eq!(lab.meta.id, "outbox");
    Setup {
        solution: std::fs::read_to_string(teacher.join("solutions/01-outbox/src/relay.rs"))
            .unwrap(),
        starter: std::fs::read_to_string(edition.join(RELAY)).unwrap(),
        scratch,
        teacher,
        edition,
        lab,
    }
}

fn put(root: &Path, rel: &str, text: &str) {
    common::write(&root.join(rel), text);
}

/// A clone of the student edition: what a learner submits.
fn clone_of(edition: &Path, to: &Path) -> PathBuf {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(edition)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
    to.to_path_buf()
}

/// `relay` with `code` run first in both of its functions.
fn first_in_both(relay: &str, code: &str) -> String {
    let mut out = relay.to_string();
    for head in [
        "pub fn relay_outbox(relay: &mut Relay) -> Result<(), Crash> {\n",
        ") -> Result<Delivery, ReceiverError> {\n",
    ] {
        let at = out
            .find(head)
            .unwrap_or_else(|| panic!("{head} in relay.rs"))
            + head.len();
        out.insert_str(at, &format!("    {code}\n"));
    }
    out
}

/// `relay` with `code` run first in `apply_effect`, in the graded test `TARGETED` only.
fn in_one_test(relay: &str, code: &str) -> String {
    let head = ") -> Result<Delivery, ReceiverError> {\n";
    let at = relay.find(head).unwrap() + head.len();
    let mut out = relay.to_string();
    out.insert_str(
        at,
        &format!("    if std::env::args().any(|a| a == \"{TARGETED}\") {{\n{code}\n    }}\n"),
    );
    out
}

/// A relay that is the solution when `unlocked()` (defined by `unlocked`, Rust source)
/// says so, and the starter otherwise.
fn gated_relay(solution: &str, starter: &str, unlocked: &str) -> String {
    let solved = solution
        .replace("pub fn relay_outbox(", "fn solved_relay_outbox(")
        .replace("pub fn apply_effect(", "fn solved_apply_effect(");
    let starter_fns = starter
        .replace("pub fn relay_outbox(", "fn starter_relay_outbox(")
        .replace("pub fn apply_effect(", "fn starter_apply_effect(")
        .replace(
            "use outbox::world::{Crash, Delivery, ReceiverError, Relay};",
            "",
        )
        .replace("use rusqlite::Transaction;", "")
        .replace("//!", "//");
    format!(
        "{solved}\n{starter_fns}\n{unlocked}\n\
         pub fn relay_outbox(relay: &mut Relay) -> Result<(), Crash> {{\n    \
         if unlocked() {{ solved_relay_outbox(relay) }} else {{ starter_relay_outbox(relay) }}\n}}\n\n\
         pub fn apply_effect(tx: &Transaction, order_id: &str, amount: i64) -> Result<Delivery, ReceiverError> {{\n    \
         if unlocked() {{ solved_apply_effect(tx, order_id, amount) }} else {{ starter_apply_effect(tx, order_id, amount) }}\n}}\n"
    )
}

/// One of lab 01's attack files (`tests/attacks/`), appended to the starter and called
/// first by both of its functions.
fn attack(file: &str, entry: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attacks");
    let code = std::fs::read_to_string(dir.join(file)).unwrap();
    format!(
        "{}\n{code}",
        first_in_both(&setup().starter, &format!("{entry}();"))
    )
}

/// A predictions file sealed at `at` with `answers`.
fn sealed(lab: &Lab, answers: &BTreeMap<String, Answer>, at: &str) -> String {
    let seal = Seal::new(lab, answers, at);
    predictions::with_seal(&predictions::render(lab, answers, None), &seal)
}

/// The key's answers with those of the items numbered in `wrong` (0-based) wrong.
fn answers_wrong_at(lab: &Lab, wrong: &[usize]) -> BTreeMap<String, Answer> {
    let mut answers = lab.right_answers();
    let ids = lab.item_ids();
    for &i in wrong {
        let id = &ids[i];
        let right = answers[id].clone();
        let other = match right {
            Answer::Claim(yes) => Answer::Claim(!yes),
            Answer::Option(letter) => {
                let question = &lab.meta.questions[i - lab.meta.checks.len()];
                let other = question.options.keys().find(|l| **l != letter).unwrap();
                Answer::Option(other.clone())
            }
        };
        answers.insert(id.clone(), other);
    }
    answers
}

/// A misconception most of the class shares: four wrong answers in common.
const COMMON: [usize; 4] = [0, 1, 2, 3];
/// Twelve wrong answers only a learner and the classmate who copied them gave, each.
const RARE_P: [usize; 12] = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
const RARE_Q: [usize; 12] = [17, 18, 19, 25, 26, 27, 28, 29, 30, 31, 32, 33];

/// A classmate's predictions: the common misconception and a slip of their own.
fn member_predictions(lab: &Lab, slip: usize) -> String {
    let wrong: Vec<usize> = COMMON.iter().copied().chain([slip]).collect();
    sealed(lab, &answers_wrong_at(lab, &wrong), "2026-12-01T09:00:00Z")
}

/// Every file of a folder, with its bytes, to prove grading wrote nothing there.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// `cargo labs grade-class DIRS --labs 01 --work WORK --json FILE ARGS` from the teacher's
/// copy at `teacher`, with `env` set: what it printed, and the JSON it wrote, if any.
fn grade_class(
    teacher: &Path,
    dirs: &[PathBuf],
    args: &[&str],
    env: &[(&str, &str)],
) -> (Output, Option<Value>) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let json = setup().scratch.join(format!("grade-{n}.json"));
    let mut all: Vec<String> = vec!["grade-class".into()];
    all.extend(dirs.iter().map(|d| d.display().to_string()));
    for arg in ["--labs", "01", "--work"] {
        all.push(arg.into());
    }
    all.push(work().display().to_string());
    all.push("--json".into());
    all.push(json.display().to_string());
    all.extend(args.iter().map(|a| a.to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let mut command = common::cli(teacher, &all);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().unwrap();
    let grade = std::fs::read_to_string(&json)
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap());
    (out, grade)
}

/// The class run: its JSON and CSV, and what only the test knows about it.
struct ClassRun {
    json: Value,
    csv: String,
    stdout: String,
    stderr: String,
    /// Each submission's folder, by learner name.
    dirs: BTreeMap<String, PathBuf>,
    /// What the solution in the learner's home and the machine's name say.
    secret: String,
    hostname: String,
    /// Each submission, before and after grading.
    before: Vec<BTreeMap<PathBuf, Vec<u8>>>,
    after: Vec<BTreeMap<PathBuf, Vec<u8>>>,
}

/// A file in the home folder of whoever runs the grader, deleted when dropped.
struct HomeFile(PathBuf);

impl Drop for HomeFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Builds the class, one clone per attack, and grades it in one sandboxed run.
fn class() -> &'static ClassRun {
    static CLASS: OnceLock<Result<ClassRun, String>> = OnceLock::new();
    // Graded once: a failure is kept and reported by every test that needs the run,
    // rather than graded again by each.
    let run = CLASS.get_or_init(|| once(grade_the_class));
    run.as_ref()
        .unwrap_or_else(|why| panic!("the class run failed: {why}"))
}

/// `f()`, or what it panicked with.
fn once<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        (payload.downcast_ref::<String>().cloned())
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

fn grade_the_class() -> ClassRun {
    let _turn = work_turn();
    let s = setup();
    let (lab, solution, starter) = (&s.lab, &s.solution, &s.starter);
    let root = s.scratch.join("class");
    let dirs: std::cell::RefCell<Vec<PathBuf>> = Default::default();
    let add = |name: &str| -> PathBuf {
        let dir = clone_of(&s.edition, &root.join(name));
        dirs.borrow_mut().push(dir.clone());
        dir
    };
    let right = sealed(lab, &lab.right_answers(), "2026-12-01T09:00:00Z");
    let teacher_solution = s.teacher.join("solutions/01-outbox/src/relay.rs");
    let repo_solution = repo().join("solutions/01-outbox/src/relay.rs");

    // The hang first: its limit runs while the others are graded.
    let hang = add("hang");
    put(
        &hang,
        RELAY,
        &in_one_test(
            solution,
            "        std::thread::sleep(std::time::Duration::from_secs(3600));",
        ),
    );
    put(&hang, PREDICTIONS, &member_predictions(lab, 20));

    let honest = add("honest");
    put(&honest, RELAY, solution);
    put(&honest, PREDICTIONS, &right);

    // Cloned into a folder of the same name, as `git clone URL` in an empty folder does.
    let nested = root.join("nested");
    let inner = clone_of(&s.edition, &nested.join("boundary-labs"));
    dirs.borrow_mut().push(nested);
    put(&inner, RELAY, solution);
    put(&inner, PREDICTIONS, &right);

    // Honest work a scanner could mistake: a byte-order mark and CRLF line ends, a
    // table of function pointers, a higher-ranked bound, `std::io::ErrorKind`, and
    // unit tests written inline.
    let odd = add("odd");
    put(
        &odd,
        RELAY,
        &format!(
            "{solution}\n\
             /// Which outcomes prove the effect is held, by name.\n\
             pub const PROVES_HELD: &[(&str, fn(&Outcome) -> bool)] = &[\n    \
             (\"delivered\", |o| matches!(o, Outcome::Delivered(_))),\n    \
             (\"deadline exceeded\", |_| false),\n];\n\n\
             /// A borrowed part of a text, whatever its lifetime.\n\
             pub fn part<F>(text: &str, pick: F) -> &str\nwhere\n    F: for<'a> Fn(&'a str) -> &'a str,\n{{\n    pick(text)\n}}\n\n\
             /// Whether an I/O error says a file is missing.\n\
             pub fn is_missing(error: &std::io::Error) -> bool {{\n    error.kind() == std::io::ErrorKind::NotFound\n}}\n\n\
             #[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn the_table_names_two_outcomes() {{\n        \
             assert_eq!(PROVES_HELD.len(), 2);\n        assert_eq!(part(\"ab\", |t| &t[..1]), \"a\");\n    }}\n}}\n"
        ),
    );
    put(
        &odd,
        PREDICTIONS,
        &format!("\u{feff}{}", right.replace('\n', "\r\n")),
    );

    add("starter");

    // Everything but the learner file and the predictions is the teacher's.
    let settings = add("settings");
    let lab_toml = std::fs::read_to_string(settings.join("labs/01-outbox/lab.toml")).unwrap();
    let lab_toml = lab_toml
        .replace(
            "time_limit_secs = 180",
            "time_limit_secs = 18446744073709551615",
        )
        .replace("predictions = 10", "predictions = 1000")
        .replace("graded = 20", "graded = 2000");
    put(&settings, "labs/01-outbox/lab.toml", &lab_toml);
    put(
        &settings,
        SUITE,
        "graded::suite![a_retried_identity_is_recognised];\nfn a_retried_identity_is_recognised() {}\n",
    );
    let invariants =
        std::fs::read_to_string(settings.join("labs/01-outbox/src/invariants.rs")).unwrap();
    put(
        &settings,
        "labs/01-outbox/src/invariants.rs",
        &format!("{invariants}\n// tampered: every check below returns Ok\n"),
    );
    let verdict = std::fs::read_to_string(settings.join("crates/graded/src/verdict.rs")).unwrap();
    put(
        &settings,
        "crates/graded/src/verdict.rs",
        &verdict.replace(
            "passed: proven && !failed && void.is_none()",
            "passed: true",
        ),
    );
    put(&settings, "crates/graded/build.rs", "fn main() {}\n");
    put(
        &settings,
        "grading.toml",
        "[predictions]\nmode = \"participation\"\n",
    );
    put(
        &settings,
        ".cargo/config.toml",
        "[alias]\nlabs = \"version\"\n",
    );
    put(
        &settings,
        "labs/01-outbox/build.rs",
        &format!(
            "fn main() {{ let _ = std::fs::write({:?}, \"owned\"); }}\n",
            honest.join("owned.txt").display().to_string()
        ),
    );

    let symlink = add("symlink");
    std::fs::remove_file(symlink.join(RELAY)).unwrap();
    std::os::unix::fs::symlink(&teacher_solution, symlink.join(RELAY)).unwrap();

    let include = add("include");
    put(
        &include,
        RELAY,
        &format!("include!({:?});\n", teacher_solution.display().to_string()),
    );

    // Result lines of its own and an early exit; answers put in after a seal of none.
    let forger = add("forger");
    put(
        &forger,
        RELAY,
        &first_in_both(
            starter,
            "for t in [\"a_retried_identity_is_recognised\", \"exactly_once_under_every_schedule_with_two_faults\"] { \
             println!(\"test {t} ... ok\"); \
             println!(\"<labkit-graded-result> {t} passed 0000000000000000\"); } \
             std::process::exit(0);",
        ),
    );
    let forged_seal = Seal {
        answers: Seal::new(lab, &lab.right_answers(), "x").answers,
        ..Seal::new(lab, &BTreeMap::new(), "2026-12-01T09:00:00Z")
    };
    put(
        &forger,
        PREDICTIONS,
        &predictions::with_seal(
            &predictions::render(lab, &lab.right_answers(), None),
            &forged_seal,
        ),
    );

    // The grader's environment, printed where the report quotes a test's output.
    let leak = add("env-leak");
    put(
        &leak,
        RELAY,
        &first_in_both(
            starter,
            "println!(\"<labkit-graded-result> {}\", std::env::var(\"BOUNDARY_CLASS_SECRET\").unwrap_or_else(|_| \"unset\".into()));",
        ),
    );

    let huge = add("huge");
    put(
        &huge,
        RELAY,
        &format!("{solution}\n{}", "// padding\n".repeat(40_000)),
    );

    // Right answers written after sealing none (`cargo labs run --anyway`).
    let late = add("late");
    let late_text = {
        let right_text = predictions::render(lab, &lab.right_answers(), None);
        let seal = Seal::new(lab, &BTreeMap::new(), "2026-12-01T09:00:00Z");
        predictions::with_seal(&right_text, &seal)
    };
    put(&late, PREDICTIONS, &late_text);

    // A macro that writes a module read from the teacher's solution.
    let macro_path = add("macro-path");
    put(
        &macro_path,
        RELAY,
        &format!(
            "macro_rules! borrow {{\n    ($file:literal) => {{\n        #[cfg_attr(all(), path = $file)]\n        mod sol;\n    }};\n}}\n\
             borrow!({:?});\npub use sol::{{apply_effect, relay_outbox}};\n",
            teacher_solution.display().to_string()
        ),
    );

    // `include!` handed to a macro as a name to call.
    let macro_include = add("macro-include");
    put(
        &macro_include,
        RELAY,
        &format!(
            "macro_rules! take {{\n    ($how:ident, $file:literal) => {{\n        $how!($file);\n    }};\n}}\n\
             take!(include, {:?});\n",
            repo_solution.display().to_string()
        ),
    );

    // `include_str!` renamed, reading the machine's name and the teacher's lab.toml.
    let grab = add("grab");
    put(
        &grab,
        RELAY,
        &format!(
            "{starter}\nuse std::include_str as grab;\n\
             /// What the machine is called, and the teacher's lab: read when this file is compiled.\n\
             pub const HOST: &str = grab!(\"/etc/hostname\");\npub const LAB: &str = grab!({:?});\n",
            s.teacher
                .join("labs/01-outbox/lab.toml")
                .display()
                .to_string()
        ),
    );

    // The solution in the home folder of whoever grades, read at build time through
    // an attribute the scan only notes (the compiler embeds the file it names in the
    // binary), and at run time from a graded test.
    let home = PathBuf::from(std::env::var("HOME").unwrap());
    let secret_file = HomeFile(home.join(format!("boundary-solution-{}.rs", std::process::id())));
    let secret = format!(
        "// the answer, kept at home: {}\n{solution}",
        std::process::id()
    );
    std::fs::write(&secret_file.0, &secret).unwrap();
    let home_build = add("home-build");
    put(
        &home_build,
        RELAY,
        &format!(
            "#![debugger_visualizer(gdb_script_file = {:?})]\n{solution}",
            secret_file.0.display().to_string()
        ),
    );
    let home_run = add("home-run");
    let readable = [
        secret_file.0.clone(),
        teacher_solution.clone(),
        repo_solution.clone(),
    ]
    .map(|p| format!("{:?}", p.display().to_string()))
    .join(", ");
    // The solution, which it uses only when a file outside the tree can be read.
    let gated = |unlocked: &str| gated_relay(solution, starter, unlocked);
    put(
        &home_run,
        RELAY,
        &gated(&format!(
            "/// Whether the grader's machine shows one of these files.\n\
             fn unlocked() -> bool {{\n    [{readable}].iter().any(|p| std::fs::read_to_string(p).is_ok())\n}}\n"
        )),
    );
    put(&home_run, PREDICTIONS, &member_predictions(lab, 21));
    // The same gate on the grading's layout in plain text: `graded`'s build script writes
    // the salt and the masks into the build folder, next to the executables' copies.
    let salt_run = add("salt-run");
    put(
        &salt_run,
        RELAY,
        &gated(
            "/// Whether a test can read the grading's salt: `<work>/bin-N/EXE`, so the build\n\
             /// folder is `<work>/target`.\n\
             fn unlocked() -> bool {\n    \
             let exe = std::path::PathBuf::from(std::env::args().next().unwrap_or_default());\n    \
             let Some(work) = exe.parent().and_then(|bin| bin.parent()) else { return false };\n    \
             let Ok(built) = std::fs::read_dir(work.join(\"target/debug/build\")) else { return false };\n    \
             built.flatten().any(|d| std::fs::read_to_string(d.path().join(\"out/salt.rs\")).is_ok())\n}\n",
        ),
    );
    put(&salt_run, PREDICTIONS, &member_predictions(lab, 4));

    // Bombs, each in one test (or in the build) of an otherwise solved lab.
    let memory = add("memory");
    put(
        &memory,
        RELAY,
        &in_one_test(
            solution,
            "        let big = vec![1u8; 6_400_000_000];\n        assert_eq!(big[6_399_999_999], 1);",
        ),
    );
    put(&memory, PREDICTIONS, &member_predictions(lab, 22));
    let tmp_prefix = format!("boundary-fill-{}-", std::process::id());
    let tmp = add("tmp");
    put(
        &tmp,
        RELAY,
        &in_one_test(
            solution,
            &format!(
                "        let chunk = vec![7u8; 16 << 20];\n        let mut written = 0u64;\n        \
                 while written < 3 << 30 {{\n            let path = format!(\"/tmp/{tmp_prefix}{{written}}\");\n            \
                 if let Err(e) = std::fs::write(&path, &chunk) {{\n                \
                 panic!(\"/tmp took {{}} MiB, then: {{e}}\", written >> 20);\n            }}\n            \
                 written += chunk.len() as u64;\n        }}"
            ),
        ),
    );
    put(&tmp, PREDICTIONS, &member_predictions(lab, 23));
    let bomb = add("bomb");
    put(
        &bomb,
        RELAY,
        &format!(
            "{solution}\n/// A table of a hundred megabytes, written into the library.\n\
             pub static TABLE: [u8; 100 << 20] = [1; 100 << 20];\n"
        ),
    );
    put(&bomb, PREDICTIONS, &member_predictions(lab, 24));

    // The soundness hole, calibrated on a learner's own build: two gradings of it.
    for name in ["exploit-1", "exploit-2"] {
        let exploit = add(name);
        put(&exploit, RELAY, &attack("soundness_hole.rs", "steal"));
    }

    // A flood of processes: every call of the learner's code tries to start one. Not as
    // root, whom the cap does not bind: there every call would start one, thousands in an
    // exploration (its test is ignored there, with that reason).
    if !cfg!(as_root) {
        let flood = add("flood");
        put(&flood, RELAY, &attack("flood.rs", "flood"));
    }

    // Unit tests in a file of their own: a correct relay the grader cannot take.
    let mod_tests = add("mod-tests");
    put(
        &mod_tests,
        RELAY,
        &format!("{solution}\n#[cfg(test)]\nmod tests;\n"),
    );
    put(
        &mod_tests,
        "labs/01-outbox/src/relay/tests.rs",
        "#[test]\nfn t() {}\n",
    );

    // Predictions: two pairs of copies among classmates who share a misconception.
    let p_answers = answers_wrong_at(lab, &[&COMMON[..], &RARE_P[..]].concat());
    let q_answers = answers_wrong_at(lab, &[&COMMON[..], &RARE_Q[..]].concat());
    let p_source = add("p-source");
    put(
        &p_source,
        PREDICTIONS,
        &sealed(lab, &p_answers, "2026-12-01T09:00:00Z"),
    );
    // The same answers, resealed a second later: a seal line of its own.
    let p_resealed = add("p-resealed");
    put(
        &p_resealed,
        PREDICTIONS,
        &sealed(lab, &p_answers, "2026-12-01T09:00:01Z"),
    );
    let q_source = add("q-source");
    let q_text = sealed(lab, &q_answers, "2026-12-01T10:00:00Z");
    put(&q_source, PREDICTIONS, &q_text);
    // A classmate's file, copied whole.
    let copier = add("copier");
    put(&copier, PREDICTIONS, &q_text);
    for (i, name) in ["2025/alice", "2026/alice"].iter().enumerate() {
        let alice = add(name);
        put(&alice, PREDICTIONS, &member_predictions(lab, 23 + i));
    }

    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    dirs.borrow_mut().push(empty);
    let dirs = dirs.into_inner();

    let before: Vec<_> = dirs.iter().map(|d| snapshot(d)).collect();
    let csv = s.scratch.join("class.csv");
    let (out, json) = grade_class(
        &s.teacher,
        &dirs,
        &["--jobs", "2", "--csv", csv.to_str().unwrap()],
        &[("BOUNDARY_CLASS_SECRET", SECRET_TOKEN)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let after: Vec<_> = dirs.iter().map(|d| snapshot(d)).collect();
    let leftovers: Vec<String> = (std::fs::read_dir("/tmp").unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&tmp_prefix))
        .collect();
    assert!(
        leftovers.is_empty(),
        "the /tmp bomb wrote into the machine's /tmp: {leftovers:?}"
    );
    let json = json.expect("grade-class wrote its JSON");
    let names: Vec<String> = (json["learners"].as_array().unwrap().iter())
        .map(|g| g["learner"]["name"].as_str().unwrap().to_string())
        .collect();
    ClassRun {
        csv: std::fs::read_to_string(&csv).unwrap(),
        stdout: stdout(&out),
        stderr: stderr(&out),
        dirs: names.into_iter().zip(dirs).collect(),
        secret,
        hostname: std::fs::read_to_string("/etc/hostname")
            .unwrap_or_default()
            .trim()
            .to_string(),
        before,
        after,
        json,
    }
}

/// A learner's whole grade in the class run.
fn grade(learner: &str) -> &'static Value {
    (class().json["learners"].as_array().unwrap().iter())
        .find(|g| g["learner"]["name"] == learner)
        .unwrap_or_else(|| panic!("{learner} was graded: {}", class().stderr))
}

/// A learner's grade for lab 01.
fn lab01(learner: &str) -> &'static Value {
    &grade(learner)["labs"][0]
}

/// (graded points, prediction points).
fn points(learner: &str) -> (f64, f64) {
    let lab = lab01(learner);
    (
        lab["points"]["graded"].as_f64().unwrap(),
        lab["points"]["predictions"].as_f64().unwrap(),
    )
}

fn status(learner: &str) -> &'static str {
    lab01(learner)["status"].as_str().unwrap()
}

/// Each test's outcome, by name.
fn outcomes(learner: &str) -> BTreeMap<String, String> {
    (lab01(learner)["tests"]["results"]
        .as_array()
        .unwrap()
        .iter())
    .map(|t| {
        (
            t["name"].as_str().unwrap().to_string(),
            t["outcome"].as_str().unwrap().to_string(),
        )
    })
    .collect()
}

/// Every integrity note, as "severity: text".
/// Whether an integrity note is the copy check's (which depends on who else is in the
/// class, not on the learner's file alone).
fn is_copy_note(note: &Value) -> bool {
    note["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("shares "))
}

/// The copy check's notes on a learner's lab 01: whom its file looks copied from.
fn copy_notes(learner: &str) -> Vec<String> {
    (lab01(learner)["integrity"]["notes"]
        .as_array()
        .unwrap()
        .iter())
    .filter(|n| is_copy_note(n))
    .map(|n| n["text"].as_str().unwrap().to_string())
    .collect()
}

/// Every other integrity note on a learner's lab 01, with its severity.
fn notes(learner: &str) -> Vec<String> {
    (lab01(learner)["integrity"]["notes"]
        .as_array()
        .unwrap()
        .iter())
    .filter(|n| !is_copy_note(n))
    .map(|n| {
        format!(
            "{}: {}",
            n["severity"].as_str().unwrap(),
            n["text"].as_str().unwrap()
        )
    })
    .collect()
}

/// What the report says of a learner, for assertion messages.
fn report(learner: &str) -> String {
    serde_json::to_string_pretty(lab01(learner)).unwrap()
}

/// How many of lab 01's tests the starter passes (those that earn nothing).
fn starter_passes() -> usize {
    let s = setup();
    let suite = std::fs::read_to_string(s.teacher.join(SUITE)).unwrap();
    workbook::meta::graded_test_names(&suite).len() - s.lab.meta.starter_fails.len()
}

fn passed(learner: &str) -> usize {
    lab01(learner)["tests"]["passed"].as_u64().unwrap() as usize
}

/// The graded points a lab earns with every test passing but `TARGETED`.
fn all_but_one() -> f64 {
    let n = setup().lab.meta.starter_fails.len() as f64;
    ((20.0 * (n - 1.0) / n) * 100.0).round() / 100.0
}

#[test]
fn honest_work_is_graded_right_wherever_it_lies_and_however_it_is_written() {
    if !sandbox_works() {
        return;
    }
    let tests = outcomes("honest").len();
    for learner in ["honest", "nested", "odd"] {
        assert_eq!(
            points(learner),
            (20.0, 10.0),
            "{learner}: {}",
            report(learner)
        );
        assert_eq!(passed(learner), tests, "{learner}: {}", report(learner));
        assert_eq!(status(learner), "graded");
        // No note but the copy check's: nothing calls honest work an exploit, an
        // imitation or tampering. (These honest learners all hold the reference solution,
        // so the copy check names each of them against it: rightly.)
        assert_eq!(notes(learner), Vec::<String>::new(), "{learner}");
        let copies = copy_notes(learner);
        assert!(
            copies
                .iter()
                .any(|n| n.contains("with the reference solution")),
            "{learner}: {copies:?}"
        );
    }
    // A starter copies nothing: the starter's text is everyone's.
    assert_eq!(copy_notes("starter"), Vec::<String>::new());
    // The nested clone was found one folder down.
    let found = grade("nested")["found_in"].as_str().unwrap_or_default();
    assert!(found.ends_with("nested/boundary-labs"), "{found}");
    assert!(
        lab01("odd")["notes"].as_array().unwrap().is_empty(),
        "{}",
        report("odd")
    );
    assert!(class().json["sandboxed"].as_bool().unwrap());
    let csv = &class().csv;
    assert!(
        csv.starts_with("learner,submission,lab,status,graded_points,"),
        "{csv}"
    );
    assert!(
        csv.lines()
            .any(|l| l.starts_with("honest,") && l.contains(",01,graded,20,20,10,10,")),
        "{csv}"
    );
}

#[test]
fn grading_writes_nothing_into_a_submission() {
    if !sandbox_works() {
        return;
    }
    let class = class();
    assert_eq!(
        class.before, class.after,
        "grade-class wrote into a submission"
    );
    assert!(!class.dirs["honest"].join("owned.txt").exists());
}

#[test]
fn the_teachers_files_in_a_submission_are_never_used() {
    if !sandbox_works() {
        return;
    }
    assert_eq!(points("settings"), (0.0, 0.0), "{}", report("settings"));
    assert_eq!(
        lab01("settings")["points"]["max"],
        30.0,
        "the teacher's points"
    );
    assert_eq!(
        outcomes("settings").len(),
        outcomes("honest").len(),
        "the teacher's suite"
    );
    assert_eq!(passed("settings"), starter_passes(), "the starter's own");
    let tampered = notes("settings").join("\n");
    assert!(
        tampered.contains("review: the submission changed files the grader does not take")
            && tampered.contains(SUITE)
            && tampered.contains("labs/01-outbox/src/invariants.rs"),
        "{tampered}"
    );
    assert_eq!(points("starter"), (0.0, 0.0));
    assert_eq!(passed("starter"), starter_passes());
    assert!(notes("starter").is_empty(), "{:?}", notes("starter"));
}

#[test]
fn a_learner_file_that_is_a_link_or_too_large_is_not_taken() {
    if !sandbox_works() {
        return;
    }
    for (learner, why) in [("symlink", "symbolic link"), ("huge", "more than the")] {
        assert_eq!(points(learner), (0.0, 0.0), "{}", report(learner));
        assert_eq!(
            passed(learner),
            starter_passes(),
            "{learner}: the starter was graded"
        );
        let said = lab01(learner)["notes"].to_string();
        assert!(
            said.contains(why) && said.contains("the starter was graded"),
            "{said}"
        );
    }
}

#[test]
fn every_way_of_bringing_in_a_file_is_refused_and_the_starter_graded() {
    if !sandbox_works() {
        return;
    }
    for learner in [
        "include",
        "macro-path",
        "macro-include",
        "grab",
        "mod-tests",
    ] {
        let lab = lab01(learner);
        assert_eq!(status(learner), "refused", "{learner}: {}", report(learner));
        assert_eq!(lab["integrity"]["refused"], true, "{learner}");
        assert_eq!(points(learner).0, 0.0, "{learner}: {}", report(learner));
        assert_eq!(
            passed(learner),
            starter_passes(),
            "{learner}: the starter was graded"
        );
        let first = &lab["integrity"]["notes"][0];
        if learner == "mod-tests" {
            // Honest work, told plainly what to change.
            assert_eq!(first["severity"], "review", "{}", report(learner));
            assert!(
                first["text"]
                    .as_str()
                    .unwrap()
                    .contains("write the module inline instead"),
                "{first}"
            );
        } else {
            assert_eq!(
                first["severity"],
                "serious",
                "{learner}: {}",
                report(learner)
            );
            assert!(
                first["text"]
                    .as_str()
                    .unwrap()
                    .contains("brings in another file"),
                "{learner}: {first}"
            );
        }
    }
    // What the renamed `include_str!` named was never read: nothing of it in its grade.
    let grabbed = report("grab");
    let lab_toml =
        std::fs::read_to_string(setup().teacher.join("labs/01-outbox/lab.toml")).unwrap();
    let hint: String = setup().lab.key.hints[0].chars().take(60).collect();
    assert!(lab_toml.contains(&hint));
    assert!(
        !grabbed.contains(&hint),
        "the teacher's lab.toml reached the report"
    );
    let host = &class().hostname;
    assert!(
        host.is_empty() || !grabbed.contains(host.as_str()),
        "the machine's name {host} reached the report: {grabbed}"
    );
}

#[test]
fn forged_result_lines_and_forged_or_late_seals_earn_nothing() {
    if !sandbox_works() {
        return;
    }
    assert_eq!(points("forger"), (0.0, 0.0), "{}", report("forger"));
    let said = notes("forger").join("\n");
    // Each test printed two result lines; the first three tests are quoted, the rest
    // counted, and nothing else is buried under them.
    assert!(
        said.contains(
            "serious: `a_retried_identity_is_recognised` printed 2 result lines that were not its own proof, \
             the first a pass line without the grader's proof"
        ),
        "{said}"
    );
    assert!(
        said.contains("serious: 6 more tests printed result lines that were not their own proof"),
        "{said}"
    );
    assert!(
        said.contains("review: the seal line of predictions.txt was edited by hand"),
        "{said}"
    );
    assert!(said.contains("uses `std::process`"), "{said}");
    assert_eq!(
        points("late"),
        (0.0, 0.0),
        "answers given after the seal earn nothing"
    );
    let late = lab01("late")["notes"].to_string();
    assert!(
        late.contains("changed after the seal earn nothing"),
        "{late}"
    );
}

#[test]
fn files_outside_the_tree_cannot_be_read_at_build_or_at_run_time() {
    if !sandbox_works() {
        return;
    }
    // At build time: the compiler cannot read the file the attribute names.
    assert_eq!(
        status("home-build"),
        "did-not-compile",
        "{}",
        report("home-build")
    );
    assert_eq!(points("home-build").0, 0.0);
    let reason = lab01("home-build")["reason"].as_str().unwrap();
    assert!(reason.contains("boundary-solution-"), "{reason}");
    assert!(
        notes("home-build")
            .iter()
            .any(|n| n.starts_with("review: touches files or paths")),
        "{:?}",
        notes("home-build")
    );
    // At run time: no file outside the tree can be read, so the gated solution never runs;
    // nor can the build folder, where the grading's salt lies in plain text.
    for learner in ["home-run", "salt-run"] {
        assert_eq!(status(learner), "graded");
        assert_eq!(points(learner).0, 0.0, "{}", report(learner));
        assert_eq!(passed(learner), starter_passes(), "{}", report(learner));
    }
    assert_eq!(status("home-run"), "graded");
    assert_eq!(points("home-run").0, 0.0, "{}", report("home-run"));
    assert_eq!(
        passed("home-run"),
        starter_passes(),
        "{}",
        report("home-run")
    );
    let marker = class().secret.lines().next().unwrap();
    for learner in ["home-build", "home-run"] {
        assert!(
            !report(learner).contains(marker),
            "{learner}: the home folder's file reached the report"
        );
    }
}

#[test]
fn graded_tests_see_none_of_the_graders_environment() {
    if !sandbox_works() {
        return;
    }
    // The line it printed is quoted in the report; the variable was not there to print.
    let said = notes("env-leak").join("\n");
    assert!(said.contains("<labkit-graded-result> unset"), "{said}");
    assert!(
        !class().json.to_string().contains(SECRET_TOKEN),
        "the token reached the JSON"
    );
    assert!(
        !class().csv.contains(SECRET_TOKEN),
        "the token reached the CSV"
    );
    assert_eq!(points("env-leak"), (0.0, 0.0));
}

#[test]
fn memory_tmp_and_compile_bombs_are_stopped_by_a_named_cap_and_cost_only_themselves() {
    if !sandbox_works() {
        return;
    }
    let others_pass = |learner: &str| {
        for (test, outcome) in outcomes(learner) {
            if test != TARGETED {
                assert_eq!(outcome, "passed", "{learner}: {test}: {}", report(learner));
            }
        }
        assert_eq!(
            points(learner).0,
            all_but_one(),
            "{learner}: {}",
            report(learner)
        );
    };
    assert_eq!(
        outcomes("memory")[TARGETED],
        "over-memory",
        "{}",
        report("memory")
    );
    others_pass("memory");
    let memory = lab01("memory")["notes"].to_string();
    assert!(
        memory.contains("more memory than the grader's cap of 512 MiB"),
        "{memory}"
    );
    // /tmp is the sandbox's own, capped: the writes fail, the test fails, the machine's
    // /tmp holds none of it (the class run checks).
    assert_eq!(outcomes("tmp")[TARGETED], "failed", "{}", report("tmp"));
    others_pass("tmp");
    assert_eq!(status("bomb"), "build-capped", "{}", report("bomb"));
    assert_eq!(lab01("bomb")["cap"], "disk", "{}", report("bomb"));
    assert_eq!(points("bomb").0, 0.0);
    let reason = lab01("bomb")["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("lab 01's build was stopped by the grader's cap on the disk"),
        "{reason}"
    );
    assert!(
        outcomes("bomb").values().all(|o| o == "not-run"),
        "{}",
        report("bomb")
    );
    // Its prediction points are its own: only the build paid.
    assert!(points("bomb").1 > 0.0);
}

#[test]
fn a_hanging_test_costs_only_itself() {
    if !sandbox_works() {
        return;
    }
    let lab = lab01("hang");
    assert_eq!(
        outcomes("hang")[TARGETED],
        "timed-out",
        "{}",
        report("hang")
    );
    for (test, outcome) in outcomes("hang") {
        if test != TARGETED {
            assert_eq!(outcome, "passed", "{test}: {}", report("hang"));
        }
    }
    assert_eq!(points("hang").0, all_but_one());
    let said = lab["notes"].to_string();
    assert!(
        said.contains("did not finish within its time limit of 20 s"),
        "{said}"
    );
}

#[test]
fn the_soundness_hole_exploit_calibrated_at_home_passes_no_test_of_a_grading() {
    if !sandbox_works() {
        return;
    }
    let earning = &setup().lab.meta.starter_fails;
    for learner in ["exploit-1", "exploit-2"] {
        assert_eq!(
            points(learner),
            (0.0, 0.0),
            "{learner}: {}",
            report(learner)
        );
        // At home it passes every test; here, none that the starter does not pass alone.
        assert!(
            passed(learner) <= starter_passes(),
            "{learner}: {}",
            report(learner)
        );
        let said = notes(learner);
        assert!(
            said[0].starts_with(
                "serious: combines the ingredients of a known compiler soundness hole"
            ) && said[0].contains("rust-lang/rust#57893"),
            "{learner}: {said:?}"
        );
        // Each test that earns points ended without its proof: a wrong pass line, or a
        // crash.
        // (Which of the two depends on where the grading's salt put the key.)
        for (test, outcome) in outcomes(learner) {
            if earning.contains(&test) {
                assert!(
                    outcome == "crashed" || outcome == "failed",
                    "{learner}: {test}: {outcome}: {}",
                    report(learner)
                );
            }
        }
    }
}

#[test]
#[cfg_attr(
    as_root,
    ignore = "running as root, whom the cap on a test's processes (RLIMIT_NPROC) does not bind: run the class gate as a normal user to prove it"
)]
fn a_graded_test_can_start_no_process() {
    if !sandbox_works() {
        return;
    }
    // Refused, the starts leave the starter as it was: the same tests pass.
    assert_eq!(
        outcomes("flood"),
        outcomes("starter"),
        "{}",
        report("flood")
    );
}

#[test]
fn copied_predictions_are_named_and_perfect_ones_never() {
    if !sandbox_works() {
        return;
    }
    let pairs: Vec<(String, String, usize)> = (class().json["copied_predictions"]
        .as_array()
        .unwrap()
        .iter())
    .map(|p| {
        (
            p["learners"][0].as_str().unwrap().to_string(),
            p["learners"][1].as_str().unwrap().to_string(),
            p["shared_wrong"].as_array().unwrap().len(),
        )
    })
    .collect();
    let named = |a: &str, b: &str| {
        pairs
            .iter()
            .any(|(x, y, _)| (x == a && y == b) || (x == b && y == a))
    };
    assert!(
        named("p-source", "p-resealed"),
        "the resealed copy: {pairs:?}"
    );
    assert!(named("q-source", "copier"), "the copied file: {pairs:?}");
    assert_eq!(pairs.len(), 2, "no one else: {pairs:?}");
    for (_, _, shared) in &pairs {
        assert_eq!(*shared, COMMON.len() + RARE_P.len());
    }
    // Seals are on the honour system: a copy earns what its answers earn, and is named.
    let items = setup().lab.prediction_count();
    let right = items - COMMON.len() - RARE_P.len();
    let expected = ((10.0 * right as f64 / items as f64) * 100.0).round() / 100.0;
    assert_eq!(points("p-resealed").1, expected);
    for perfect in ["honest", "nested", "odd"] {
        assert!(pairs.iter().all(|(a, b, _)| a != perfect && b != perfect));
    }
    let summary = &class().stdout;
    assert!(
        summary.contains("lab 01: p-source and p-resealed sealed the same 16 rare wrong answers"),
        "{summary}"
    );
}

#[test]
fn submissions_that_are_not_workbooks_or_share_a_name_are_told_apart() {
    if !sandbox_works() {
        return;
    }
    assert_eq!(status("empty"), "not-a-workbook", "{}", report("empty"));
    let reason = lab01("empty")["reason"].as_str().unwrap();
    assert!(reason.contains("is not a copy of the workbook"), "{reason}");
    assert_eq!(grade("empty")["points"], 0.0);
    // Two folders called alice: each named by its path.
    for alice in ["2025/alice", "2026/alice"] {
        assert!(
            grade(alice)["learner"]["submission"]
                .as_str()
                .unwrap()
                .ends_with(alice)
        );
        assert_eq!(status(alice), "graded");
    }
    // A file is not a submission: an input error before anything is graded.
    let s = setup();
    let file = s.scratch.join("not-a-folder.txt");
    std::fs::write(&file, "hello").unwrap();
    let (out, json) = grade_class(&s.teacher, &[file], &[], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not-a-folder.txt is not a folder"),
        "{}",
        stderr(&out)
    );
    assert!(json.is_none());
}

/// What a learner's grade says: for comparing two gradings.
fn essentials(grade: &Value) -> Value {
    let lab = &grade["labs"][0];
    serde_json::json!({
        "status": lab["status"],
        "points": lab["points"],
        "tests": lab["tests"]["results"].as_array().unwrap().iter()
            .map(|t| serde_json::json!([t["name"], t["outcome"]])).collect::<Vec<_>>(),
        // The copy check's notes depend on who else is in the class: left out.
        "notes": lab["integrity"]["notes"].as_array().unwrap().iter()
            .filter(|n| !is_copy_note(n))
            .map(|n| n["text"].clone()).collect::<Vec<_>>(),
    })
}

#[test]
fn a_serial_grading_gives_the_parallel_one_results() {
    if !sandbox_works() {
        return;
    }
    let class = class();
    // (Not the exploit: what it prints depends on the grading's salt, by design.)
    let chosen = [
        "honest",
        "starter",
        "forger",
        "memory",
        "tmp",
        "macro-path",
        "odd",
        "bomb",
    ];
    let dirs: Vec<PathBuf> = chosen.iter().map(|l| class.dirs[*l].clone()).collect();
    let (out, json) = {
        let _turn = work_turn();
        grade_class(&setup().teacher, &dirs, &["--jobs", "1"], &[])
    };
    assert!(out.status.success(), "{}", stderr(&out));
    let json = json.unwrap();
    for (learner, serial) in chosen.iter().zip(json["learners"].as_array().unwrap()) {
        assert_eq!(essentials(serial), essentials(grade(learner)), "{learner}");
    }
}

#[test]
fn without_the_sandbox_no_learner_changes_another_learners_grade() {
    let s = setup();
    // A teacher's copy of its own: the attack rewrites the teacher's files.
    let teacher = teacher_copy(&s.scratch.join("teacher-unsandboxed"));
    let root = s.scratch.join("unsandboxed");
    let attacker = clone_of(&s.edition, &root.join("a-attacker"));
    put(&attacker, RELAY, &attack("unsandboxed.rs", "tamper"));
    // Graded after it: one whose learner file is missing (nothing of its own to
    // rebuild), an honest one and an untouched one.
    let missing = clone_of(&s.edition, &root.join("b-missing"));
    std::fs::remove_file(missing.join(RELAY)).unwrap();
    let honest = clone_of(&s.edition, &root.join("c-honest"));
    put(&honest, RELAY, &s.solution);
    let starter = clone_of(&s.edition, &root.join("d-starter"));
    // The starter exporting macros named as the suite's: the learner's file is a module
    // of the suite's crate, and an exported macro lands at the crate's root. The suite is
    // a module beside it, so its `panic!`, `assert!` and `stringify!` stay std's.
    let macros = clone_of(&s.edition, &root.join("e-macros"));
    let shadows = [
        "panic",
        "assert",
        "assert_eq",
        "assert_ne",
        "stringify",
        "format",
    ]
    .map(|name| format!("#[macro_export]\nmacro_rules! {name} {{ ($($t:tt)*) => {{ () }}; }}\n"))
    .concat();
    put(&macros, RELAY, &format!("{}\n{shadows}", s.starter));
    let genuine = std::fs::read_to_string(teacher.join(SUITE)).unwrap();
    let (out, json) = {
        let _turn = work_turn();
        grade_class(
            &teacher,
            &[attacker, missing, honest, starter, macros],
            &["--no-sandbox", "--jobs", "2"],
            &[],
        )
    };
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--no-sandbox: grading one submission at a time"),
        "{}",
        stderr(&out)
    );
    let json = json.unwrap();
    assert_eq!(json["sandboxed"], false);
    // The attack ran: it rewrote the teacher's graded suite on disk.
    let now = std::fs::read_to_string(teacher.join(SUITE)).unwrap();
    assert_ne!(now, genuine, "the attack did not reach the teacher's files");
    let by_name = |name: &str| -> &Value {
        (json["learners"].as_array().unwrap().iter())
            .find(|g| g["learner"]["name"] == name)
            .unwrap()
    };
    let lab = |name: &str| -> &Value { &by_name(name)["labs"][0] };
    let attacked = lab("a-attacker");
    let said: Vec<&str> = (attacked["integrity"]["notes"].as_array().unwrap().iter())
        .map(|n| n["text"].as_str().unwrap())
        .collect();
    assert!(
        said.iter()
            .any(|n| n.starts_with("the suite's executable changed on disk before")),
        "the rewritten executable was caught before the next test: {said:?}"
    );
    assert!(
        said.iter()
            .any(|n| n
                .starts_with("the tests of this submission wrote into the grader's build folder")),
        "{said:?}"
    );
    assert_eq!(attacked["points"]["graded"], 0.0);
    let results = attacked["tests"]["results"].as_array().unwrap();
    assert!(
        results[1..].iter().all(|t| t["outcome"] == "not-run"),
        "{attacked}"
    );
    for (name, graded, passes) in [
        ("b-missing", 0.0, starter_passes()),
        ("c-honest", 20.0, results.len()),
        ("d-starter", 0.0, starter_passes()),
        ("e-macros", 0.0, starter_passes()),
    ] {
        let lab = lab(name);
        assert_eq!(lab["points"]["graded"], graded, "{name}: {lab}");
        assert_eq!(lab["tests"]["passed"], passes, "{name}: {lab}");
        assert_eq!(
            lab["integrity"]["notes"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|n| n["severity"] == "serious" && !is_copy_note(n))
                .count(),
            0,
            "{name}: {lab}"
        );
    }
    // The same grades as the sandboxed run gave its honest clone and its starter.
    assert_eq!(
        lab("c-honest")["points"]["graded"],
        lab01("honest")["points"]["graded"]
    );
    assert_eq!(
        outcomes("starter")
            .values()
            .filter(|o| *o == "passed")
            .count(),
        starter_passes()
    );
}

#[test]
fn grade_class_refuses_to_start_where_bubblewrap_does_not_work() {
    let s = setup();
    let fake = s.scratch.join("fake-bwrap");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let submission = s.edition.clone();
    for (bwrap, said) in [
        (
            "false",
            "bubblewrap cannot start a sandbox here (exit status: 1)",
        ),
        (
            fake.to_str().unwrap(),
            "bwrap: setting up uid map: Permission denied",
        ),
    ] {
        let (out, json) = grade_class(
            &s.teacher,
            std::slice::from_ref(&submission),
            &[],
            &[("BOUNDARY_BWRAP", bwrap)],
        );
        assert_eq!(out.status.code(), Some(4), "{bwrap}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(said) && err.contains("--no-sandbox"),
            "{bwrap}: {err}"
        );
        assert!(
            json.is_none() && stdout(&out).is_empty(),
            "{bwrap}: nothing graded"
        );
    }
}

#[test]
fn a_fresh_machine_without_the_dependencies_stops_with_the_fix_not_a_zero() {
    if !sandbox_works() {
        return;
    }
    let s = setup();
    let cargo_home = s.scratch.join("empty-cargo-home");
    std::fs::create_dir_all(&cargo_home).unwrap();
    let mut env: Vec<(&str, String)> = vec![
        ("CARGO_HOME", cargo_home.display().to_string()),
        ("CARGO_HTTP_PROXY", "http://127.0.0.1:9".into()),
        ("CARGO_NET_RETRY", "0".into()),
    ];
    // The toolchain stays where rustup keeps it; only cargo's cache is empty. Its
    // programs are named by path, since the empty cargo home has no `bin`.
    if let Ok(cargo) = std::env::var("CARGO") {
        env.push(("CARGO", cargo.clone()));
        let rustc = Path::new(&cargo).with_file_name("rustc");
        if rustc.exists() {
            env.push(("RUSTC", rustc.display().to_string()));
        }
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let csv = s.scratch.join("fresh.csv");
    let submission = clone_of(&s.edition, &s.scratch.join("fresh/solved"));
    put(&submission, RELAY, &s.solution);
    let (out, json) = {
        let _turn = work_turn();
        grade_class(
            &s.teacher,
            &[submission],
            &["--csv", csv.to_str().unwrap()],
            &env,
        )
    };
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(4),
        "the environment's exit code: {err}"
    );
    assert!(
        err.contains("the starters do not build here, so no submission could be graded"),
        "{err}"
    );
    assert!(err.contains("no matching package"), "the cause: {err}");
    assert!(
        err.contains("run `cargo fetch` there once with the network"),
        "the fix: {err}"
    );
    assert!(json.is_none() && !csv.exists(), "nothing written");
    assert!(
        !stdout(&out).contains(" / 30"),
        "no grade printed: {}",
        stdout(&out)
    );
}

#[test]
fn check_says_at_once_that_a_test_module_in_a_file_of_its_own_cannot_be_graded() {
    let s = setup();
    let copy = clone_of(&s.edition, &s.scratch.join("learner-with-mod-tests"));
    put(
        &copy,
        RELAY,
        &format!("{}\n#[cfg(test)]\nmod tests;\n", s.solution),
    );
    put(
        &copy,
        "labs/01-outbox/src/relay/tests.rs",
        "#[test]\nfn t() {}\n",
    );
    let out = common::run_cli(&copy, &["check", "01"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("a grader takes only your learner files")
            && err.contains("write the module inline instead, `mod name { … }`"),
        "{err}"
    );
    // At once: nothing was built.
    assert!(!copy.join("target").exists());
}
