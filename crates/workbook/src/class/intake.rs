//! What `grade-class` takes from a submission: each lab's learner files and its
//! `predictions.txt` — regular files within the size caps, not reached through a
//! symbolic link, UTF-8 — and nothing else. It never writes into a submission.

use crate::grade::{Note, Severity};
use crate::meta::Lab;
use crate::predictions::{self, Predictions};
use crate::settings::Limits;
use std::path::{Path, PathBuf};

/// What was taken from one submission for one lab.
pub struct Intake {
    /// (learner file, its text), for the files that could be taken.
    pub files: Vec<(String, String)>,
    pub predictions: Result<Option<Predictions>, String>,
    /// Why a file was not taken (the starter was graded in its place).
    pub problems: Vec<String>,
    /// What the integrity scan found in the files, for a reviewer.
    pub review: Vec<Note>,
    /// A learner file brings in another file: the starter was graded in its place.
    pub refused: bool,
}

/// Reads `rel` under `submission` as a learner file: every step of the path a real
/// folder, the file a regular file of at most `cap` bytes, its text UTF-8. `Ok(None)` when
/// it does not exist; `Err` says why it was not taken.
pub fn take(submission: &Path, rel: &str, cap: u64) -> Result<Option<String>, String> {
    let mut path = submission.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{rel} cannot be read: {e}")),
        };
        if meta.file_type().is_symlink() {
            return Err(format!(
                "{rel} is reached through a symbolic link; it was not taken"
            ));
        }
        let last = i + 1 == parts.len();
        if last && !meta.is_file() {
            return Err(format!("{rel} is not a regular file; it was not taken"));
        }
        if !last && !meta.is_dir() {
            return Ok(None);
        }
        if last && meta.len() > cap {
            return Err(format!(
                "{rel} has {} bytes, more than the {cap} a learner file may have; it was not taken",
                meta.len()
            ));
        }
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("{rel} cannot be read: {e}"))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| format!("{rel} is not UTF-8 text; it was not taken"))
}

/// Takes one lab of one submission.
pub fn intake(lab: &Lab, submission: &Path, limits: &Limits) -> Intake {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for file in &lab.meta.learner_files {
        let rel = lab.learner_path(file);
        match take(submission, &rel, limits.max_learner_file_bytes) {
            Ok(Some(text)) => files.push((file.clone(), text)),
            Ok(None) => problems.push(format!("{rel} is missing: the starter was graded")),
            Err(problem) => problems.push(format!("{problem}: the starter was graded")),
        }
    }
    let mut review = Vec::new();
    let mut refused = false;
    for (file, text) in &files {
        let scan = crate::integrity::scan(&lab.learner_path(file), text);
        refused |= scan.refused;
        review.extend(scan.notes);
    }
    if refused {
        // What a file brings in was not taken from the submission: grade the starter.
        files.clear();
    }
    // The rest of the lab is the teacher's and is never read; that the learner changed it
    // is still worth a reviewer's question.
    let changed =
        crate::grade::changed_published_files(submission, lab, limits.max_learner_file_bytes);
    if !changed.is_empty() {
        review.push(Note::new(
            Severity::Review,
            format!(
                "the submission changed files the grader does not take (it graded with its own): {}",
                changed.join(", ")
            ),
        ));
    }
    let rel = format!("labs/{}/predictions.txt", lab.slug());
    let predictions = match take(submission, &rel, limits.max_predictions_bytes) {
        Ok(Some(text)) => predictions::parse(lab, &text)
            .map(Some)
            .map_err(|e| e.to_string()),
        Ok(None) => Ok(None),
        Err(problem) => Err(problem),
    };
    Intake {
        files,
        predictions,
        problems,
        review,
        refused,
    }
}

/// Where the workbook of a submission is: the folder itself, or the one folder below it
/// that holds one (a repository cloned into a folder of the same name). `None` when
/// neither is a workbook.
pub fn locate_workbook(submission: &Path) -> Option<PathBuf> {
    let is_workbook = |dir: &Path| dir.join("labs").is_dir() && dir.join("book.toml").is_file();
    if is_workbook(submission) {
        return Some(submission.to_path_buf());
    }
    let mut inner: Vec<PathBuf> = std::fs::read_dir(submission)
        .ok()?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|dir| is_workbook(dir))
        .collect();
    inner.sort();
    // Two workbooks in one submission: which one is the work is not for the grader to
    // guess.
    (inner.len() == 1).then(|| inner.remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlinked_or_oversized_file_is_not_taken() {
        let dir = std::env::temp_dir().join(format!("boundary-take-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("labs/01-x/src")).unwrap();
        std::fs::write(dir.join("labs/01-x/src/a.rs"), "fn a() {}").unwrap();
        assert_eq!(
            take(&dir, "labs/01-x/src/a.rs", 100).unwrap().as_deref(),
            Some("fn a() {}")
        );
        assert!(
            take(&dir, "labs/01-x/src/a.rs", 3)
                .unwrap_err()
                .contains("more than")
        );
        assert_eq!(take(&dir, "labs/01-x/src/missing.rs", 100), Ok(None));
        #[cfg(unix)]
        {
            let src = dir.join("labs/01-x/src");
            std::os::unix::fs::symlink(src.join("a.rs"), src.join("b.rs")).unwrap();
            std::os::unix::fs::symlink(dir.join("labs/01-x"), dir.join("labs/02-y")).unwrap();
            assert!(
                take(&dir, "labs/01-x/src/b.rs", 100)
                    .unwrap_err()
                    .contains("symbolic link")
            );
            assert!(
                take(&dir, "labs/02-y/src/a.rs", 100)
                    .unwrap_err()
                    .contains("symbolic link")
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_workbook_is_found_where_it_is_or_one_folder_down() {
        let dir = std::env::temp_dir().join(format!("boundary-locate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let nested = dir.join("repo");
        std::fs::create_dir_all(nested.join("labs")).unwrap();
        std::fs::write(nested.join("book.toml"), "").unwrap();
        assert_eq!(locate_workbook(&dir), Some(nested.clone()));
        assert_eq!(locate_workbook(&nested), Some(nested.clone()));
        std::fs::create_dir_all(dir.join("empty")).unwrap();
        assert_eq!(locate_workbook(&dir.join("empty")), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
