//! Lab metadata: `labs/*/lab.toml`, defined once per lab and read by the CLI and the
//! consistency gate. The CLI never links lab code; everything it knows about a lab before
//! running it comes from here.
//!
//! In the teacher's edition a `lab.toml` holds everything, answer keys and hints
//! included. The student edition's `lab.toml` is written by `cargo labs export` without
//! them; its keys sit beside it in `key.txt`, scrambled (see [`crate::keys`]), so a learner
//! who opens every file finds no answer without deliberately decoding it.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One yes/no question about the run of the observe phase.
///
/// A learner reads only `ask`. The rest is the teacher's: `claim` names what the check
/// shows, `yes_if` says how a `yes` relates to it, and `holds`/`explain` are its key. The
/// student edition's `lab.toml` carries none of them; they travel, scrambled, in
/// `key.txt`, and are put back here when the lab loads, so the run can name the claim
/// after the seal.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The question the learner answers yes or no, worded so it favours neither answer.
    /// The observe code records its answer under this text, word for word
    /// (`obs.ask("…", yes)`).
    pub ask: String,
    /// The check's name for the teacher: what the run shows, as a statement. Shown to a
    /// learner only after the seal, as the title of the explanation.
    #[serde(default, skip_serializing)]
    pub claim: String,
    /// Whether `yes` to `ask` means the claim holds (the default) or fails.
    #[serde(default, skip_serializing)]
    pub yes_if: YesIf,
    /// The answer key (teacher's edition only): does the claim hold when the lab runs?
    #[serde(default, skip_serializing)]
    pub holds: Option<bool>,
    /// Why, shown after the run (teacher's edition only).
    #[serde(default, skip_serializing)]
    pub explain: Option<String>,
    /// The sentences of the chapter before Predict (or lines of its listings) that the
    /// answer follows from, quoted (teacher's edition only): the gate finds each in the
    /// text a learner reads before Predict.
    #[serde(default, skip_serializing)]
    pub basis: Vec<String>,
    /// The facts the answer reveals (teacher's edition only): no other item of the lab
    /// may state one, since a learner reads all of a lab's items at once.
    #[serde(default, skip_serializing)]
    pub reveals: Vec<String>,
}

/// What a `yes` answers about a claim.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum YesIf {
    #[default]
    Holds,
    Fails,
}

impl YesIf {
    fn is_holds(&self) -> bool {
        *self == YesIf::Holds
    }
}

/// A claim's old id, the one predictions files used before the neutral `qNN`: its
/// words in lower case, joined by `-`.
pub fn claim_slug(claim: &str) -> String {
    let mut out = String::new();
    for word in claim
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out
}

/// The id a learner sees for the item at `index` (checks first, then the
/// multiple-choice questions, in the lab's order): `q01`, `q02`, … It says where the
/// item is, never what it is about.
pub fn item_id(index: usize) -> String {
    format!("q{:02}", index + 1)
}

impl Check {
    /// The old id of this check in predictions files: its claim's slug.
    pub fn slug(&self) -> String {
        claim_slug(&self.claim)
    }

    /// The right yes/no answer to this check's question when the claim `holds` or not.
    pub fn answer_for(&self, holds: bool) -> bool {
        match self.yes_if {
            YesIf::Holds => holds,
            YesIf::Fails => !holds,
        }
    }

    /// Whether the claim holds, given the answer `yes` observed to `ask`: the inverse of
    /// [`Check::answer_for`].
    pub fn holds_for(&self, yes: bool) -> bool {
        match self.yes_if {
            YesIf::Holds => yes,
            YesIf::Fails => !yes,
        }
    }
}

