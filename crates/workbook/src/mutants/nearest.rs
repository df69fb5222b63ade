//! The diagnosis `check` prints: the catalogue entries nearest to how a learner's run
//! failed, from what the failure shows — which graded tests fail, and which invariants
//! they break, the first failing test's above all. A wrong protocol rarely fails exactly
//! as the catalogue's mutant does (one test more or fewer), so an exact signature is not
//! required: an entry is a candidate when the run breaks the invariant its mutant breaks
//! first and shares a fair part of its failing tests (or, for a failure without any
//! invariant, fails the very same tests), and the candidates are ranked by the tests both
//! fail, each weighted by how rarely the lab's catalogue fails it (a test every mistake
//! fails says little), and by whether the run breaks that invariant first. When no entry
//! is a candidate, the diagnosis says so.

use crate::grade::SuiteRun;
use crate::meta::{Diagnosis, Lab};
use std::collections::BTreeSet;

/// How close a catalogue entry is to a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Nearest<'a> {
    pub diagnosis: &'a Diagnosis,
    /// The run failed exactly as the entry's mutant does: the same tests, the same first
    /// invariant.
    pub exact: bool,
    /// The invariant the entry's mutant breaks first, when the run breaks it too.
    pub invariant: Option<&'a str>,
    /// Whether the run's first failing test breaks that invariant (not a later one).
    pub first: bool,
    /// How many of the run's failing tests the entry's mutant fails too.
    pub shared_tests: usize,
    /// The score the entries are ranked by.
    pub score: f64,
}

/// What a failing run shows: its failing tests, in the suite's order, and the invariant
/// each breaks (`None` for a plain assertion).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Failure {
    pub fails: Vec<String>,
    pub invariants: Vec<Option<String>>,
}

impl Failure {
    pub fn of(run: &SuiteRun) -> Failure {
        let failing: Vec<_> = run.tests.iter().filter(|t| !t.passed()).collect();
        Failure {
            fails: failing.iter().map(|t| t.name.clone()).collect(),
            invariants: (failing.iter())
                .map(|t| super::reported_invariant(&t.output))
                .collect(),
        }
    }

    fn first_invariant(&self) -> Option<&str> {
        self.invariants.first().and_then(|i| i.as_deref())
    }
}

/// How much a failing test says about which mistake was made: little when every entry of
/// the catalogue fails it, more the fewer do (an inverse document frequency).
fn weight(test: &str, catalogue: &[Diagnosis]) -> f64 {
    let failing = catalogue
        .iter()
        .filter(|d| d.signature.fails.iter().any(|f| f == test))
        .count();
    ((catalogue.len() + 1) as f64 / (failing + 1) as f64).ln() + 0.1
}

/// One entry against the run: `None` when the entry is no candidate.
fn compare<'a>(
    diagnosis: &'a Diagnosis,
    seen: &Failure,
    catalogue: &[Diagnosis],
) -> Option<Nearest<'a>> {
    let ours: BTreeSet<&str> = seen.fails.iter().map(String::as_str).collect();
    let theirs: BTreeSet<&str> = (diagnosis.signature.fails.iter())
        .map(String::as_str)
        .collect();
    let sum = |tests: &mut dyn Iterator<Item = &&str>| -> f64 {
        tests.map(|t| weight(t, catalogue)).sum()
    };
    let both = sum(&mut ours.intersection(&theirs));
    let either = sum(&mut ours.union(&theirs));
    let overlap = if either > 0.0 { both / either } else { 0.0 };
    let invariant = diagnosis.signature.invariant.as_deref();
    let first = invariant.is_some() && invariant == seen.first_invariant();
    let broken = invariant.filter(|i| seen.invariants.iter().flatten().any(|s| s == i));
    let exact = ours == theirs && invariant == seen.first_invariant();
    // Near enough: the same broken invariant and a fair share of the telling tests.
    let near = broken.is_some() && overlap >= MIN_OVERLAP;
    if !exact && !near {
        return None;
    }
    let score = overlap
        + if first {
            1.0
        } else if broken.is_some() {
            0.5
        } else {
            0.0
        };
    Some(Nearest {
        diagnosis,
        exact,
        invariant: broken,
        first,
        shared_tests: ours.intersection(&theirs).count(),
        score,
    })
}

/// How far below the best a second entry may score and still be named beside it.
const MARGIN: f64 = 0.25;

