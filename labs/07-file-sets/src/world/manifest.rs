//! The acceptance manifest: which run consumers should read, and where its files are.

/// A reference to one data file: its name in `datasets` and, when pinned, its
/// generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRef {
    pub name: String,
    pub generation: Option<i64>,
}

/// The acceptance manifest: which run consumers should read, and where its files are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub run: String,
    /// The run's sequence (`Dataset::sequence`): which of two runs is the later one.
    pub sequence: u64,
    pub accounts: FileRef,
    pub positions: FileRef,
}

impl Manifest {
    pub fn to_json(&self) -> Vec<u8> {
        let file = |f: &FileRef| serde_json::json!({"name": f.name, "generation": f.generation});
        serde_json::json!({
            "run": self.run,
            "sequence": self.sequence,
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
            sequence: value["sequence"].as_u64().ok_or("no sequence")?,
            accounts: file("accounts")?,
            positions: file("positions")?,
        })
    }
}
