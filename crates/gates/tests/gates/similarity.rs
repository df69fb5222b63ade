//! The similarity detector on small documents built here: a renamed and reformatted copy
//! is found with its regions, the starter alone never makes a pair, two different
//! solutions of one small task are not paired, and the result does not depend on the
//! order the documents come in.

use workbook::similarity::{self, Document, Lines, Pair, Settings};

const FILE: &str = "src/stats.rs";

/// The toy task's starter: what every submission begins with.
const STARTER: &str = r#"//! Statistics over a day's readings.

/// The readings of one sensor.
pub struct Readings {
    pub values: Vec<i64>,
}

/// The median reading, or `None` when there is none.
pub fn median(readings: &Readings) -> Option<f64> {
    // Your part: sort a copy, take the middle (or the mean of the two middle values).
    let _ = readings;
    todo!("median")
}
"#;

/// One solution: sorts a copy and reads the middle, with a helper for the even case.
const SORTING: &str = r#"//! Statistics over a day's readings.

/// The readings of one sensor.
pub struct Readings {
    pub values: Vec<i64>,
}

/// The mean of two readings, without overflowing.
fn midpoint(low: i64, high: i64) -> f64 {
    let low = low as f64;
    let high = high as f64;
    low + (high - low) / 2.0
}

/// The median reading, or `None` when there is none.
pub fn median(readings: &Readings) -> Option<f64> {
    let mut sorted = readings.values.clone();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_unstable();
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        Some(sorted[middle] as f64)
    } else {
        Some(midpoint(sorted[middle - 1], sorted[middle]))
    }
}
"#;

/// The same solution, copied: every name changed, the helper moved below, comments
/// replaced, and laid out at another width with trailing commas.
const COPY: &str = r#"//! Statistics over a day's readings.

/// The readings of one sensor.
pub struct Readings {
    pub values: Vec<i64>,
}

// my median
pub fn median(
    input: &Readings,
) -> Option<f64> {
    let mut data = input
        .values
        .clone();
    if data.is_empty() { return None; }
    data.sort_unstable();
    let half = data.len() / 2;
    if data.len() % 2 == 1 {
        Some(data[half] as f64)
    } else {
        Some(avg(
            data[half - 1],
            data[half],
        ))
    }
}

/* average of two */
fn avg(a: i64, b: i64) -> f64 {
    let a = a as f64; let b = b as f64;
    a + (b - a) / 2.0
}
"#;

/// Another solution of the same task, written apart: selects the middle by counting,
/// without sorting.
const COUNTING: &str = r#"//! Statistics over a day's readings.

/// The readings of one sensor.
pub struct Readings {
    pub values: Vec<i64>,
}

/// The k-th smallest value (from 0), by counting how many values lie below each one.
fn kth(values: &[i64], k: usize) -> i64 {
    for &candidate in values {
        let below = values.iter().filter(|&&v| v < candidate).count();
        let equal = values.iter().filter(|&&v| v == candidate).count();
        if below <= k && k < below + equal {
            return candidate;
        }
    }
    unreachable!("k is within the values")
}

/// The median reading, or `None` when there is none.
pub fn median(readings: &Readings) -> Option<f64> {
    let n = readings.values.len();
    match n {
        0 => None,
        n if n % 2 == 1 => Some(kth(&readings.values, n / 2) as f64),
        n => {
            let pair = [kth(&readings.values, n / 2 - 1), kth(&readings.values, n / 2)];
            Some(pair.iter().map(|&v| v as f64).sum::<f64>() / 2.0)
        }
    }
}
"#;

fn document(owner: &str, text: &str) -> Document {
    Document::new(owner, FILE, text)
}

fn pairs(documents: &[Document]) -> Vec<Pair> {
    similarity::pairs(documents, STARTER, &[], &Settings::default())
}

fn lines(first: usize, last: usize) -> Lines {
    Lines { first, last }
}

#[test]
fn a_renamed_and_reformatted_copy_is_found_with_its_regions() {
    let found = pairs(&[document("ann", SORTING), document("bob", COPY)]);
    assert_eq!(found.len(), 1, "{found:#?}");
    let pair = &found[0];
    assert_eq!((pair.left.as_str(), pair.right.as_str()), ("ann", "bob"));
    assert_eq!(pair.share, 1.0);
    assert!(pair.matched_tokens >= Settings::default().min_matched_tokens);
    // The helper and the body in each file, wherever the copy moved them; the starter's
    // lines (the struct, the signature of `median`) are not part of what was copied. In
    // the copy the helper follows the body with only a comment between: one region.
    assert_eq!(pair.left_lines, [lines(9, 13), lines(17, 28)]);
    assert_eq!(pair.right_lines, [lines(12, 32)]);
}

#[test]
fn a_copy_of_the_reference_is_named_against_it() {
    let reference = document("reference", SORTING);
    let settings = Settings::default();
    let found = similarity::pairs(&[document("bob", COPY)], STARTER, &[reference], &settings);
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].left.as_str(), found[0].right.as_str()),
        ("bob", "reference")
    );
}

#[test]
fn the_starter_alone_never_makes_a_pair() {
    let untouched = document("ann", STARTER);
    let reformatted = document(
        "bob",
        &STARTER
            .replace("    ", "\t")
            .replace("// Your part", "// Later"),
    );
    let barely = document(
        "cy",
        &STARTER.replace("let _ = readings;", "let _ = &readings.values;"),
    );
    let everyone = [untouched, reformatted, barely];
    assert!(pairs(&everyone).is_empty());
    // Not even below the threshold: nothing of their own, nothing to compare.
    let starter_only = &everyone[..2];
    assert!(similarity::every_pair(starter_only, STARTER, &[], &Settings::default()).is_empty());
}

#[test]
fn two_different_solutions_of_a_small_task_are_not_paired() {
    let apart = [document("ann", SORTING), document("dee", COUNTING)];
    assert!(pairs(&apart).is_empty());
    let every = similarity::every_pair(&apart, STARTER, &[], &Settings::default());
    assert!(every.iter().all(|p| p.share < 0.5), "{every:#?}");
}

#[test]
fn the_result_is_the_same_whatever_order_the_documents_come_in() {
    let class = [
        document("ann", SORTING),
        document("bob", COPY),
        document("cy", STARTER),
        document("dee", COUNTING),
        document("eve", &COUNTING.replace("kth", "select")),
    ];
    let references = [
        document("reference", SORTING),
        document("catalogue:x", COUNTING),
    ];
    let settings = Settings::default();
    let expected = similarity::every_pair(&class, STARTER, &references, &settings);
    assert!(expected.iter().filter(|p| p.is_named(&settings)).count() >= 4);
    let mut order: Vec<usize> = (0..class.len()).collect();
    for round in 0..class.len() * 4 {
        order.rotate_left(1 + round % 3);
        order.swap(round % class.len(), (round * 7 + 3) % class.len());
        let shuffled: Vec<Document> = order.iter().map(|&i| class[i].clone()).collect();
        let mut reversed_refs = references.to_vec();
        reversed_refs.reverse();
        let again = similarity::every_pair(&shuffled, STARTER, &reversed_refs, &settings);
        assert_eq!(again, expected, "order {order:?}");
    }
}
