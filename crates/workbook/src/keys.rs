//! The student edition's `key.txt`: a lab's answer keys, explanations and hints, and
//! the teacher's names of its items (each check's claim and the sense of its `yes`, each
//! question's id),
//! scrambled so that a learner who opens it reads nothing. This is not secrecy — the CLI
//! that unscrambles it ships beside it — only a fence: an answer can be had before the
//! seal by decoding on purpose, never by reading.
//!
//! The format: a comment, a version line, then base64 (RFC 4648) of the key's TOML XOR a
//! SplitMix64 stream seeded with the FNV-1a hash of `boundary-labs key v1:<lab id>`.

use crate::meta::LabKey;
use labkit::fault::Rng;
use labkit::hash::Fnv64;

const VERSION: &str = "boundary-labs key v1";

fn keystream(lab_id: &str) -> Rng {
    let mut seed = Fnv64::new();
    seed.write(format!("{VERSION}:{lab_id}").as_bytes());
    Rng::new(seed.finish())
}

fn scramble(lab_id: &str, bytes: &[u8]) -> Vec<u8> {
    let mut stream = keystream(lab_id);
    let mut word = [0u8; 8];
    bytes
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if i % 8 == 0 {
                word = stream.next_u64().to_le_bytes();
            }
            b ^ word[i % 8]
        })
        .collect()
}

/// The text of `key.txt` for lab `lab_id`.
pub fn encode(lab_id: &str, key: &LabKey) -> String {
    let plain = toml::to_string(key).unwrap_or_default();
    seal(
        "# The answer keys, explanations and hints of this lab, scrambled so that opening\n\
         # this file spoils nothing. `cargo labs run` explains each answer after your\n\
         # predictions are sealed; `cargo labs hint` shows the hints one at a time.\n",
        VERSION,
        lab_id,
        plain.as_bytes(),
    )
}

/// `bytes` scrambled under `seed`, as base64 lines after the comment `head` and the
/// `version` line: the form of `key.txt` and of a scrambled page.
fn seal(head: &str, version: &str, seed: &str, bytes: &[u8]) -> String {
    let coded = base64_encode(&scramble(seed, bytes));
    let mut out = format!("{head}{version}\n");
    for line in coded.as_bytes().chunks(76) {
        out.push_str(&String::from_utf8_lossy(line));
        out.push('\n');
    }
    out
}

/// What [`seal`] wrote under `version` and `seed`, read back; errors name the file `what`.
fn unseal(what: &str, version: &str, seed: &str, text: &str) -> Result<String, String> {
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    if lines.next().map(str::trim) != Some(version) {
        return Err(format!("{what} does not start with `{version}`"));
    }
    let coded: String = lines.map(str::trim).collect();
    let bytes = base64_decode(&coded).ok_or(format!("{what} is damaged (not base64)"))?;
    String::from_utf8(scramble(seed, &bytes))
        .map_err(|_| format!("{what} is damaged, or belongs to another lab"))
}

/// Reads `key.txt` back. Errors say what is wrong with the file.
pub fn decode(lab_id: &str, text: &str) -> Result<LabKey, String> {
    let plain = unseal("key.txt", VERSION, lab_id, text)?;
    toml::from_str(&plain).map_err(|e| format!("key.txt is damaged: {e}"))
}

const PAGE_VERSION: &str = "boundary-labs page v2";

/// A chapter's page after the run as the student edition carries it: the page, and the
/// files only it shows (its figures and generated text, which say what the run showed),
/// by their paths under `book/src`, as base64.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct AfterTheRun {
    /// The page's Markdown.
    pub page: String,
    /// `figures/04-writes-per-split.md` → its bytes, base64.
    pub files: std::collections::BTreeMap<String, String>,
}

/// The line that marks a chapter's page after the run as the student edition's stand-in:
/// the page itself travels scrambled in the lab's [`PAGE_FILE`](crate::meta::PAGE_FILE).
pub const PAGE_STUB: &str = "<!-- boundary-labs: this page opens after the run -->";

