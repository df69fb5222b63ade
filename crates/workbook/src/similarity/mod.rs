//! Code that was copied: which learner files of a class share too much of their code
//! with each other, with the reference solution or with a catalogue entry.
//!
//! Each file is read as Rust tokens and normalised (every identifier one class, every
//! literal its kind, keywords and punctuation kept; spacing, comments, commas and the
//! braces rustfmt adds or drops are gone), and no run of tokens spans two top-level
//! items, so renaming, reformatting and reordering items change nothing. Runs of `k`
//! tokens are hashed and winnowed into fingerprints, as MOSS does (Schleimer, Wilkerson
//! and Aiken, SIGMOD 2003). The starter is text every learner begins with: a k-gram it
//! holds is never a fingerprint. A file that does not lex is compared with nothing (it
//! does not build either).
//!
//! Two documents are paired when they share at least `threshold` of the fingerprints of
//! the one with fewer, and the matched stretches cover at least `min_matched_tokens`
//! tokens outside the starter in each. A pair is a reason to read two files side by
//! side, not a verdict: the regions say where to look. This module does no I/O; the
//! caller reads the files.

mod tokens;
mod winnow;

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::ops::Range;

/// One learner file's text and whose it is: a learner, `reference` for the reference
/// solution, or `catalogue:<name>` for an entry of the catalogue of wrong solutions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Document {
    pub owner: String,
    /// The learner file, as lab.toml names it (`src/relay.rs`).
    pub file: String,
    pub text: String,
}

impl Document {
    pub fn new(owner: impl Into<String>, file: impl Into<String>, text: impl Into<String>) -> Self {
        Document {
            owner: owner.into(),
            file: file.into(),
            text: text.into(),
        }
    }
}

/// How documents are compared, and when two of them make a pair. The defaults were
/// measured on ten solutions per learner file written apart, and on disguised copies
/// (book/src/teaching.md, "Code that was copied").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Settings {
    /// Tokens in a k-gram: a shared stretch shorter than this is never seen. One
    /// normalised line (`let x = self.f(&y)?;`) is about 12 tokens; a stretch of 15 is
    /// more than one idiom every solution writes.
    pub k: usize,
    /// Hashes in a winnowing window: every shared stretch of `k + window - 1` tokens
    /// (24, about two lines) is found.
    pub window: usize,
    /// The least share (matched fingerprints over the fingerprints of the document with
    /// fewer) that makes a pair. Renamed, reformatted and reordered copies kept 0.93 or
    /// more of their fingerprints; solutions of the small labs written apart reached
    /// 0.89, because a 20-line task leaves little choice.
    pub threshold: f64,
    /// The least number of tokens, outside the starter, the matched stretches cover in
    /// each document. Solutions written apart reached a share of 1.0 on 24 tokens (a
    /// two-line fix of the starter that every right answer makes); the smallest copy
    /// measured covered 61.
    pub min_matched_tokens: usize,
}

impl Default for Settings {
    /// Measured defaults; first fixed at threshold 0.5 and 60 tokens, which named pairs
    /// of independent solutions in five labs.
    fn default() -> Self {
        Settings {
            k: 15,
            window: 10,
            threshold: 0.9,
            min_matched_tokens: 50,
        }
    }
}

/// Lines `first..=last` (1-based) of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Lines {
    pub first: usize,
    pub last: usize,
}

/// Two documents and what they share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// Owners: two learners in name order, or a learner and a reference, in that order.
    pub left: String,
    pub right: String,
    pub file: String,
    /// `matched_fingerprints / fingerprints`, from 0 to 1.
    pub share: f64,
    pub matched_fingerprints: usize,
    /// The fingerprints (not in the starter) of the document with fewer of them.
    pub fingerprints: usize,
    /// Tokens, outside the starter's stretches, in runs of at least `k` tokens that both
    /// documents hold: of the two counts, the smaller.
    pub matched_tokens: usize,
    /// Where the matched stretches are, merged, in each document.
    pub left_lines: Vec<Lines>,
    pub right_lines: Vec<Lines>,
}