/// One multiple-choice question of the observe phase.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The question's name for the teacher (and its id in predictions files before the
    /// neutral `qNN`). Not in the student edition's `lab.toml`: it is put back from the
    /// key when the lab loads.
    #[serde(default, skip_serializing)]
    pub id: String,
    /// What the learner reads; the observe code records its answer under this text,
    /// word for word (`obs.choose("…", letter, evidence)`).
    pub prompt: String,
    /// The key (teacher's edition only).
    #[serde(default, skip_serializing)]
    pub answer: Option<String>,
    #[serde(default, skip_serializing)]
    pub explain: Option<String>,
    pub options: BTreeMap<String, String>,
    /// The sentences of the chapter before Predict (or lines of its listings) that the
    /// answer follows from, quoted (teacher's edition only): the gate finds each in the
    /// text a learner reads before Predict.
    #[serde(default, skip_serializing)]
    pub basis: Vec<String>,
    /// The facts the answer reveals (teacher's edition only): no other item of the lab
    /// may state one, since a learner reads all of a lab's items at once.
    #[serde(default, skip_serializing)]
    pub reveals: Vec<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Points {
    pub predictions: u32,
    pub graded: u32,
}

/// A lab's `lab.toml`, as either edition has it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LabMeta {
    pub id: String,
    pub number: String,
    pub title: String,
    pub package: String,
    /// The reference solution's package (teacher's edition only: the student edition has
    /// no solutions, and its lab.toml does not name them).
    #[serde(default, skip_serializing)]
    pub solution_package: String,
    pub chapter: String,
    pub graded_suite: String,
    pub learner_files: Vec<String>,
    pub time_limit_secs: u64,
    pub starter_fails: Vec<String>,
    /// Hints, one at a time (teacher's edition only; the student edition scrambles them).
    #[serde(default, skip_serializing)]
    pub hints: Vec<String>,
    pub points: Points,
    /// Repository-relative path → git blob id of the published version.
    pub published: BTreeMap<String, String>,
    #[serde(rename = "check")]
    pub checks: Vec<Check>,
    #[serde(rename = "question", default)]
    pub questions: Vec<Question>,
    /// The build phase in steps, each a sitting's work with graded tests of its own that
    /// go green in turn (`cargo labs check` names the current one). None: one step.
    #[serde(rename = "step", default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
}

/// One step of a build phase.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// What the step builds, in a few words ("Fence a stale writer").
    pub name: String,
    /// Its graded tests, each of them in `starter_fails`.
    pub tests: Vec<String>,
}

impl LabMeta {
    /// The step `test` belongs to, by its place (0-based).
    pub fn step_of(&self, test: &str) -> Option<usize> {
        self.steps
            .iter()
            .position(|s| s.tests.iter().any(|t| t == test))
    }
}

/// The grounds of one item: what it rests on and what it reveals.
pub struct Grounds<'a> {
    /// `q01`, …
    pub id: String,
    /// What a learner reads of it: the question and, for a multiple-choice one, its
    /// options.
    pub text: String,
    pub basis: &'a [String],
    pub reveals: &'a [String],
}

impl Lab {
    /// Every item's grounds, in the lab's order.
    pub fn grounds(&self) -> Vec<Grounds<'_>> {
        let ids = self.item_ids();
        let checks = self
            .meta
            .checks
            .iter()
            .map(|c| (c.ask.clone(), &c.basis, &c.reveals));
        let questions = self.meta.questions.iter().map(|q| {
            let options: Vec<&str> = q.options.values().map(String::as_str).collect();
            (
                format!("{} {}", q.prompt, options.join(" ")),
                &q.basis,
                &q.reveals,
            )
        });
        ids.into_iter()
            .zip(checks.chain(questions))
            .map(|(id, (text, basis, reveals))| Grounds {
                id,
                text,
                basis,
                reveals,
            })
            .collect()
    }
}

/// What the run explains and the grade scores predictions against: one entry per item,
/// in the lab's order; the hints; and the diagnoses `check` may name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LabKey {
    #[serde(rename = "check", default)]
    pub checks: Vec<CheckKey>,
    #[serde(rename = "question", default)]
    pub questions: Vec<QuestionKey>,
    #[serde(default)]
    pub hints: Vec<String>,
    #[serde(rename = "diagnosis", default)]
    pub diagnoses: Vec<Diagnosis>,
}

