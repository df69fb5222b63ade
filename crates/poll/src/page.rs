//! The teacher's page: per lab and item, round 1 and round 2 side by side, each answer's
//! count and share as a bar; the right answers and explanations only for a lab the
//! teacher revealed. The page fetches its board again every two seconds; the buttons
//! are plain forms, so closing a round works without scripts too. And the one text a
//! learner can read: what `GET /` says.

use crate::error::Result;
use crate::routes::State;
use crate::store::{RoundTally, Tally, index};
use workbook::meta::{Lab, item_id};
use workbook::poll::wire::{Choice, Round};

/// Each polled lab with its tally.
pub fn tallies(state: &State) -> Result<Vec<(&Lab, Tally)>> {
    let store = state.store.lock().expect("the store's lock");
    (state.labs.iter())
        .map(|lab| Ok((lab, store.tally(&lab.meta.id)?)))
        .collect()
}

/// The lab in a learner's command: its number when one lab is polled, else `N`.
pub fn lab_argument(state: &State) -> String {
    match state.labs.as_slice() {
        [lab] => lab.meta.number.clone(),
        _ => "N".into(),
    }
}

/// The command a learner types to send, as the teacher shows it.
fn send_command(state: &State) -> String {
    let host = match state.listen.ip() {
        ip if ip.is_unspecified() => format!("THIS-MACHINE:{}", state.listen.port()),
        _ => state.listen.to_string(),
    };
    format!(
        "cargo labs predict {} --send http://{host} --code {} --name \"Your Name\"",
        lab_argument(state),
        state.identity.code
    )
}

/// `GET /`: what this is and how to send to it; no class code, no key.
pub fn learner_text(state: &State) -> String {
    let labs: Vec<&str> = state.labs.iter().map(|l| l.meta.number.as_str()).collect();
    format!(
        "Boundary Labs: a live poll of predictions (lab {}).\n\n\
         Send your current answers from your workbook, with the class code your teacher shows:\n\n  \
         cargo labs predict N --send http://ADDRESS-OF-THIS-PAGE --code CODE --name \"Your Name\"\n\n\
         Round 1 is your own answer, before the discussion (the default). After the discussion,\n\
         answer again in predictions.txt and send with --round 2. Sending again replaces your vote\n\
         for that round until the teacher closes it.\n",
        labs.join(", ")
    )
}