/// The least weighted share of failing tests a near entry must have in common with the
/// run (the tests both fail, over the tests either fails).
const MIN_OVERLAP: f64 = 0.3;

/// The catalogue entries nearest to how `run` failed: those whose mutant fails exactly
/// like it, when there are; else the best candidate and, within [`MARGIN`], one more.
/// Empty when the run passed, when the lab has no catalogue, or when no entry breaks what
/// the run breaks.
pub fn nearest<'a>(lab: &'a Lab, run: &SuiteRun) -> Vec<Nearest<'a>> {
    let seen = Failure::of(run);
    if seen.fails.is_empty() {
        return Vec::new();
    }
    let catalogue = &lab.key.diagnoses;
    let mut found: Vec<Nearest<'a>> = (catalogue.iter())
        .filter_map(|d| compare(d, &seen, catalogue))
        .collect();
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut seen_beliefs = BTreeSet::new();
    found.retain(|n| seen_beliefs.insert(n.diagnosis.misconception.clone()));
    if found.iter().any(|n| n.exact) {
        found.retain(|n| n.exact);
        return found;
    }
    let best = found.first().map_or(0.0, |n| n.score);
    found.retain(|n| n.score >= best - MARGIN);
    found.truncate(2);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::{TestOutcome, TestRun};

    /// A run of lab 01's suite in which `failing` fail, each breaking its invariant.
    fn run(lab: &Lab, failing: &[(&str, Option<&str>)]) -> SuiteRun {
        let suite = std::fs::read_to_string(
            lab.dir
                .parent()
                .unwrap()
                .parent()
                .unwrap()
                .join(&lab.meta.graded_suite),
        )
        .unwrap();
        let tests = crate::meta::graded_test_names(&suite)
            .into_iter()
            .map(|name| {
                let failed = failing.iter().find(|(n, _)| *n == name);
                TestRun {
                    outcome: if failed.is_some() {
                        TestOutcome::Failed
                    } else {
                        TestOutcome::Passed
                    },
                    output: match failed {
                        Some((_, Some(i))) => {
                            format!("invariant violated: {i} (lab 01, scenario relay, 1 fault)\n")
                        }
                        _ => String::new(),
                    },
                    name,
                    detail: None,
                }
            })
            .collect();
        SuiteRun {
            tests,
            ..SuiteRun::default()
        }
    }

    fn entry<'a>(lab: &'a Lab, belief: &str) -> &'a Diagnosis {
        (lab.key.diagnoses.iter())
            .find(|d| d.misconception.contains(belief))
            .unwrap()
    }

    #[test]
    fn an_identical_failure_names_its_entry_alone() {
        let lab = crate::meta::teachers_lab("outbox");
        let timeout = entry(&lab, "A lost response means the receiver got the request");
        let inv = timeout.signature.invariant.as_deref();
        let failing: Vec<(&str, Option<&str>)> = (timeout.signature.fails.iter())
            .map(|f| (f.as_str(), inv))
            .collect();
        let found = nearest(&lab, &run(&lab, &failing));
        assert!(found.iter().all(|n| n.exact), "{found:#?}");
        assert!(found.iter().any(|n| n.diagnosis == timeout), "{found:#?}");
    }

    #[test]
    fn one_test_fewer_still_names_the_nearest_entries_and_why() {
        let lab = crate::meta::teachers_lab("outbox");
        let timeout = entry(&lab, "A lost response means the receiver got the request");
        let inv = timeout.signature.invariant.as_deref();
        // The mutant's first failing test and its invariant, and nothing else.
        let failing = [(timeout.signature.fails[0].as_str(), inv)];
        let found = nearest(&lab, &run(&lab, &failing));
        assert!(!found.is_empty() && found.len() <= 2, "{found:#?}");
        for near in &found {
            assert!(!near.exact && near.first, "{near:#?}");
            assert_eq!(near.invariant, inv);
            assert_eq!(near.shared_tests, 1);
        }
    }

    #[test]
    fn a_failure_no_entry_breaks_is_not_named() {
        let lab = crate::meta::teachers_lab("outbox");
        let failing = [(
            "a_retried_identity_is_recognised",
            Some("the moon is made of cheese"),
        )];
        assert!(nearest(&lab, &run(&lab, &failing)).is_empty());
        assert!(nearest(&lab, &run(&lab, &[])).is_empty(), "a green run");
    }
}
