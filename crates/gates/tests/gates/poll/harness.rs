//! A poll started for one test, and the requests a test sends it.

use super::common;
use crate::browser::{self, find_chromium, in_ci, without_tags};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use workbook::poll::http::{self, Endpoint, Reply};
use workbook::poll::wire::{Choice, Receipt, Round, Vote, items_digest};

/// A running poll, ended when dropped.
pub struct Poll {
    child: Child,
    pub endpoint: Endpoint,
    pub code: String,
    /// The teacher page's path, `/teacher/TOKEN/`.
    pub teacher: String,
    pub db: PathBuf,
    pub banner: String,
}

/// How long the first start may take: `poll serve` builds the server first (hyper and
/// tokio, on a busy two-core machine, once per target folder).
const FIRST_BUILD: Duration = Duration::from_secs(1200);

impl Poll {
    /// `cargo labs poll serve --listen 127.0.0.1:0 --db DB ARGS…` from the teacher's edition.
    pub fn start(db: &Path, args: &[&str]) -> Poll {
        let mut command = common::cli(
            &common::repo(),
            &["poll", "serve", "--listen", "127.0.0.1:0"],
        );
        command.arg("--db").arg(db).args(args);
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (lines, from_server) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let mut banner = String::new();
        while let Ok(line) = from_server.recv_timeout(FIRST_BUILD) {
            banner.push_str(&line);
            banner.push('\n');
            if line.starts_with("Ctrl-C stops the poll") {
                break;
            }
        }
        if !banner.contains("Ctrl-C stops the poll") {
            let _ = child.kill();
            let mut stderr = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
            panic!("`poll serve` did not start:\n{banner}\n{stderr}");
        }
        let field = |name: &str| {
            let line = banner.lines().find_map(|l| l.strip_prefix(name)).unwrap();
            line.split_whitespace().next().unwrap().to_string()
        };
        let url = field("learners' URL: ");
        let page = field("teacher's page: ");
        Poll {
            child,
            endpoint: Endpoint::parse(&url).unwrap(),
            code: field("class code: "),
            teacher: page[page.find("/teacher/").unwrap()..].to_string(),
            db: db.to_path_buf(),
            banner,
        }
    }

    pub fn url(&self) -> String {
        self.endpoint.url("")
    }

    pub fn get(&self, path: &str) -> Reply {
        http::request(&self.endpoint, "GET", path, "text/plain", b"").unwrap()
    }

    pub fn post(&self, path: &str, content_type: &str, body: &[u8]) -> Reply {
        http::request(&self.endpoint, "POST", path, content_type, body).unwrap()
    }

    pub fn vote(&self, vote: &Vote) -> Reply {
        self.post(
            "/votes",
            "application/json",
            &serde_json::to_vec(vote).unwrap(),
        )
    }

    /// A teacher's action (`labs/01/rounds/1/close`, `labs/01/reveal`): 303 when done.
    pub fn teacher_action(&self, action: &str) -> Reply {
        self.post(
            &format!("{}{action}", self.teacher),
            "application/x-www-form-urlencoded",
            b"",
        )
    }

    /// Bytes written as they are, and whatever comes back before the server closes.
    pub fn raw(&self, bytes: &[u8]) -> String {
        let mut stream =
            std::net::TcpStream::connect((self.endpoint.host.as_str(), self.endpoint.port))
                .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.write_all(bytes).unwrap();
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// (learners, votes, answers) as the database holds them.
    pub fn counts(&self) -> (i64, i64, i64) {
        counts(&self.db)
    }

    /// Ends the server and waits for it (the process this test started, by its handle).
    pub fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Poll {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn counts(db: &Path) -> (i64, i64, i64) {
    let conn = workbook::poll::db::open_for_reading(db).unwrap();
    let count = |table: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    (count("learners"), count("votes"), count("answers"))
}

/// The lab of this workbook with id `id`.
pub fn lab(id: &str) -> workbook::meta::Lab {
    common::every_lab()
        .into_iter()
        .find(|l| l.meta.id == id)
        .unwrap()
}

/// A well-formed vote for `lab` from `name`.
pub fn vote(
    poll: &Poll,
    lab: &workbook::meta::Lab,
    name: &str,
    round: Round,
    answers: &[(&str, Choice)],
) -> Vote {
    Vote {
        code: poll.code.clone(),
        lab: lab.meta.id.clone(),
        items: items_digest(lab),
        round,
        name: name.to_string(),
        token: None,
        answers: answers.iter().map(|(id, c)| (id.to_string(), *c)).collect(),
    }
}

/// The receipt of an accepted vote; any other answer fails the test with its body.
pub fn accepted(reply: &Reply) -> Receipt {
    assert_eq!(reply.status, 200, "{}", reply.body);
    serde_json::from_str(&reply.body).unwrap()
}

/// The Chromium binary (`CHROMIUM`, or the usual names); `None`, said, when missing.
pub fn chromium() -> Option<String> {
    if let Some(found) = find_chromium() {
        return Some(found);
    }
    assert!(
        !in_ci(),
        "CI must have chromium installed (apt-get install -y chromium; see .ci/run)"
    );
    println!(
        "skipped: the teacher's page in a browser (chromium is not installed: apt-get install -y chromium)"
    );
    None
}

/// The page at `url` as headless Chromium renders it, after its scripts ran.
pub fn dump_dom(chromium: &str, url: &str) -> String {
    let profile = common::scratch_dir("poll-chromium");
    let out = std::process::Command::new(chromium)
        .args(browser::flags(&profile, 1280, 1700))
        .arg("--dump-dom")
        .arg(url)
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    assert!(out.status.success(), "chromium --dump-dom {url} failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Text as a reader sees it: tags dropped, whitespace collapsed.
pub fn visible_text(html: &str) -> String {
    let text = without_tags(html)
        .replace("&amp;", "&")
        .replace("&#39;", "'")
        .replace("&quot;", "\"");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
