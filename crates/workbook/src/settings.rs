//! The grader's settings: `grading.toml` at the workbook's root. In a class,
//! `cargo labs grade-class` reads the teacher's copy; a learner's own `cargo labs grade`
//! reads theirs (an honest self-check, not a proof).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const FILE: &str = "grading.toml";

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub predictions: PredictionSettings,
    #[serde(default)]
    pub limits: Limits,
}

/// How predictions earn points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredictionMode {
    /// An item earns its share when its sealed answer is right and was not revised.
    #[default]
    Correctness,
    /// An item earns its share when it was answered before the seal, right or wrong;
    /// revisions after a discussion cost nothing (peer instruction).
    Participation,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PredictionSettings {
    /// Every lab's mode, unless `labs` names another for it.
    #[serde(default)]
    pub mode: PredictionMode,
    /// A lab's own mode, by its number: `labs = { "03" = "participation" }`.
    #[serde(default)]
    pub labs: std::collections::BTreeMap<String, PredictionMode>,
}

/// Caps that hold whatever a lab's metadata asks for.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// The longest a lab's graded run (or observe run) may take, whatever its lab.toml
    /// says.
    pub max_time_limit_secs: u64,
    /// The longest one build of the labs may take.
    pub build_time_limit_secs: u64,
    /// The largest learner file `grade-class` takes from a submission.
    pub max_learner_file_bytes: u64,
    /// The largest predictions file `grade-class` takes from a submission.
    pub max_predictions_bytes: u64,
    /// The most one graded test may print (per stream); the rest is dropped with a note.
    pub max_test_output_bytes: u64,
    /// The longest all of one lab's graded tests may take together: tests not started
    /// when it runs out are not run (each test also has its lab's own limit).
    pub max_lab_time_secs: u64,
    /// The most memory one compiler process may map while a class is graded (Unix).
    pub max_build_memory_mib: u64,
    /// The most memory one graded test process may map (Unix).
    pub max_test_memory_mib: u64,
    /// The largest file a build or a test may write (Unix).
    pub max_file_mib: u64,
    /// How much one build of a submission may grow the build folder.
    pub max_build_growth_mib: u64,
    /// The size of the private `/tmp` a sandboxed build or test gets.
    pub max_tmp_mib: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_time_limit_secs: 600,
            build_time_limit_secs: 1_200,
            max_learner_file_bytes: 256 * 1024,
            max_predictions_bytes: 64 * 1024,
            max_test_output_bytes: 1024 * 1024,
            max_lab_time_secs: 900,
            max_build_memory_mib: 4096,
            max_test_memory_mib: 2048,
            max_file_mib: 1024,
            max_build_growth_mib: 4096,
            max_tmp_mib: 512,
        }
    }
}

impl Settings {
    /// Reads `grading.toml` under `root`; the defaults when there is none.
    pub fn load(root: &Path) -> Result<Settings> {
        let path = root.join(FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                toml::from_str(&text).map_err(|e| Error::input(format!("{}: {e}", path.display())))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(Error::reading(&path, e)),
        }
    }

    /// The prediction mode of the lab numbered `number`.
    pub fn prediction_mode(&self, number: &str) -> PredictionMode {
        (self.predictions.labs.get(number).copied()).unwrap_or(self.predictions.mode)
    }

    /// A lab's time limit, capped.
    pub fn time_limit(&self, lab_secs: u64) -> std::time::Duration {
        std::time::Duration::from_secs(lab_secs.clamp(1, self.limits.max_time_limit_secs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_time_limit_is_capped() {
        let settings = Settings::default();
        assert_eq!(settings.time_limit(u64::MAX).as_secs(), 600);
        assert_eq!(settings.time_limit(0).as_secs(), 1);
        assert_eq!(settings.time_limit(120).as_secs(), 120);
    }

    #[test]
    fn the_workbook_settings_parse() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        Settings::load(&root).unwrap();
    }
}
