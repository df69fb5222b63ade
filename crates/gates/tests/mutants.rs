//! The catalogue of wrong solutions, proven: every entry under `solutions/NN-*/mutants/`
//! compiles, fails every graded test it names — each on an invariant or an assertion, not
//! by crashing — and fails exactly as its recorded signature says (the signature
//! `cargo labs check` diagnoses it by; `cargo labs bless` records the signatures the runs
//! show).
//!
//! How an entry is built and judged is `workbook::mutants::gate`, which `cargo labs bless`
//! and the scaffold's test use too: every entry is a crate of its own, the learner's
//! manifest renamed with the reference solution's learner files edited as its entry
//! says, built on the lab's harness; all of them in one cargo run that shares the
//! workspace's build folder. An entry whose edit no longer applies to the solution is not
//! built: the gate names it, its file and its edit.

#[path = "../../workbook/tests/common/mod.rs"]
mod common;

use common::{labs, repo};
use workbook::mutants::gate::{self, write_package};
use workbook::mutants::{Edit, Mutant, MutantMeta};
use workbook::settings::Settings;

#[test]
fn every_wrong_solution_in_the_catalogue_is_rejected_by_the_tests_it_names() {
    let settings = Settings::load(&repo()).unwrap();
    let run = gate::run(&repo(), &labs(), &settings).unwrap();
    println!(
        "catalogue: {} entries, built in {:.1} s",
        run.entries.len(),
        run.build_seconds
    );
    for entry in &run.entries {
        println!(
            "{}: fails {:?} on {:?} ({:.2} s)",
            entry.label, entry.seen.fails, entry.seen.invariant, entry.seconds
        );
    }
    let problems = run.all_problems();
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}

/// An entry whose edit no longer applies to its solution (a refactor moved the text it
/// finds) is not built, and the gate says which entry, which file and which edit.
#[test]
fn an_entry_whose_edit_no_longer_applies_is_named() {
    let lab = labs().into_iter().next().expect("a lab");
    let file = lab.meta.learner_files[0].clone();
    let stale = Mutant {
        name: "stale-edit".into(),
        dir: repo().join("target/mutants-stale/stale-edit"),
        meta: MutantMeta {
            misconception: "m".into(),
            section: "s".into(),
            rejected_by: Vec::new(),
            explains: Vec::new(),
            edits: vec![Edit {
                file: Some(file.clone()),
                find: "\n    text the solution no longer has();\n".into(),
                replace: String::new(),
            }],
            signature: Default::default(),
        },
    };
    let dir = repo().join("target/mutants-stale/package");
    let _ = std::fs::remove_dir_all(&dir);
    let refused = write_package(&lab, &stale, &dir).unwrap_err();
    for named in [
        format!("lab {} mutant `stale-edit`", lab.meta.number),
        format!("edit of {file}"),
        "`text the solution no longer has();`".to_string(),
        format!("solutions/{}/{file}", lab.slug()),
    ] {
        assert!(refused.contains(&named), "{named}: {refused}");
    }
    assert!(!dir.exists(), "nothing of the entry is written");
}
