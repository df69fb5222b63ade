//! The dataset: accounts and positions, one pair of files per run, and the report a
//! consumer computes from them.

use super::{RUN_1, RUN_2, RUN_3};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: String,
    pub owner: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub account: String,
    pub instrument: String,
    pub quantity: i64,
}

/// One run's dataset. Each file starts with a `# run=…` line naming its run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dataset {
    pub run: String,
    /// The run's place in the order of runs: a later run has a larger sequence.
    pub sequence: u64,
    pub accounts: Vec<Account>,
    pub positions: Vec<Position>,
}

fn account(id: &str, owner: &str) -> Account {
    Account {
        id: id.into(),
        owner: owner.into(),
    }
}

fn position(account: &str, instrument: &str, quantity: i64) -> Position {
    Position {
        account: account.into(),
        instrument: instrument.into(),
        quantity,
    }
}

/// The dataset of a run the scenarios know, or `None`.
pub fn dataset(run: &str) -> Option<Dataset> {
    match run {
        RUN_1 => Some(Dataset {
            run: RUN_1.into(),
            sequence: 1,
            accounts: vec![account("A1", "Ada"), account("A2", "Grace")],
            positions: vec![
                position("A1", "BOND-2030", 100),
                position("A1", "EQ-ACME", 20),
                position("A2", "BOND-2030", 50),
            ],
        }),
        RUN_2 => Some(Dataset {
            run: RUN_2.into(),
            sequence: 2,
            accounts: vec![
                account("A1", "Ada"),
                account("A2", "Grace"),
                account("A3", "Edsger"),
            ],
            positions: vec![
                position("A1", "BOND-2030", 90),
                position("A2", "BOND-2030", 50),
                position("A2", "EQ-ACME", 10),
                position("A3", "EQ-ACME", 40),
            ],
        }),
        RUN_3 => Some(Dataset {
            run: RUN_3.into(),
            sequence: 3,
            accounts: vec![account("A2", "Grace"), account("A3", "Edsger")],
            positions: vec![
                position("A2", "EQ-ACME", 15),
                position("A3", "BOND-2030", 70),
            ],
        }),
        _ => None,
    }
}

impl Dataset {
    pub fn accounts_csv(&self) -> Vec<u8> {
        let mut out = format!("# run={}\naccount,owner\n", self.run);
        for a in &self.accounts {
            out.push_str(&format!("{},{}\n", a.id, a.owner));
        }
        out.into_bytes()
    }

    pub fn positions_csv(&self) -> Vec<u8> {
        let mut out = format!("# run={}\naccount,instrument,quantity\n", self.run);
        for p in &self.positions {
            out.push_str(&format!("{},{},{}\n", p.account, p.instrument, p.quantity));
        }
        out.into_bytes()
    }
}

/// Splits a file into its run tag and its data rows (the header row dropped).
fn rows(bytes: &[u8]) -> Result<(String, Vec<Vec<String>>), String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let mut lines = text.lines();
    let run = lines
        .next()
        .and_then(|l| l.strip_prefix("# run="))
        .ok_or("no `# run=` line")?
        .to_string();
    lines.next().ok_or("no header row")?;
    Ok((
        run,
        lines
            .map(|l| l.split(',').map(String::from).collect())
            .collect(),
    ))
}

/// The `# run=…` tag of a file, if it has one.
pub fn run_tag(bytes: &[u8]) -> Option<String> {
    rows(bytes).ok().map(|(run, _)| run)
}

/// Parses an accounts file: its run tag and its accounts.
pub fn parse_accounts(bytes: &[u8]) -> Result<(String, Vec<Account>), String> {
    let (run, rows) = rows(bytes)?;
    let accounts = rows
        .into_iter()
        .map(|r| match r.as_slice() {
            [id, owner] => Ok(account(id, owner)),
            _ => Err(format!("bad account row {r:?}")),
        })
        .collect::<Result<_, _>>()?;
    Ok((run, accounts))
}

/// Parses a positions file: its run tag and its positions.
pub fn parse_positions(bytes: &[u8]) -> Result<(String, Vec<Position>), String> {
    let (run, rows) = rows(bytes)?;
    let positions = rows
        .into_iter()
        .map(|r| match r.as_slice() {
            [a, i, q] => q
                .parse()
                .map(|q| position(a, i, q))
                .map_err(|_| format!("bad quantity in {r:?}")),
            _ => Err(format!("bad position row {r:?}")),
        })
        .collect::<Result<_, _>>()?;
    Ok((run, positions))
}

/// What a consumer reports: computed from one accounts file and one positions file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The run the consumer believes it read.
    pub run: String,
    pub accounts: usize,
    pub positions: usize,
    pub total_quantity: i64,
}

/// The report for `run` computed from the given rows.
pub fn report(run: &str, accounts: &[Account], positions: &[Position]) -> Report {
    Report {
        run: run.to_string(),
        accounts: accounts.len(),
        positions: positions.len(),
        total_quantity: positions.iter().map(|p| p.quantity).sum(),
    }
}