impl Pair {
    /// Whether this pair is reported under `settings`.
    pub fn is_named(&self, settings: &Settings) -> bool {
        self.share >= settings.threshold && self.matched_tokens >= settings.min_matched_tokens
    }
}

/// The pairs to report for one learner file of one lab, most similar first: every two
/// submissions, and every submission against every reference, that reach the threshold
/// and the minimum of `settings`. `starter` is the file as published: what it holds never
/// counts as shared. The result does not depend on the order of the documents.
pub fn pairs(
    submissions: &[Document],
    starter: &str,
    references: &[Document],
    settings: &Settings,
) -> Vec<Pair> {
    let mut named = every_pair(submissions, starter, references, settings);
    named.retain(|pair| pair.is_named(settings));
    named
}

/// Every comparison `pairs` makes, named or not (to measure the detector), most similar
/// first. Two documents where one has no fingerprint outside the starter give no pair.
pub fn every_pair(
    submissions: &[Document],
    starter: &str,
    references: &[Document],
    settings: &Settings,
) -> Vec<Pair> {
    let starter = starter_kgrams(starter, settings.k);
    let submissions = prepare(submissions, &starter, settings);
    let references = prepare(references, &starter, settings);
    let mut found = Vec::new();
    for (i, left) in submissions.iter().enumerate() {
        for right in submissions[i + 1..].iter().chain(&references) {
            found.extend(compare(left, right, settings.k));
        }
    }
    found.sort_by(|a, b| {
        (b.share.total_cmp(&a.share))
            .then(b.matched_tokens.cmp(&a.matched_tokens))
            .then_with(|| (&a.left, &a.right).cmp(&(&b.left, &b.right)))
    });
    found
}

/// The lines of `text` that hold tokens outside every stretch of the starter: what its
/// author wrote. A measure of how much of a file is a learner's own, and what the regions
/// of a pair of complete copies should cover.
pub fn own_lines(text: &str, starter: &str, settings: &Settings) -> Vec<Lines> {
    let starter = starter_kgrams(starter, settings.k);
    let document = Document::new("", "", text);
    let prepared = fingerprint(&document, &starter, settings);
    let own: Vec<bool> = prepared.starter_tokens.iter().map(|s| !s).collect();
    merged_lines(&own, &prepared.lines)
}

fn starter_kgrams(starter: &str, k: usize) -> BTreeSet<u64> {
    let read = tokens::read(starter);
    (winnow::kgram_hashes(&read.codes, &read.items, k).into_iter())
        .flatten()
        .collect()
}

/// A document read and fingerprinted.
struct Prepared<'a> {
    document: &'a Document,
    lines: Vec<usize>,
    /// Its winnowed hashes, the starter's left out.
    fingerprints: BTreeSet<u64>,
    /// The document's k-grams (`None` across two items), and the set of those the
    /// starter does not hold.
    hashes: Vec<Option<u64>>,
    own: BTreeSet<u64>,
    /// The tokens inside a stretch of the starter: they are never counted as matched,
    /// even where a matched k-gram that runs into the learner's code covers them.
    starter_tokens: Vec<bool>,
}

/// The documents in a fixed order (owner, file, text), whatever order they came in.
fn prepare<'a>(
    documents: &'a [Document],
    starter: &BTreeSet<u64>,
    settings: &Settings,
) -> Vec<Prepared<'a>> {
    let mut sorted: Vec<&Document> = documents.iter().collect();
    sorted.sort();
    (sorted.into_iter())
        .map(|document| fingerprint(document, starter, settings))
        .collect()
}

fn fingerprint<'a>(
    document: &'a Document,
    starter: &BTreeSet<u64>,
    settings: &Settings,
) -> Prepared<'a> {
    let read = tokens::read(&document.text);
    let hashes = winnow::kgram_hashes(&read.codes, &read.items, settings.k);
    let mut starter_tokens = vec![false; read.codes.len()];
    for (start, hash) in hashes.iter().enumerate() {
        if hash.is_some_and(|h| starter.contains(&h)) {
            starter_tokens[start..start + settings.k].fill(true);
        }
    }
    let own: Vec<Option<u64>> = (hashes.iter())
        .map(|h| h.filter(|h| !starter.contains(h)))
        .collect();
    Prepared {
        document,
        lines: read.lines,
        fingerprints: (winnow::winnow(&own, settings.window).into_iter())
            .map(|(_, hash)| hash)
            .collect(),
        own: own.into_iter().flatten().collect(),
        hashes,
        starter_tokens,
    }
}

