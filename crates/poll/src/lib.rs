//! The live poll of peer instruction, the teacher's server (`cargo labs poll serve`). It
//! is in the teacher's edition only: the student edition leaves this crate out, so no
//! learner ever builds an HTTP server, and the answer keys it shows the teacher never
//! leave the teacher's copy.
//!
//! Learners vote with `cargo labs predict N --send` (the client and the types on the wire
//! are `workbook::poll`'s); the votes go to SQLite (the schema is
//! `workbook::poll::db`'s); the teacher's page shows both rounds' distributions.

pub mod config;
pub mod error;
pub mod limit;
pub mod net;
pub mod page;
pub mod routes;
pub mod store;
pub mod vote;

#[cfg(test)]
mod tests;

use config::{Config, parse_roster};
use routes::State;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use store::{Identity, Store};
use workbook::meta::{Lab, load_labs};

/// A poll whose socket is bound and whose database is open: [`Server::run`] serves it.
pub struct Server {
    pub addr: SocketAddr,
    pub identity: Identity,
    state: Arc<State>,
    listener: std::net::TcpListener,
}

/// Opens the database (making the class code and the teacher's token the first time),
/// loads the roster and the labs, and binds the address. Errors are sentences.
pub fn start(config: &Config) -> Result<Server, String> {
    let labs = polled_labs(config)?;
    let mut store = Store::open(&config.db)?;
    if let Some(path) = &config.roster {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let roster =
            parse_roster(&text).map_err(|e| format!("the roster {}: {e}", path.display()))?;
        store.replace_roster(&roster).map_err(|e| e.to_string())?;
    }
    let identity = store.identity().map_err(|e| e.to_string())?;
    let listener = std::net::TcpListener::bind(config.listen).map_err(|e| {
        format!(
            "cannot listen on {}: {e} (name another with --listen ADDRESS:PORT)",
            config.listen
        )
    })?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let state = State {
        labs,
        identity: identity.clone(),
        store: Mutex::new(store),
        limiter: Mutex::new(limit::Limiter::new(config.rate)),
        remote_teacher: config.remote_teacher,
        listen: addr,
    };
    Ok(Server {
        addr,
        identity,
        state: Arc::new(state),
        listener,
    })
}

fn polled_labs(config: &Config) -> Result<Vec<Lab>, String> {
    let all = load_labs(&config.root).map_err(|e| e.to_string())?;
    if config.labs.is_empty() {
        return Ok(all.labs);
    }
    let mut polled: Vec<Lab> = Vec::new();
    for wanted in &config.labs {
        let lab = all.find(wanted).map_err(|e| e.to_string())?;
        if !polled.iter().any(|l| l.meta.id == lab.meta.id) {
            polled.push(lab.clone());
        }
    }
    Ok(polled)
}

impl Server {
    /// What the teacher reads at the start: the code, the learners' URL and command, the
    /// teacher's page (with its token), and where the votes are kept.
    pub fn banner(&self, config: &Config) -> String {
        let port = self.addr.port();
        let learners = if self.addr.ip().is_unspecified() {
            format!(
                "http://THIS-MACHINE:{port}/ (THIS-MACHINE: its address on the classroom's network, `hostname -I`)"
            )
        } else {
            format!("http://{}/", self.addr)
        };
        let host = if self.addr.ip().is_unspecified() {
            format!("127.0.0.1:{port}")
        } else {
            self.addr.to_string()
        };
        let labs: Vec<&str> = self
            .state
            .labs
            .iter()
            .map(|l| l.meta.number.as_str())
            .collect();
        let reach = if config.remote_teacher {
            "answers any machine that has the token"
        } else {
            "answers this machine only"
        };
        format!(
            "live poll of lab {}\nclass code: {}\nlearners' URL: {learners}\nlearners send: cargo labs predict {} --send {} --code {} --name \"Your Name\"\n\
             teacher's page: http://{host}/teacher/{}/ ({reach})\nvotes kept in: {} (a restart with this file keeps the code, the tokens and every vote)\n{}Ctrl-C stops the poll.",
            labs.join(", "),
            self.identity.code,
            page::lab_argument(&self.state),
            learners
                .split(' ')
                .next()
                .unwrap_or_default()
                .trim_end_matches('/'),
            self.identity.code,
            self.identity.teacher_token,
            config.db.display(),
            self.resumed(),
        )
    }

    /// What a restart resumes that the teacher must know before projecting the page: the
    /// labs whose answers are shown, and whose rounds are closed.
    fn resumed(&self) -> String {
        let store = self.state.store.lock().expect("the store's lock");
        let mut lines = String::new();
        for lab in &self.state.labs {
            let Ok(tally) = store.tally(&lab.meta.id) else {
                continue;
            };
            let closed: Vec<String> = (tally.rounds.iter().zip(1..))
                .filter(|(round, _)| round.closed_at.is_some())
                .map(|(_, n)| n.to_string())
                .collect();
            if tally.revealed {
                lines.push_str(&format!(
                    "lab {}: THE ANSWERS ARE SHOWN on the teacher's page (revealed before this start; \"Hide the answers\" hides them)\n",
                    lab.meta.number
                ));
            }
            if !closed.is_empty() {
                lines.push_str(&format!(
                    "lab {}: round {} closed\n",
                    lab.meta.number,
                    closed.join(" and ")
                ));
            }
        }
        lines
    }

    /// Serves until the process ends.
    pub fn run(self) -> Result<(), String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
        runtime.block_on(async move {
            self.listener
                .set_nonblocking(true)
                .map_err(|e| e.to_string())?;
            let listener =
                tokio::net::TcpListener::from_std(self.listener).map_err(|e| e.to_string())?;
            net::serve(listener, self.state).await;
            Ok(())
        })
    }
}