/// A misconception the chapter names, and the failure that reveals it: which graded tests
/// fail, and which invariant the first failing test reports. Each diagnosis comes from a
/// wrong solution in the teacher's catalogue (`solutions/NN-*/mutants/`), and the gate
/// proves that wrong solution fails exactly so.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Diagnosis {
    /// The misconception, in the chapter's words.
    pub misconception: String,
    /// Where the chapter teaches it: `01-outbox.md#heading-anchor`.
    pub section: String,
    pub signature: Signature,
}

/// How a graded run failed: the failing tests (in the suite's order) and the invariant
/// the first of them reports (`None` when it failed on a plain assertion).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    pub fails: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invariant: Option<String>,
}

/// The key of one check: everything about it but its question, which it repeats so that
/// a key can be matched to its `lab.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CheckKey {
    pub ask: String,
    pub claim: String,
    #[serde(default, skip_serializing_if = "YesIf::is_holds")]
    pub yes_if: YesIf,
    pub holds: bool,
    pub explain: String,
}

/// The key of one multiple-choice question, with its prompt to match it to `lab.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionKey {
    pub id: String,
    pub prompt: String,
    pub answer: String,
    pub explain: String,
}

impl Lab {
    /// The right answer to each item, by its id (`q01`, …): `yes`/`no` for the questions
    /// about the run, a letter for the multiple-choice ones.
    pub fn right_answers(&self) -> BTreeMap<String, crate::predictions::Answer> {
        use crate::predictions::Answer;
        let checks = self
            .meta
            .checks
            .iter()
            .zip(&self.key.checks)
            .map(|(check, key)| Answer::Claim(check.answer_for(key.holds)));
        let questions = self
            .key
            .questions
            .iter()
            .map(|key| Answer::Option(key.answer.clone()));
        self.item_ids()
            .into_iter()
            .zip(checks.chain(questions))
            .collect()
    }
}

/// The manifests a lab publishes, relative to its folder: the learner's crate's and the
/// harness's (the rest of the lab, which the learner's crate depends on).
pub const PUBLISHED_MANIFESTS: [&str; 2] = ["Cargo.toml", "harness/Cargo.toml"];