/// The student edition's stand-in for lab `number`'s page after the run.
pub fn page_stub(number: &str) -> String {
    format!(
        "# After the run\n\n{PAGE_STUB}\n\nThis page opens once your predictions for lab {number} are sealed: `cargo labs predict {number}`, then `cargo labs run {number}`. After that `cargo labs read {number}` shows it in the terminal, and `cargo labs book` builds it into the book.\n"
    )
}

/// The scrambled text of a chapter's page after the run and its figures, for lab
/// `lab_id`.
pub fn encode_page(lab_id: &str, after: &AfterTheRun) -> String {
    seal(
        "# The chapter's page after the run and its figures, scrambled so that opening this\n\
         # file spoils nothing. `cargo labs read` and `cargo labs book` show them once your\n\
         # predictions are sealed.\n",
        PAGE_VERSION,
        &format!("page:{lab_id}"),
        serde_json::to_string(after).unwrap_or_default().as_bytes(),
    )
}

/// Reads a scrambled page back. Errors say what is wrong with the file.
pub fn decode_page(lab_id: &str, text: &str) -> Result<AfterTheRun, String> {
    let plain = unseal("the page", PAGE_VERSION, &format!("page:{lab_id}"), text)?;
    serde_json::from_str(&plain).map_err(|e| format!("the page is damaged: {e}"))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648), with padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The inverse of [`base64_encode`]; `None` for anything that is not base64.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut bits = 0u32;
    let mut count = 0;
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|&a| a == c)? as u32;
        bits = bits << 6 | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::{CheckKey, QuestionKey, YesIf};

    #[test]
    fn base64_matches_rfc_4648_test_vectors_both_ways() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_encode(plain.as_bytes()), encoded);
            assert_eq!(base64_decode(encoded).unwrap(), plain.as_bytes());
        }
        assert_eq!(base64_decode("Zm9v!"), None);
    }

    #[test]
    fn a_page_and_its_figures_survive_the_round_trip_and_read_as_nothing() {
        let after = AfterTheRun {
            page: "## What the run shows\n\nThe plain writer lost 97 rows.\n".into(),
            files: [(
                "figures/10-signals.md".to_string(),
                base64_encode(b"| lost | 97 |"),
            )]
            .into(),
        };
        let coded = encode_page("topic-to-table", &after);
        assert!(!coded.contains("97") && !coded.contains("lost") && !coded.contains("signals"));
        let back = decode_page("topic-to-table", &coded).unwrap();
        assert_eq!(back.page, after.page);
        assert_eq!(back.files, after.files);
        assert!(decode_page("outbox", &coded).is_err(), "another lab's seed");
    }

    #[test]
    fn a_key_survives_the_round_trip_and_reads_as_nothing() {
        let key = LabKey {
            checks: vec![CheckKey {
                ask: "Is the receipt there?".into(),
                claim: "receipt survives rollback".into(),
                yes_if: YesIf::Fails,
                holds: true,
                explain: "The receipt lives outside the database.".into(),
            }],
            questions: vec![QuestionKey {
                id: "after-abort".into(),
                prompt: "What remains?".into(),
                answer: "c".into(),
                explain: "The row rolled back; the receipt did not.".into(),
            }],
            hints: vec!["Look up the identity first.".into()],
            diagnoses: Vec::new(),
        };
        let text = encode("outbox", &key);
        assert_eq!(decode("outbox", &text).unwrap(), key);
        let coded: String = text.lines().filter(|l| !l.starts_with('#')).collect();
        for secret in [
            "receipt",
            "survives",
            "outside",
            "holds",
            "fails",
            "answer",
            "identity",
            "true",
            "after-abort",
        ] {
            assert!(
                !coded.contains(secret),
                "`{secret}` is readable in:\n{text}"
            );
        }
        assert!(decode("another-lab", &text).is_err());
    }
}