fn compare(left: &Prepared, right: &Prepared, k: usize) -> Option<Pair> {
    let fingerprints = left.fingerprints.len().min(right.fingerprints.len());
    if fingerprints == 0 {
        return None;
    }
    let matched = left.fingerprints.intersection(&right.fingerprints).count();
    let (left_tokens, left_lines) = covered(left, right, k);
    let (right_tokens, right_lines) = covered(right, left, k);
    Some(Pair {
        left: left.document.owner.clone(),
        right: right.document.owner.clone(),
        file: left.document.file.clone(),
        share: matched as f64 / fingerprints as f64,
        matched_fingerprints: matched,
        fingerprints,
        matched_tokens: left_tokens.min(right_tokens),
        left_lines,
        right_lines,
    })
}

/// How many tokens of `document`, outside the starter's stretches, lie in a k-gram that
/// `other` holds too, and on which lines (merged ranges). Every k-gram counts here, not
/// only fingerprints: winnowing samples, and a region should end where the copy ends.
fn covered(document: &Prepared, other: &Prepared, k: usize) -> (usize, Vec<Lines>) {
    let mut cover = vec![false; document.lines.len()];
    for (start, hash) in document.hashes.iter().enumerate() {
        if hash.is_some_and(|h| other.own.contains(&h)) {
            cover[start..start + k].fill(true);
        }
    }
    for (token, starter) in cover.iter_mut().zip(&document.starter_tokens) {
        *token &= !starter;
    }
    let count = cover.iter().filter(|c| **c).count();
    (count, merged_lines(&cover, &document.lines))
}

/// The lines of the flagged tokens, as merged ranges (`lines[i]` is token i's line).
fn merged_lines(flags: &[bool], lines: &[usize]) -> Vec<Lines> {
    let mut merged: Vec<Lines> = Vec::new();
    for run in runs(flags) {
        let next = Lines {
            first: lines[run.start],
            last: lines[run.end - 1],
        };
        match merged.last_mut() {
            Some(last) if next.first <= last.last + 1 => last.last = last.last.max(next.last),
            _ => merged.push(next),
        }
    }
    merged
}

/// The maximal runs of `true` in `flags`.
fn runs(flags: &[bool]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut start = None;
    for (i, flag) in flags.iter().chain([&false]).enumerate() {
        match (flag, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                found.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_maximal() {
        assert_eq!(runs(&[true, true, false, true]), [0..2, 3..4]);
        assert!(runs(&[false]).is_empty());
    }

    #[test]
    fn a_copy_is_paired_and_the_starter_discounted() {
        let body = "fn f(a: u32) -> u32 {\n    let mut s = 0;\n    for i in 0..a {\n        if i % 3 == 0 { s += i * 2; } else { s ^= i; }\n    }\n    s\n}\n";
        let starter = "fn g(x: u32) -> Option<u32> {\n    todo!(\"g\")\n}\n";
        let one = Document::new("ann", "src/f.rs", format!("{starter}{body}"));
        let two = Document::new("bo", "src/f.rs", format!("{starter}\n\n{body}"));
        let settings = Settings {
            min_matched_tokens: 20,
            ..Settings::default()
        };
        let found = pairs(&[two, one], starter, &[], &settings);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].left.as_str(), found[0].right.as_str()),
            ("ann", "bo")
        );
        assert_eq!(found[0].share, 1.0);
        assert_eq!(found[0].left_lines, [Lines { first: 4, last: 10 }]);
        assert_eq!(found[0].right_lines, [Lines { first: 6, last: 12 }]);
        let only_starter = Document::new("cy", "src/f.rs", starter);
        assert!(
            every_pair(
                &[only_starter.clone(), only_starter],
                starter,
                &[],
                &settings
            )
            .is_empty()
        );
    }
}