impl Lab {
    /// Every file the learner's crate and the lab's harness are built from, as
    /// repository-relative paths: their manifests, every source file (the learner's own
    /// included, for `reset`), and the graded suite. Each must have its published hash in
    /// `[published]`.
    pub fn publishable(&self, root: &Path) -> Vec<String> {
        fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for path in entries.flatten().map(|e| e.path()) {
                if path.is_dir() {
                    sources(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut found = Vec::new();
        sources(&self.dir.join("src"), &mut found);
        let mut paths: Vec<String> = vec![self.meta.graded_suite.clone()];
        paths.extend(
            (PUBLISHED_MANIFESTS.iter())
                .filter(|m| self.dir.join(m).is_file())
                .map(|m| format!("labs/{}/{m}", self.slug())),
        );
        paths.extend(found.iter().map(|p| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .replace('\\', "/")
        }));
        paths.sort();
        paths
    }
}

/// A lab found on disk: its folder, its metadata and its key.
#[derive(Clone, Debug)]
pub struct Lab {
    pub dir: PathBuf,
    pub meta: LabMeta,
    pub key: LabKey,
}

/// The name of the scrambled key file beside a student edition's `lab.toml`.
pub const KEY_FILE: &str = "key.txt";
/// The student edition's scrambled copy of a lab's chapter page after the run.
pub const PAGE_FILE: &str = "after-the-run.txt";

impl Lab {
    /// `01-outbox`: the folder name, used for the book and the predictions header.
    pub fn slug(&self) -> String {
        folder_name(&self.dir)
    }

    pub fn predictions_path(&self) -> PathBuf {
        self.dir.join("predictions.txt")
    }

    pub fn label(&self) -> String {
        format!("{} · {}", self.meta.number, self.meta.title)
    }

    /// Number of predictions: one per check and one per question.
    pub fn prediction_count(&self) -> usize {
        self.meta.checks.len() + self.meta.questions.len()
    }

    /// The ids of every item the learner predicts, checks first, in the lab's order:
    /// `q01`, `q02`, …
    pub fn item_ids(&self) -> Vec<String> {
        (0..self.prediction_count()).map(item_id).collect()
    }

    /// The position of the item a predictions file names `id`: its neutral id (`q04`, or
    /// `q4`), or the id files used before (a claim's slug, a question's id), so that a
    /// learner's existing predictions keep their answers.
    pub fn item_index(&self, id: &str) -> Option<usize> {
        let neutral = id
            .strip_prefix(['q', 'Q'])
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| (1..=self.prediction_count()).contains(n))
            .map(|n| n - 1);
        neutral.or_else(|| {
            let n_checks = self.meta.checks.len();
            (self.meta.checks.iter())
                .position(|c| !c.claim.is_empty() && c.slug() == id)
                .or_else(|| {
                    (self.meta.questions.iter())
                        .position(|q| !q.id.is_empty() && q.id == id)
                        .map(|i| n_checks + i)
                })
        })
    }

    /// The repository-relative path of a learner file (`labs/01-outbox/src/relay.rs`).
    pub fn learner_path(&self, file: &str) -> String {
        format!("labs/{}/{file}", self.slug())
    }

    /// Splits a teacher's lab.toml into what a learner may read and the key (or reads the
    /// key from `key.txt` beside it, in the student edition).
    pub fn new(dir: PathBuf, meta: LabMeta) -> std::result::Result<Lab, String> {
        Lab::from_meta(dir, meta)
    }

    fn from_meta(dir: PathBuf, mut meta: LabMeta) -> std::result::Result<Lab, String> {
        let has_key = meta.checks.iter().any(|c| {
            !c.claim.is_empty()
                || c.yes_if != YesIf::Holds
                || c.holds.is_some()
                || c.explain.is_some()
        }) || meta
            .questions
            .iter()
            .any(|q| !q.id.is_empty() || q.answer.is_some() || q.explain.is_some())
            || !meta.hints.is_empty();
        let key = if has_key {
            let mut key = LabKey {
                hints: std::mem::take(&mut meta.hints),
                ..LabKey::default()
            };
            for check in &mut meta.checks {
                let (Some(holds), Some(explain)) = (check.holds.take(), check.explain.take())
                else {
                    return Err(format!(
                        "check `{}` needs `claim`, `holds` and `explain`",
                        check.ask
                    ));
                };
                if check.claim.trim().is_empty() {
                    return Err(format!("check `{}` needs a `claim`", check.ask));
                }
                key.checks.push(CheckKey {
                    ask: check.ask.clone(),
                    claim: check.claim.clone(),
                    yes_if: check.yes_if,
                    holds,
                    explain,
                });
            }
            for q in &mut meta.questions {
                let (Some(answer), Some(explain)) = (q.answer.take(), q.explain.take()) else {
                    return Err(format!(
                        "question `{}` needs `id`, `answer` and `explain`",
                        q.prompt
                    ));
                };
                if q.id.trim().is_empty() {
                    return Err(format!("question `{}` needs an `id`", q.prompt));
                }
                key.questions.push(QuestionKey {
                    id: q.id.clone(),
                    prompt: q.prompt.clone(),
                    answer,
                    explain,
                });
            }
            key
        } else {
            let path = dir.join(KEY_FILE);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "lab.toml has no answer keys, and {} cannot be read ({e})",
                    path.display()
                )
            })?;
            let key = crate::keys::decode(&meta.id, &text)?;
            // The teacher's names of the items come back from the key.
            for (check, keyed) in meta.checks.iter_mut().zip(&key.checks) {
                check.claim = keyed.claim.clone();
                check.yes_if = keyed.yes_if;
            }
            for (q, keyed) in meta.questions.iter_mut().zip(&key.questions) {
                q.id = keyed.id.clone();
            }
            key
        };
        let mut lab = Lab { dir, meta, key };
        if lab.key.diagnoses.is_empty() {
            lab.key.diagnoses = crate::mutants::diagnoses(&lab)?;
        }
        lab.key_matches_items()?;
        Ok(lab)
    }

    /// Every item has exactly one key entry, in the same order, and no two items share a
    /// question (a run's answers are matched to the items by their text) or a name.
    fn key_matches_items(&self) -> std::result::Result<(), String> {
        let asks: Vec<&str> = self.meta.checks.iter().map(|c| c.ask.as_str()).collect();
        let keyed: Vec<&str> = self.key.checks.iter().map(|c| c.ask.as_str()).collect();
        if asks != keyed {
            return Err(format!(
                "the key's checks {keyed:?} differ from lab.toml's {asks:?}"
            ));
        }
        let prompts: Vec<&str> = (self.meta.questions.iter())
            .map(|q| q.prompt.as_str())
            .collect();
        let keyed: Vec<&str> = self
            .key
            .questions
            .iter()
            .map(|q| q.prompt.as_str())
            .collect();
        if prompts != keyed {
            return Err(format!(
                "the key's questions {keyed:?} differ from lab.toml's {prompts:?}"
            ));
        }
        for (q, key) in self.meta.questions.iter().zip(&self.key.questions) {
            if !q.options.contains_key(&key.answer) {
                return Err(format!(
                    "question `{}` has answer `{}`, not one of its options",
                    q.id, key.answer
                ));
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for text in asks.iter().chain(&prompts) {
            if !seen.insert(*text) {
                return Err(format!("two items ask the same question: `{text}`"));
            }
        }
        let mut names = std::collections::BTreeSet::new();
        let checks = self.meta.checks.iter().map(Check::slug);
        for name in checks.chain(self.meta.questions.iter().map(|q| q.id.clone())) {
            if !names.insert(name.clone()) {
                return Err(format!("two items share the name `{name}`"));
            }
        }
        Ok(())
    }

    /// The student edition's `lab.toml`: the questions as a learner reads them, without
    /// the keys, the hints or the teacher's names of the items.
    pub fn student_toml(&self) -> String {
        let header = format!(
            "# Lab {} — the student edition's metadata. The answer keys, their explanations\n\
             # and the hints are in key.txt, scrambled so that opening it spoils nothing.\n\n",
            self.meta.number
        );
        header + &toml::to_string(&self.meta).unwrap_or_default()
    }
}

fn folder_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A lab whose `lab.toml` could not be read: it costs only itself.
#[derive(Clone, Debug)]
pub struct BrokenLab {
    pub dir: PathBuf,
    pub problem: String,
}

impl BrokenLab {
    pub fn slug(&self) -> String {
        folder_name(&self.dir)
    }

    /// The lab's number, from its folder name (`01-outbox` → `01`).
    pub fn number(&self) -> String {
        self.slug()
            .split('-')
            .next()
            .unwrap_or_default()
            .to_string()
    }
}

/// Every lab under `root/labs`, ordered by number, and those that could not be loaded.
#[derive(Clone, Debug, Default)]
pub struct Labs {
    pub labs: Vec<Lab>,
    pub broken: Vec<BrokenLab>,
}

/// Reads every `labs/*/lab.toml` under `root`. A lab whose file does not parse is set
/// aside with its problem; the others load.
pub fn load_labs(root: &Path) -> Result<Labs> {
    let labs_dir = root.join("labs");
    let entries = std::fs::read_dir(&labs_dir).map_err(|e| Error::reading(&labs_dir, e))?;
    let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    let mut found = Labs::default();
    for dir in dirs {
        let path = dir.join("lab.toml");
        if !path.is_file() {
            continue;
        }
        let loaded = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read it: {e}"))
            .and_then(|text| toml::from_str::<LabMeta>(&text).map_err(|e| e.to_string()))
            .and_then(|meta| Lab::from_meta(dir.clone(), meta));
        match loaded {
            Ok(lab) => found.labs.push(lab),
            Err(problem) => found.broken.push(BrokenLab {
                problem: format!("{}: {}", path.display(), problem.trim()),
                dir,
            }),
        }
    }
    found.labs.sort_by(|a, b| a.meta.number.cmp(&b.meta.number));
    Ok(found)
}

impl Labs {
    /// Finds a lab by number (`01`, `1`), id (`outbox`) or folder name (`01-outbox`). A
    /// lab that exists but could not be loaded is named with its problem.
    pub fn find(&self, wanted: &str) -> Result<&Lab> {
        let number = wanted.parse::<u32>().ok();
        let same_number = |n: &str| number.is_some() && n.parse::<u32>().ok() == number;
        if let Some(lab) = self.labs.iter().find(|lab| {
            lab.meta.id == wanted
                || lab.slug() == wanted
                || lab.meta.number == wanted
                || same_number(&lab.meta.number)
        }) {
            return Ok(lab);
        }
        if let Some(broken) = self
            .broken
            .iter()
            .find(|b| b.slug() == wanted || same_number(&b.number()))
        {
            return Err(Error::input(format!(
                "lab {} cannot be used: {}",
                broken.slug(),
                broken.problem
            )));
        }
        let known: Vec<String> = self
            .labs
            .iter()
            .map(|l| format!("{} ({})", l.meta.number, l.meta.id))
            .collect();
        Err(Error::input(format!(
            "no lab `{wanted}`. The labs are: {}. Try `cargo labs list`.",
            known.join(", ")
        )))
    }
}

/// The names of a graded suite's tests, read from its `graded::suite![…]` list: what the
/// grader expects to hear from, whatever the test binary says of itself.
pub fn graded_test_names(suite_source: &str) -> Vec<String> {
    const OPENING: &str = "graded::suite![";
    let Some(start) = suite_source.find(OPENING) else {
        return Vec::new();
    };
    let body = &suite_source[start + OPENING.len()..];
    let body = body.split(']').next().unwrap_or_default();
    body.split(',')
        .map(|name| {
            name.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<String>()
                .trim()
                .to_string()
        })
        .filter(|name| !name.is_empty())
        .collect()
}

/// The page each chapter includes to list its lab's predictions (the questions, without
/// the answers), generated from lab.toml so the book never repeats it by hand. Items are
/// numbered in one sequence, as predictions.txt numbers them: item 4 is `q04` there.
pub fn predictions_page(lab: &Lab) -> String {
    let mut out = format!(
        "Before you run lab {n}, answer each question with `cargo labs predict {n}`.\n\n",
        n = lab.meta.number
    );
    for (i, check) in lab.meta.checks.iter().enumerate() {
        out.push_str(&format!("{}. {}\n", i + 1, check.ask));
    }
    let asked = lab.meta.checks.len();
    for (i, q) in lab.meta.questions.iter().enumerate() {
        out.push_str(&format!("\n**{}. {}**\n\n", asked + i + 1, q.prompt));
        for (letter, text) in &q.options {
            out.push_str(&format!("- ({letter}) {text}\n"));
        }
    }
    out
}

/// A lab of this repository (the teacher's edition), for unit tests.
#[cfg(test)]
pub(crate) fn teachers_lab(id: &str) -> Lab {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let labs = load_labs(&root).expect("the workbook's labs load");
    labs.labs
        .into_iter()
        .find(|l| l.meta.id == id)
        .expect("the lab exists")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_names_come_from_the_graded_suite_list() {
        let source = "use x;\ngraded::suite![\n    first,\n    // a comment\n    second_one,\n];\nfn first() {}\n";
        assert_eq!(graded_test_names(source), ["first", "second_one"]);
        assert!(graded_test_names("fn main() {}").is_empty());
    }
}
