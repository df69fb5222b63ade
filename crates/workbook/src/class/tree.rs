//! The scratch trees `grade-class` grades in: a pristine student edition exported from
//! the teacher's copy once and held in memory, and per job slot a tree that is made equal
//! to it before every submission. The slots share one build folder (their builds take
//! turns), so the dependencies are built once; each slot keeps a copy of the executables
//! its own build made, which the next build of another slot cannot replace.

use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where one grading job works: its tree (the submission, where its tests run), the
/// build tree and the build folder every slot shares, and the slot's own folder for the
/// executables it runs.
///
/// Every build happens in the one build tree, the slots taking turns: cargo records the
/// sources of a harness that lie outside its package (the lab's `src/`, beside
/// `harness/`) by absolute path, so builds from two trees would each find the other's
/// record pointing into a tree its sandbox cannot see, and rebuild the harness every time.
#[derive(Clone, Debug)]
pub struct Slot {
    pub tree: PathBuf,
    pub build_tree: PathBuf,
    pub target: PathBuf,
    pub bin: PathBuf,
}

impl Slot {
    /// The build folder every slot of the grading in `work` shares.
    pub fn target_of(work: &Path) -> PathBuf {
        work.join("target")
    }

    pub fn new(work: &Path, index: usize) -> Result<Slot> {
        let slot = Slot {
            tree: work.join(format!("tree-{index}")),
            build_tree: work.join("tree-build"),
            target: Slot::target_of(work),
            bin: work.join(format!("bin-{index}")),
        };
        for dir in [&slot.tree, &slot.build_tree, &slot.target, &slot.bin] {
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

/// The pristine tree, read once into memory right after its export: every submission's
/// tree is restored from here, never from a folder on disk, which a submission graded
/// without the sandbox could have written to.
#[derive(Clone, Debug, Default)]
pub struct Pristine {
    /// Relative path → bytes, for every file but the lock file.
    files: BTreeMap<PathBuf, Vec<u8>>,
    lock: Option<Vec<u8>>,
}

impl Pristine {
    pub fn read(dir: &Path) -> Result<Pristine> {
        let mut names = BTreeSet::new();
        files(dir, dir, &mut names)?;
        let mut files = BTreeMap::new();
        for rel in names {
            let path = dir.join(&rel);
            let bytes = std::fs::read(&path).map_err(|e| Error::reading(&path, e))?;
            files.insert(rel, bytes);
        }
        let lock = std::fs::read(dir.join("Cargo.lock")).ok();
        Ok(Pristine { files, lock })
    }

    /// The bytes of one file (a path relative to the tree).
    pub fn file(&self, rel: &Path) -> Option<&[u8]> {
        self.files.get(rel).map(Vec::as_slice)
    }
}

/// Makes `tree` hold exactly the files of `pristine` (and its build products): a file
/// whose content differs is written, an extra one removed, an unchanged one left alone so
/// that cargo does not rebuild what did not change.
pub fn sync(pristine: &Pristine, tree: &Path) -> Result<()> {
    let mut present = BTreeSet::new();
    if tree.is_dir() {
        files(tree, tree, &mut present)?;
    }
    for rel in present
        .iter()
        .filter(|rel| !pristine.files.contains_key(*rel))
    {
        let path = tree.join(rel);
        std::fs::remove_file(&path).map_err(|e| Error::writing(&path, e))?;
    }
    let wanted = (pristine.files.iter()).map(|(rel, bytes)| (rel.clone(), bytes));
    let lock = (pristine.lock.iter()).map(|bytes| (PathBuf::from("Cargo.lock"), bytes));
    for (rel, new) in wanted.chain(lock) {
        let to = tree.join(&rel);
        let regular = std::fs::symlink_metadata(&to).is_ok_and(|m| m.is_file());
        if !regular || std::fs::read(&to).ok().as_deref() != Some(new.as_slice()) {
            // Whatever stands there (a changed file, a link, a folder) goes first.
            if let Ok(meta) = std::fs::symlink_metadata(&to) {
                let gone = if meta.is_dir() {
                    std::fs::remove_dir_all(&to)
                } else {
                    std::fs::remove_file(&to)
                };
                gone.map_err(|e| Error::writing(&to, e))?;
            }
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::writing(parent, e))?;
            }
            std::fs::write(&to, new).map_err(|e| Error::writing(&to, e))?;
        }
    }
    Ok(())
}

/// Writes a learner file into a tree (see [`touch`]: the build touches it again).
pub fn put_learner_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::writing(path, e))?;
    touch(path)
}

