//! The scratch trees `grade-class` grades in: a pristine student edition exported from
//! the teacher's copy, and per job slot a tree that is made equal to it before every
//! submission. The slots share one build folder (their builds take turns), so the
//! dependencies are built once.

use crate::error::{Error, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where one grading job builds and runs: its tree, the build folder every slot
/// shares, and a folder of its own for the executables its tests run from.
#[derive(Clone, Debug)]
pub struct Slot {
    pub tree: PathBuf,
    pub target: PathBuf,
    pub bin: PathBuf,
}

impl Slot {
    pub fn new(work: &Path, index: usize) -> Result<Slot> {
        let slot = Slot {
            tree: work.join(format!("tree-{index}")),
            target: work.join("target"),
            bin: work.join(format!("bin-{index}")),
        };
        for dir in [&slot.tree, &slot.target, &slot.bin] {
            std::fs::create_dir_all(dir).map_err(|e| Error::writing(dir, e))?;
        }
        Ok(slot)
    }
}

/// Every file under `dir` (relative paths), but a tree's build folder and lock file.
fn files(dir: &Path, base: &Path, out: &mut BTreeSet<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::reading(dir, e))? {
        let path = entry.map_err(|e| Error::reading(dir, e))?.path();
        let rel = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
        if rel == Path::new("target") || rel == Path::new("Cargo.lock") {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).map_err(|e| Error::reading(&path, e))?;
        if meta.is_dir() {
            files(&path, base, out)?;
        } else {
            out.insert(rel);
        }
    }
    Ok(())
}

/// Makes `tree` hold exactly the files of `pristine` (and its build products): a file
/// whose content differs is copied, an extra one removed, an unchanged one left alone so
/// that cargo does not rebuild what did not change.
pub fn sync(pristine: &Path, tree: &Path) -> Result<()> {
    let mut wanted = BTreeSet::new();
    files(pristine, pristine, &mut wanted)?;
    let mut present = BTreeSet::new();
    if tree.is_dir() {
        files(tree, tree, &mut present)?;
    }
    for rel in present.difference(&wanted) {
        let path = tree.join(rel);
        std::fs::remove_file(&path).map_err(|e| Error::writing(&path, e))?;
    }
    for rel in &wanted {
        let (from, to) = (pristine.join(rel), tree.join(rel));
        let new = std::fs::read(&from).map_err(|e| Error::reading(&from, e))?;
        if std::fs::read(&to).ok().as_deref() != Some(new.as_slice()) {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::writing(parent, e))?;
            }
            std::fs::write(&to, &new).map_err(|e| Error::writing(&to, e))?;
        }
    }
    let lock = pristine.join("Cargo.lock");
    let here = tree.join("Cargo.lock");
    if lock.exists() && std::fs::read(&lock).ok() != std::fs::read(&here).ok() {
        std::fs::copy(&lock, &here).map_err(|e| Error::writing(&here, e))?;
    }
    Ok(())
}

/// Makes a file newer than anything cargo built before: its modification time later
/// than any other this grading set, whatever the file system's clock resolution, so that
/// cargo rebuilds its crate.
pub fn touch(path: &Path) -> Result<()> {
    use std::sync::Mutex;
    use std::time::{Duration, SystemTime};
    static LAST: Mutex<Option<SystemTime>> = Mutex::new(None);
    let stamp = {
        let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
        let now = SystemTime::now();
        let next = match *last {
            Some(before) if before >= now => before + Duration::from_millis(10),
            _ => now,
        };
        *last = Some(next);
        next
    };
    let file = std::fs::File::options()
        .write(true)
        .open(path)
        .map_err(|e| Error::writing(path, e))?;
    file.set_modified(stamp)
        .map_err(|e| Error::writing(path, e))
}
