//! `boundary-poll serve` options (as `cargo labs poll serve` passes them on), and the
//! roster file.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Where the poll listens unless told otherwise: this machine only. A class reaches it
/// when the teacher names the classroom's address (`--listen 0.0.0.0:8470`).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8470";

/// Requests per second one address may send, on average (a burst may be three times as
/// many). A learner sends a vote a round; the limit stops a loop, not a class.
pub const DEFAULT_RATE: u32 = 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The workbook whose labs are polled (the teacher's edition: its keys are there).
    pub root: PathBuf,
    /// The labs polled, as given (`01,03`); all of them when empty.
    pub labs: Vec<String>,
    pub listen: SocketAddr,
    /// The votes' database; `target/poll/poll.db` under the root by default.
    pub db: PathBuf,
    pub roster: Option<PathBuf>,
    pub rate: u32,
    /// Whether the teacher's page and actions answer other machines than this one.
    pub remote_teacher: bool,
}

impl Config {
    /// Reads `serve --root DIR [OPTIONS]`.
    pub fn from_args(args: &[String]) -> Result<Config, String> {
        let mut args = args.iter().map(String::as_str);
        if args.next() != Some("serve") {
            return Err("usage: boundary-poll serve --root DIR [OPTIONS]".into());
        }
        let mut root = None;
        let mut config = Config {
            root: PathBuf::new(),
            labs: Vec::new(),
            listen: DEFAULT_LISTEN.parse().expect("a socket address"),
            db: PathBuf::new(),
            roster: None,
            rate: DEFAULT_RATE,
            remote_teacher: false,
        };
        let mut db = None;
        while let Some(flag) = args.next() {
            if flag == "--remote-teacher" {
                config.remote_teacher = true;
                continue;
            }
            let value = args
                .next()
                .ok_or_else(|| format!("`{flag}` needs a value"))?;
            match flag {
                "--root" => root = Some(PathBuf::from(value)),
                "--labs" => config.labs = value.split(',').map(|l| l.trim().to_string()).collect(),
                "--listen" => {
                    config.listen = value.parse().map_err(|_| {
                        format!("`--listen {value}`: write ADDRESS:PORT, e.g. 0.0.0.0:8470 for the classroom's network")
                    })?
                }
                "--db" => db = Some(PathBuf::from(value)),
                "--roster" => config.roster = Some(PathBuf::from(value)),
                "--rate" => {
                    config.rate = value.parse().ok().filter(|r| *r > 0).ok_or_else(|| {
                        format!("`--rate {value}`: a number of requests per second, 1 or more")
                    })?
                }
                _ => return Err(format!("`poll serve` does not know `{flag}`")),
            }
        }
        config.root = root.ok_or("`--root DIR` names the workbook")?;
        config.db = db.unwrap_or_else(|| config.root.join("target/poll/poll.db"));
        Ok(config)
    }
}

/// One learner of the teacher's class list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RosterEntry {
    pub id: String,
    pub name: String,
}

/// Reads a roster: CSV, one learner a line, `id,name` (a first line `id,name` is a
/// header; a field may be quoted, `"Lovelace, Ada"`). Ids must be unique.
pub fn parse_roster(text: &str) -> Result<Vec<RosterEntry>, String> {
    let mut entries: Vec<RosterEntry> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || (n == 0 && line.eq_ignore_ascii_case("id,name")) {
            continue;
        }
        let fields = csv_fields(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let [id, name] = fields.as_slice() else {
            return Err(format!("line {}: write `id,name`, found `{line}`", n + 1));
        };
        let (id, name) = (id.trim(), name.trim());
        if id.is_empty() || name.is_empty() {
            return Err(format!("line {}: an id and a name are both needed", n + 1));
        }
        if entries.iter().any(|e| e.id.eq_ignore_ascii_case(id)) {
            return Err(format!("line {}: the id `{id}` is there twice", n + 1));
        }
        entries.push(RosterEntry {
            id: id.to_string(),
            name: name.to_string(),
        });
    }
    if entries.is_empty() {
        return Err("it lists nobody".into());
    }
    Ok(entries)
}

/// The fields of one CSV line: comma-separated, a field in double quotes may hold commas
/// and `""` for a quote.
fn csv_fields(line: &str) -> Result<Vec<String>, String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let field = fields.last_mut().expect("one field at least");
        match (c, quoted) {
            ('"', false) if field.trim().is_empty() => {
                field.clear();
                quoted = true;
            }
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            (',', false) => fields.push(String::new()),
            _ => field.push(c),
        }
    }
    if quoted {
        return Err("a quote is not closed".into());
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_defaults_listen_on_this_machine_and_keep_votes_under_target() {
        let config = Config::from_args(&args("serve --root /w")).unwrap();
        assert_eq!(config.listen.to_string(), "127.0.0.1:8470");
        assert_eq!(config.db, PathBuf::from("/w/target/poll/poll.db"));
        assert!(!config.remote_teacher && config.labs.is_empty());
        let config = Config::from_args(&args(
            "serve --root /w --labs 01,3 --listen 0.0.0.0:9000 --rate 5 --remote-teacher",
        ))
        .unwrap();
        assert_eq!(config.labs, ["01", "3"]);
        assert_eq!((config.listen.port(), config.rate), (9000, 5));
        assert!(config.remote_teacher);
        for bad in [
            "serve",
            "serve --root",
            "serve --root /w --listen 8470",
            "serve --root /w --rate 0",
            "serve --root /w --open",
        ] {
            assert!(Config::from_args(&args(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_roster_is_id_and_name_with_quotes_allowed() {
        let roster = parse_roster(
            "id,name\ns01,Ada Lovelace\ns02,\"Hopper, Grace\"\n\ns03, \"Said \"\"Al\"\"\"\n",
        )
        .unwrap();
        let names: Vec<&str> = roster.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Ada Lovelace", "Hopper, Grace", "Said \"Al\""]);
        assert!(
            parse_roster("s01,Ada\nS01,Ada again\n")
                .unwrap_err()
                .contains("twice")
        );
        assert!(parse_roster("s01\n").unwrap_err().contains("line 1"));
        assert!(parse_roster("s01,\"Ada\n").unwrap_err().contains("quote"));
        assert!(parse_roster("id,name\n").is_err());
    }
}
