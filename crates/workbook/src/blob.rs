//! Git blob ids, computed without git: `sha1("blob <length>\0" + content)`, what
//! `git hash-object` prints. The published hashes in lab.toml are these ids, so a ZIP
//! download without git's object store can still tell a changed file from its published
//! version.

use std::path::Path;

/// The git blob id of `bytes`.
pub fn blob_id(bytes: &[u8]) -> String {
    let mut hasher = sha1_smol::Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher.digest().to_string()
}

/// The git blob id of the file at `path`.
pub fn file_blob(path: &Path) -> std::io::Result<String> {
    std::fs::read(path).map(|bytes| blob_id(&bytes))
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_match_what_git_hash_object_prints() {
        // `printf '' | git hash-object --stdin` and `echo hello | git hash-object --stdin`.
        assert_eq!(
            super::blob_id(b""),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            super::blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }
}
