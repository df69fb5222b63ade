//! The steps of a build phase, proven: for every lab whose lab.toml splits its build
//! phase into `[[step]]`s, the starter of each step after the first (stored as edits of
//! the reference solution under `solutions/NN-slug/steps/<k>/step.toml`) passes every
//! test of the earlier steps, fails every test of its own step, and passes the tests the
//! published starter passes. The published starter is the state before step 1: it fails
//! every test of step 1 because the steps share out what it fails (book.rs,
//! `the_steps_of_a_build_phase_share_out_what_the_starter_fails`, with `starter_fails`
//! proven by consistency.rs), and the reference passes everything (consistency.rs).
//!
//! How a starter is built and run is `workbook::mutants::gate::build_and_run`, as the
//! catalogue is: every starter a crate of its own on its lab's harness, all of them in
//! one cargo run.

use crate::common;

use common::{labs, repo};
use workbook::settings::Settings;

#[test]
fn each_step_starter_has_the_earlier_steps_done_and_its_own_step_not() {
    let settings = Settings::load(&repo()).unwrap();
    let labs = labs();
    let run = workbook::steps::run(&repo(), &labs, &settings).unwrap();
    for lab in labs.iter().filter(|l| !l.meta.steps.is_empty()) {
        let steps: Vec<String> = (lab.meta.steps.iter())
            .map(|s| format!("{} ({} tests)", s.name, s.tests.len()))
            .collect();
        println!("lab {}: {}", lab.meta.number, steps.join(" → "));
    }
    println!(
        "step starters: {}, built in {:.1} s",
        run.starters.len(),
        run.build_seconds
    );
    for starter in &run.starters {
        println!(
            "{}: fails {:?} ({:.2} s)",
            starter.label, starter.fails, starter.seconds
        );
    }
    let problems = run.all_problems();
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}
