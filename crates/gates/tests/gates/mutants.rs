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

use crate::common;

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
    let mut problems = run.all_problems();
    problems.extend(lab_08_names_off_the_timeline(&run.entries));
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n\n"));
}

/// Lab 08's explanations name the processes of their timelines: in the first failure of
/// each of its catalogue entries, every writer process the explanation names
/// (`writer-2`) appears in the timeline above it, and where the explanation says which
/// epoch a writer took or held, the timeline shows that writer taking that epoch.
fn lab_08_names_off_the_timeline(entries: &[gate::EntryRun]) -> Vec<String> {
    let mut problems = Vec::new();
    for entry in entries.iter().filter(|e| e.label.starts_with("lab 08 ")) {
        let Some(output) = &entry.first_failure else {
            continue;
        };
        for wrong in names_off_the_timeline(output) {
            problems.push(format!(
                "{}: its first failure's explanation says {wrong}:\n{output}",
                entry.label
            ));
        }
    }
    problems
}

/// What the explanation of one failure's `output` says about a writer process that its
/// timeline does not show. The output is the timeline, then the explanation (from its
/// `  Let …` line), then the replay command.
fn names_off_the_timeline(output: &str) -> Vec<String> {
    let at = output.find("\n  Let ").unwrap_or(output.len());
    let (timeline, explanation) = output.split_at(at);
    let explanation = explanation.split("\nreplay:").next().unwrap_or_default();
    let explanation = explanation.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut wrong = Vec::new();
    for name in writers(&explanation) {
        if !writers(timeline).contains(&name) {
            wrong.push(format!("`{name}`, which the timeline never shows"));
        }
    }
    for (name, epoch) in epochs_taken(&explanation) {
        if !timeline.contains(&format!("{name} takes the lease: Ok({epoch})")) {
            wrong.push(format!(
                "that `{name}` holds epoch {epoch}, which the timeline does not show it taking"
            ));
        }
    }
    wrong
}

/// Every `writer-N` that `text` names.
fn writers(text: &str) -> std::collections::BTreeSet<String> {
    (text.match_indices("writer-"))
        .map(|(at, _)| {
            let digits: String = (text[at + 7..].chars())
                .take_while(char::is_ascii_digit)
                .collect();
            format!("writer-{digits}")
        })
        .filter(|name| name.len() > 7)
        .collect()
}

/// Every "writer-N hold epoch E" and "writer-N take the lease with epoch E" of `text`.
fn epochs_taken(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for name in writers(text) {
        for phrase in [
            " hold epoch ",
            " take the lease with epoch ",
            " holds epoch ",
        ] {
            let said = format!("{name}{phrase}");
            for (at, _) in text.match_indices(&said) {
                let epoch: String = (text[at + said.len()..].chars())
                    .take_while(char::is_ascii_digit)
                    .collect();
                found.push((name.clone(), epoch));
            }
        }
    }
    found
}

/// The check finds the mismatch a learner met: the timeline shows writer-3 taking epoch
/// 2, the explanation said writer-2; and it accepts the explanation that names them right.
#[test]
fn a_name_the_timeline_does_not_show_is_found() {
    let timeline = "invariant violated: a stale epoch cannot move the checkpoint
    0  writer   writer-1 starts and opens journal.db
    1  writer   writer-1 takes the lease: Ok(1)
    1  writer   writer-2 starts and opens journal.db
    2  writer   epoch 1: checkpoint → 1003: Ok
    2  writer   writer-3 starts and opens journal.db
    3  writer   writer-3 takes the lease: Ok(2)
    3  writer   writer-4 starts and opens journal.db
    4  writer   epoch 1: checkpoint → 1005: Ok
";
    let replay = "\nreplay: cargo labs replay 08 fence-checkpoint v2:";
    let said = "
  Let writer-1 hold epoch 1, and writer-2 take the lease with epoch 2.
  Then writer-5's advance to 1005 returned Ok, and the checkpoint is 1005.";
    let wrong = names_off_the_timeline(&format!("{timeline}{said}{replay}"));
    assert_eq!(wrong.len(), 2, "{wrong:?}");
    assert!(
        wrong[0].contains("`writer-5`, which the timeline never shows"),
        "{wrong:?}"
    );
    assert!(wrong[1].contains("`writer-2` holds epoch 2"), "{wrong:?}");
    let right = "
  Let writer-1 take the lease with epoch 1, and writer-3 take the lease with epoch 2.
  Then writer-4, still acting with writer-1's epoch 1, advanced the checkpoint to 1005:
    Ok, and the checkpoint is 1005.";
    let found = names_off_the_timeline(&format!("{timeline}{right}{replay}"));
    assert_eq!(found, Vec::<String>::new());
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
