//! Lab metadata: `labs/*/lab.toml`, defined once per lab and read by the CLI and the
//! consistency gate. The CLI never links lab code; everything it knows about a lab before
//! running it comes from here.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub claim: String,
    /// The answer key: does the claim hold when the lab runs?
    pub holds: bool,
    pub explain: String,
}

impl Check {
    pub fn id(&self) -> String {
        labkit::slug(&self.claim)
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub id: String,
    pub prompt: String,
    pub answer: String,
    pub explain: String,
    pub options: BTreeMap<String, String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Points {
    pub predictions: u32,
    pub graded: u32,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabMeta {
    pub id: String,
    pub number: String,
    pub title: String,
    pub package: String,
    pub solution_package: String,
    pub chapter: String,
    pub graded_suite: String,
    pub learner_files: Vec<String>,
    pub time_limit_secs: u64,
    pub starter_fails: Vec<String>,
    pub hints: Vec<String>,
    pub points: Points,
    /// Repository-relative path → git blob id of the published version.
    pub published: BTreeMap<String, String>,
    #[serde(rename = "check")]
    pub checks: Vec<Check>,
    #[serde(rename = "question", default)]
    pub questions: Vec<Question>,
}

/// A lab found on disk: its folder and its metadata.
#[derive(Clone, Debug)]
pub struct Lab {
    pub dir: PathBuf,
    pub meta: LabMeta,
}

impl Lab {
    /// `01-outbox`: the folder name, used for the book and the predictions header.
    pub fn slug(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
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
}

/// Reads every `labs/*/lab.toml` under `root`, ordered by lab number.
pub fn load_labs(root: &Path) -> Result<Vec<Lab>, String> {
    let labs_dir = root.join("labs");
    let entries = std::fs::read_dir(&labs_dir)
        .map_err(|e| format!("cannot read {}: {e}", labs_dir.display()))?;
    let mut labs = Vec::new();
    let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    for dir in dirs {
        let path = dir.join("lab.toml");
        if !path.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let meta: LabMeta =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        labs.push(Lab { dir, meta });
    }
    labs.sort_by(|a, b| a.meta.number.cmp(&b.meta.number));
    Ok(labs)
}

/// Finds a lab by number (`01`, `1`), id (`outbox`) or folder name (`01-outbox`).
pub fn find<'a>(labs: &'a [Lab], wanted: &str) -> Result<&'a Lab, String> {
    let number = wanted.parse::<u32>().ok();
    labs.iter()
        .find(|lab| {
            lab.meta.id == wanted
                || lab.slug() == wanted
                || lab.meta.number == wanted
                || (number.is_some() && lab.meta.number.parse::<u32>().ok() == number)
        })
        .ok_or_else(|| {
            let known: Vec<String> = labs
                .iter()
                .map(|l| format!("{} ({})", l.meta.number, l.meta.id))
                .collect();
            format!(
                "no lab `{wanted}`. The labs are: {}. Try `cargo labs list`.",
                known.join(", ")
            )
        })
}

/// The page each chapter includes to list its lab's predictions (claims and questions,
/// without the answers), generated from lab.toml so the book never repeats it by hand.
pub fn predictions_page(lab: &Lab) -> String {
    let mut out = format!(
        "Before you run lab {n}, record a prediction for each claim (does it hold?) and \
         each question, with `cargo labs predict {n}`.\n\n",
        n = lab.meta.number
    );
    for (i, check) in lab.meta.checks.iter().enumerate() {
        out.push_str(&format!("{}. {}\n", i + 1, check.claim));
    }
    for q in &lab.meta.questions {
        out.push_str(&format!("\n**{}**\n\n", q.prompt));
        for (letter, text) in &q.options {
            out.push_str(&format!("- ({letter}) {text}\n"));
        }
    }
    out
}

/// Where each lab's predictions page lives, and its content.
pub fn predictions_pages(root: &Path, labs: &[Lab]) -> Vec<(PathBuf, String)> {
    labs.iter()
        .map(|lab| {
            (
                root.join("book/src/predictions")
                    .join(format!("{}.md", lab.slug())),
                predictions_page(lab),
            )
        })
        .collect()
}
