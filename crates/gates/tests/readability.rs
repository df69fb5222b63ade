//! A lab a learner can read: every file a learner reads (a lab's sources, its graded
//! suite) fits a few screens, no function in them runs past a screen, and the learner's
//! file imports the world it talks to without that world importing it back: the
//! learner's file is a crate of its own that depends on the lab's harness, never the
//! reverse, and reaches neither the kit nor the graded suites' harness. The measures are
//! in support/readability.rs, which the scaffold's test applies to a new lab too.

#[path = "../../workbook/tests/common/mod.rs"]
mod common;
mod support;

use common::{labs, repo};
use support::readability::{MAX_FILE_LINES, file_sizes, functions, import_circles, long_functions};

#[test]
fn every_file_a_learner_reads_fits_a_few_screens() {
    let mut sizes: Vec<(usize, String)> = labs()
        .iter()
        .flat_map(|lab| file_sizes(&repo(), lab))
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    println!("the largest files a learner reads:");
    for (lines, file) in sizes.iter().take(8) {
        println!("  {lines:>5}  {file}");
    }
    let over: Vec<String> = sizes
        .iter()
        .filter(|(lines, _)| *lines > MAX_FILE_LINES)
        .map(|(lines, file)| format!("{file}: {lines} lines (at most {MAX_FILE_LINES})"))
        .collect();
    assert!(over.is_empty(), "\n{}\n", over.join("\n"));
}

#[test]
fn no_function_a_learner_reads_runs_past_a_screen() {
    let over: Vec<String> = labs()
        .iter()
        .flat_map(|lab| long_functions(&repo(), lab))
        .collect();
    assert!(over.is_empty(), "\n{}\n", over.join("\n"));
}

#[test]
fn no_learner_file_is_imported_by_a_module_it_imports() {
    let circles: Vec<String> = labs().iter().flat_map(import_circles).collect();
    assert!(circles.is_empty(), "\n{}\n", circles.join("\n"));
}

#[test]
fn the_function_finder_measures_what_it_should() {
    let source = "fn a() {\n    let s = \"}\";\n    // }\n}\n\npub fn b(x: u32) -> u32 {\n    x\n}\nfn c();\n";
    assert_eq!(
        functions(source),
        vec![("a".to_string(), 1, 4), ("b".to_string(), 6, 3)]
    );
}