/// `text` as HTML, with the book's inline code (between backticks) shown as code, as the
/// book shows it; an unpaired backtick stays as it is.
pub fn text_with_code(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    let mut out = String::with_capacity(text.len());
    for (i, part) in parts.iter().enumerate() {
        // Inside code when a backtick closes it: an odd part before the last.
        match (i % 2 == 1, i + 1 < parts.len()) {
            (true, true) => out.push_str(&format!("<code>{}</code>", escape(part))),
            (true, false) => out.push_str(&format!("`{}", escape(part))),
            (false, _) => out.push_str(&escape(part)),
        }
    }
    out
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:15px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
code{background:#f3f3f3;padding:0 .3em}table{border-collapse:collapse;width:100%}\
td,th{border-bottom:1px solid #ddd;padding:.35em .5em;vertical-align:top;text-align:left}\
td.r1,td.r2{width:22%}.bar{position:relative;white-space:nowrap}\
.bar i{position:absolute;left:0;top:0;bottom:0;background:#9cc3f0;opacity:.45;z-index:-1}\
.bar.right{font-weight:bold}.bar.right i{background:#5cb85c}.opt{color:#555;font-size:90%}\
tr.split td:first-child::after{content:' split';color:#b35c00;font-size:80%}\
tr.key td{background:#f2fbf2}form{display:inline}.controls{margin:.5em 0 1em}\
.round{margin-right:1em}#status{color:#777}";

/// The whole page; its script swaps the board for a fresh one every two seconds.
pub fn teacher_page(state: &State, tallies: &[(&Lab, Tally)]) -> String {
    let token = &state.identity.teacher_token;
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <title>Poll {code} · Boundary Labs</title><style>{STYLE}</style></head><body>\n\
         <header><h1>Class code <code id=\"code\">{code}</code></h1>\
         <p>Learners send with <code>{send}</code> (after the discussion: <code>--round 2</code>).</p>\
         <p class=\"legend\">Each bar counts the learners who answered the item, with its share of them (those who left it \
         blank are counted apart). <b>split</b>: round 1 gave two answers or more and none had 70 % of them, the items to \
         discuss. Revealing a lab's answers closes its rounds.</p>\
         <p id=\"status\">live: refreshed every 2 s</p></header>\n\
         <main id=\"board\">{board}</main>\n\
         <script>\nconst board = document.getElementById('board');\n\
         const status = document.getElementById('status');\n\
         async function refresh() {{\n  try {{\n\
             const reply = await fetch('/teacher/{token}/board', {{ cache: 'no-store' }});\n\
             if (!reply.ok) throw new Error('HTTP ' + reply.status);\n\
             board.innerHTML = await reply.text();\n\
             status.textContent = 'live: updated ' + new Date().toLocaleTimeString();\n\
           }} catch (e) {{\n    status.textContent = 'the poll does not answer (' + e.message + '); trying again';\n  }}\n}}\n\
         setInterval(refresh, 2000);\n</script></body></html>\n",
        code = escape(&state.identity.code),
        send = escape(&send_command(state)),
        board = board(state, tallies),
    )
}

/// Every polled lab's section.
pub fn board(state: &State, tallies: &[(&Lab, Tally)]) -> String {
    let base = format!("/teacher/{}", state.identity.teacher_token);
    tallies
        .iter()
        .map(|(lab, tally)| lab_section(&base, lab, tally))
        .collect()
}

fn lab_section(base: &str, lab: &Lab, tally: &Tally) -> String {
    let n = escape(&lab.meta.number);
    let id = escape(&lab.meta.id);
    let mut out = format!(
        "<section class=\"lab\" id=\"lab-{n}\"><h2>Lab {n} · {}</h2><div class=\"controls\">",
        escape(&lab.meta.title)
    );
    for round in Round::BOTH {
        out.push_str(&round_control(base, &n, &id, round, tally));
    }
    let (action, label) = if tally.revealed {
        ("hide", "Hide the answers")
    } else {
        ("reveal", "Reveal the answers (closes the rounds)")
    };
    out.push_str(&format!(
        "<form method=\"post\" action=\"{base}/labs/{id}/{action}\"><button>{label}</button></form></div>\
         <table><thead><tr><th>item</th><th>question</th><th>round 1 (alone)</th><th>round 2 (after discussion)</th></tr></thead><tbody>"
    ));
    let right = lab.right_answers();
    for index in 0..lab.prediction_count() {
        let id = item_id(index);
        let key = tally
            .revealed
            .then(|| right.get(&id).and_then(Choice::of))
            .flatten();
        out.push_str(&item_rows(lab, index, tally, key));
    }
    out.push_str("</tbody></table></section>\n");
    out
}

fn round_control(base: &str, n: &str, id: &str, round: Round, tally: &Tally) -> String {
    let this = &tally.rounds[index(round)];
    let votes = format!(
        "{} vote{}",
        this.voters,
        if this.voters == 1 { "" } else { "s" }
    );
    let first_open = round == Round::One || tally.rounds[0].closed_at.is_some();
    let (state, button) = match (&this.closed_at, first_open) {
        (Some(at), _) => (format!("closed at {}", escape(at)), String::new()),
        (None, true) => (
            "open".to_string(),
            format!(
                "<form method=\"post\" action=\"{base}/labs/{id}/rounds/{round}/close\"><button>Close round {round}</button></form>"
            ),
        ),
        (None, false) => ("opens when round 1 closes".to_string(), String::new()),
    };
    format!(
        "<span class=\"round\" id=\"lab-{n}-round-{round}\">Round {round}: {state} · {votes}</span>{button} "
    )
}

/// An item's row (its question, both distributions), and its key's row when revealed.
fn item_rows(lab: &Lab, index: usize, tally: &Tally, key: Option<Choice>) -> String {
    let id = item_id(index);
    let checks = lab.meta.checks.len();
    let (question, choices) = match lab.meta.checks.get(index) {
        Some(check) => (text_with_code(&check.ask), vec![Choice::Yes, Choice::No]),
        None => {
            let q = &lab.meta.questions[index - checks];
            let options: String = (q.options.iter())
                .map(|(l, text)| {
                    let text = text_with_code(text);
                    format!("<div class=\"opt\">{}) {text}</div>", escape(l))
                })
                .collect();
            let letters = q
                .options
                .keys()
                .filter_map(|l| Choice::try_from(l.clone()).ok());
            (
                format!("{}{options}", text_with_code(&q.prompt)),
                letters.collect(),
            )
        }
    };
    let split = is_split(tally.rounds[0].counts.get(&id));
    let mut out = format!(
        "<tr id=\"lab-{}-{id}\"{}><td>{id}</td><td>{question}</td>",
        escape(&lab.meta.number),
        if split { " class=\"split\"" } else { "" }
    );
    for (round, class) in [(&tally.rounds[0], "r1"), (&tally.rounds[1], "r2")] {
        // Round 2 opens when round 1 closes: before that its bars would read as 0 %.
        let cell = if class == "r2" && tally.rounds[0].closed_at.is_none() {
            "<span class=\"n\">opens when round 1 closes</span>".to_string()
        } else {
            distribution(round, &id, &choices, key)
        };
        out.push_str(&format!("<td class=\"{class}\">{cell}</td>"));
    }
    out.push_str("</tr>");
    if let Some(key) = key {
        out.push_str(&key_row(lab, index, key));
    }
    out
}

/// Round 1 split the class: two answers or more, and none taken by 70 % of them (the
/// items peer instruction discusses).
fn is_split(counts: Option<&std::collections::BTreeMap<Choice, usize>>) -> bool {
    let Some(counts) = counts else { return false };
    let total: usize = counts.values().sum();
    let top = counts.values().max().copied().unwrap_or(0);
    total >= 2 && top * 10 < total * 7
}

fn distribution(round: &RoundTally, id: &str, choices: &[Choice], key: Option<Choice>) -> String {
    let counts = round.counts.get(id);
    let total: usize = counts.map_or(0, |c| c.values().sum());
    let mut out = String::new();
    for choice in choices {
        let n = counts.and_then(|c| c.get(choice)).copied().unwrap_or(0);
        // Rounded to the nearest percent; no answer yet is 0 %.
        let pct = (n * 100 + total / 2).checked_div(total).unwrap_or(0);
        let right = if key == Some(*choice) { " right" } else { "" };
        out.push_str(&format!(
            "<div class=\"bar{right}\"><span class=\"label\">{choice}</span> <span class=\"n\">{n}</span> <span class=\"pct\">{pct}%</span><i style=\"width:{pct}%\"></i></div>"
        ));
    }
    // The learners who voted in the round but left this item blank, counted apart.
    let blank = round.voters.saturating_sub(total);
    if blank > 0 {
        out.push_str(&format!(
            "<div class=\"blank\"><span class=\"n\">{blank}</span> left it blank</div>"
        ));
    }
    out
}

fn key_row(lab: &Lab, index: usize, key: Choice) -> String {
    let checks = lab.meta.checks.len();
    let (title, explain) = match lab.key.checks.get(index) {
        Some(check) => (
            format!(" · {}", text_with_code(&check.claim)),
            &check.explain,
        ),
        None => (String::new(), &lab.key.questions[index - checks].explain),
    };
    format!(
        "<tr class=\"key\"><td></td><td colspan=\"3\"><b>Answer: {key}</b>{title}<br>{}</td></tr>",
        text_with_code(explain)
    )
}