/// Gives a file a modification time later than any given before in this grading,
/// whatever the file system's clock resolution. Cargo keeps one record of each lab's crate
/// in the shared build folder and rebuilds it only when a source is newer than the last
/// build. So every build first touches the learner files of the build tree, under the
/// build lock: cargo rebuilds each lab from this submission's files, never reusing what
/// another slot (or an earlier submission with the same text) left.
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

/// What a folder held at one moment: for each entry, what a write to it changes (its
/// size, its times — the change time no process can set back —, its inode, its kind and
/// permissions). A folder's own times change with what it holds, so a folder counts as
/// changed only when it is new, gone, replaced or its permissions changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stamp(BTreeMap<PathBuf, Entry>);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    dir: bool,
    len: u64,
    modified: i128,
    changed: i128,
    inode: u64,
    mode: u32,
}

impl Entry {
    fn same(&self, other: &Entry) -> bool {
        if self.dir && other.dir {
            (self.inode, self.mode) == (other.inode, other.mode)
        } else {
            self == other
        }
    }
}

impl Stamp {
    /// Everything under `dir`, links and folders included, none followed.
    pub fn of(dir: &Path) -> Stamp {
        fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<PathBuf, Entry>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(meta) = std::fs::symlink_metadata(&path) else {
                    continue;
                };
                let rel = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
                out.insert(rel, stamp(&meta));
                if meta.is_dir() {
                    walk(&path, base, out);
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(dir, dir, &mut out);
        Stamp(out)
    }

    /// The entries that are new, gone or changed in `now` (paths relative to the folder).
    pub fn changes(&self, now: &Stamp) -> Vec<PathBuf> {
        let mut changed: Vec<PathBuf> = (now.0.iter())
            .filter(|(rel, entry)| !self.0.get(*rel).is_some_and(|e| e.same(entry)))
            .map(|(rel, _)| rel.clone())
            .collect();
        changed.extend(
            self.0
                .keys()
                .filter(|rel| !now.0.contains_key(*rel))
                .cloned(),
        );
        changed.sort();
        changed
    }
}

#[cfg(unix)]
fn stamp(meta: &std::fs::Metadata) -> Entry {
    use std::os::unix::fs::MetadataExt;
    Entry {
        dir: meta.is_dir(),
        len: meta.len(),
        modified: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
        changed: meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
        inode: meta.ino(),
        mode: meta.mode(),
    }
}

#[cfg(not(unix))]
fn stamp(meta: &std::fs::Metadata) -> Entry {
    let nanos = (meta.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    Entry {
        dir: meta.is_dir(),
        len: meta.len(),
        modified: nanos,
        changed: 0,
        inode: 0,
        mode: u32::from(meta.permissions().readonly()),
    }
}

/// Puts a shared build folder right after something other than a build wrote to it
/// (`changed`, from [`Stamp::changes`]): what cargo rebuilds when it is missing — the
/// compiler's outputs, their fingerprints, the executables it copies up — is deleted, and
/// so is the whole incremental cache when anything in it changed; a change anywhere else
/// (a build script's output) deletes the whole folder, to be built again from nothing.
pub fn repair_build_folder(target: &Path, changed: &[PathBuf]) -> Result<()> {
    let rebuilt_when_missing = |rel: &Path| {
        let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
        match parts.as_slice() {
            // The graded suites are examples: cargo links one again whose file is missing.
            [_profile, dir, ..]
                if *dir == "deps" || *dir == ".fingerprint" || *dir == "examples" =>
            {
                true
            }
            // An executable or library cargo copies up from deps/.
            [_profile, _file] => true,
            _ => false,
        }
    };
    let remove = |path: &Path| -> Result<()> {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
            Ok(_) => std::fs::remove_file(path),
            Err(_) => Ok(()),
        }
        .map_err(|e| Error::writing(path, e))
    };
    for rel in changed {
        let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
        if parts.len() >= 2 && parts[1] == "incremental" {
            remove(&target.join(parts[0]).join("incremental"))?;
        } else if rebuilt_when_missing(rel) {
            remove(&target.join(rel))?;
        } else {
            remove(target)?;
            return std::fs::create_dir_all(target).map_err(|e| Error::writing(target, e));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_restored_from_memory_whatever_was_done_to_it() {
        let dir = std::env::temp_dir().join(format!("boundary-sync-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (pristine_dir, tree) = (dir.join("pristine"), dir.join("tree"));
        std::fs::create_dir_all(pristine_dir.join("tests")).unwrap();
        std::fs::write(pristine_dir.join("tests/suite.rs"), "genuine").unwrap();
        std::fs::write(pristine_dir.join("Cargo.lock"), "lock").unwrap();
        let pristine = Pristine::read(&pristine_dir).unwrap();
        // The folder it was read from changes afterwards: the tree does not follow.
        std::fs::write(pristine_dir.join("tests/suite.rs"), "tampered").unwrap();
        std::fs::create_dir_all(tree.join("tests/suite.rs")).unwrap();
        std::fs::write(tree.join("extra.rs"), "x").unwrap();
        sync(&pristine, &tree).unwrap();
        assert_eq!(
            std::fs::read_to_string(tree.join("tests/suite.rs")).unwrap(),
            "genuine"
        );
        assert_eq!(
            std::fs::read_to_string(tree.join("Cargo.lock")).unwrap(),
            "lock"
        );
        assert!(!tree.join("extra.rs").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stamp_sees_every_write_and_a_repair_deletes_what_cargo_rebuilds() {
        let dir = std::env::temp_dir().join(format!("boundary-stamp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let deps = dir.join("debug/deps");
        std::fs::create_dir_all(&deps).unwrap();
        std::fs::create_dir_all(dir.join("debug/examples")).unwrap();
        std::fs::create_dir_all(dir.join("debug/build/x/out")).unwrap();
        std::fs::write(deps.join("graded-1"), "binary").unwrap();
        std::fs::write(deps.join("liba.rlib"), "lib").unwrap();
        std::fs::write(dir.join("debug/build/x/out/lib.a"), "native").unwrap();
        let before = Stamp::of(&dir);
        assert!(before.changes(&Stamp::of(&dir)).is_empty());
        // The same size and the same modification time: the change time still differs.
        let mtime = std::fs::metadata(deps.join("graded-1"))
            .unwrap()
            .modified()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(deps.join("graded-1"), "forged").unwrap();
        std::fs::File::options()
            .write(true)
            .open(deps.join("graded-1"))
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        std::fs::write(deps.join("new.rlib"), "planted").unwrap();
        // A graded suite is an example: its file too is linked again when missing.
        std::fs::write(dir.join("debug/examples/graded-lab01-outbox"), "forged").unwrap();
        let changed = before.changes(&Stamp::of(&dir));
        assert_eq!(
            changed,
            [
                PathBuf::from("debug/deps/graded-1"),
                PathBuf::from("debug/deps/new.rlib"),
                PathBuf::from("debug/examples/graded-lab01-outbox")
            ]
        );
        repair_build_folder(&dir, &changed).unwrap();
        assert!(!deps.join("graded-1").exists() && !deps.join("new.rlib").exists());
        assert!(!dir.join("debug/examples/graded-lab01-outbox").exists());
        assert!(
            deps.join("liba.rlib").exists(),
            "what was not touched stays"
        );
        // A build script's output is not rebuilt when missing: the whole folder goes.
        let before = Stamp::of(&dir);
        std::fs::write(dir.join("debug/build/x/out/lib.a"), "forged").unwrap();
        let changed = before.changes(&Stamp::of(&dir));
        repair_build_folder(&dir, &changed).unwrap();
        assert!(dir.is_dir() && !deps.join("liba.rlib").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
