//! The starters of a build phase's steps (teacher's edition only), and the gate that
//! proves them.
//!
//! A lab whose build phase has steps (`[[step]]` in lab.toml, each naming the graded
//! tests it turns green) stores, for every step after the first, the state a learner is
//! in when it begins: the earlier steps done, this one not. It is stored as edits of the
//! reference solution, in the catalogue's format ([`crate::mutants::Edit`]), under
//! `solutions/NN-slug/steps/<k>/step.toml`:
//!
//! ```toml
//! # Step 2 of lab 08 begins here: the fence is built, nothing else.
//! [[edit]]
//! find = '''…the reference's text, found once…'''
//! replace = '''…what the learner has before step 2…'''
//! ```
//!
//! The published starter is the state before step 1. [`run`] builds every step's
//! starter as a crate on the lab's harness (all of them in one cargo run, as the
//! catalogue is built: [`crate::mutants::gate::build_and_run`]) and [`judge`] proves each
//! one: every test of an earlier step passes, every test of its own step fails, and so
//! does no test the starter already passes (the learner's regression guard).

use crate::error::Result;
use crate::grade::SuiteRun;
use crate::grade::run::LabRun;
use crate::meta::Lab;
use crate::mutants::gate::{Edited, build_and_run};
use crate::mutants::{Edit, apply_to_files, solution_dir};
use crate::settings::Settings;
use serde::Deserialize;
use std::path::PathBuf;

/// One `step.toml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepStarterMeta {
    /// The reference solution with the work of this step and the later ones undone.
    #[serde(rename = "edit")]
    pub edits: Vec<Edit>,
}

/// The stored starter of one step.
#[derive(Clone, Debug)]
pub struct StepStarter {
    /// The step it begins, from 1 (the first is the published starter, never stored).
    pub step: usize,
    pub dir: PathBuf,
    pub meta: StepStarterMeta,
}

/// Where a lab's step starters are stored: `solutions/<slug>/steps`.
pub fn steps_dir(lab: &Lab) -> Option<PathBuf> {
    Some(solution_dir(lab)?.join("steps"))
}

/// The path of step `k`'s starter, relative to the workbook.
pub fn starter_path(lab: &Lab, k: usize) -> String {
    format!("solutions/{}/steps/{k}/step.toml", lab.slug())
}

/// The stored starters of `lab`'s steps, by step; the complaints about what is missing,
/// unreadable or stray.
pub fn starters(lab: &Lab) -> (Vec<StepStarter>, Vec<String>) {
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    let number = &lab.meta.number;
    let steps = lab.meta.steps.len();
    // The student edition has no solutions, and so no stored starters.
    let Some(dir) = steps_dir(lab).filter(|_| solution_dir(lab).is_some_and(|d| d.is_dir())) else {
        return (found, problems);
    };
    let stored: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for name in &stored {
        if !name
            .parse::<usize>()
            .is_ok_and(|k| (2..=steps).contains(&k))
        {
            problems.push(format!(
                "lab {number}: solutions/{}/steps/{name} is not the starter of a step after the first (the lab has {steps} steps); remove it or name it by its step",
                lab.slug()
            ));
        }
    }
    for k in 2..=steps {
        let path = dir.join(k.to_string()).join("step.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(_) => {
                problems.push(format!(
                    "lab {number}: step {k} (\"{}\") has no stored starter: write {} as edits of the reference solution that undo step {k} and the later ones",
                    lab.meta.steps[k - 1].name,
                    starter_path(lab, k)
                ));
                continue;
            }
        };
        match toml::from_str::<StepStarterMeta>(&text) {
            Ok(meta) => found.push(StepStarter {
                step: k,
                dir: dir.join(k.to_string()),
                meta,
            }),
            Err(e) => problems.push(format!("{}: {e}", starter_path(lab, k))),
        }
    }
    (found, problems)
}

/// The learner files of a step's starter: the reference solution's, with its edits
/// applied.
pub fn learner_files(
    lab: &Lab,
    starter: &StepStarter,
) -> std::result::Result<Vec<(String, String)>, String> {
    let solution = solution_dir(lab);
    let read = |file: &str| {
        let path = solution
            .as_ref()
            .ok_or_else(|| format!("{} has no workbook around it", lab.dir.display()))?
            .join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((text, format!("solutions/{}/{file}", lab.slug())))
    };
    apply_to_files(&lab.meta.learner_files, &starter.meta.edits, read)
        .map_err(|e| format!("{}: {e}", starter_path(lab, starter.step)))
}

/// The package name of step `k`'s starter.
pub fn package_name(lab: &Lab, k: usize) -> String {
    format!("step{}-{k}", lab.meta.number)
}

/// What is wrong with the graded `run` of step `k`'s starter of `lab`.
pub fn judge(lab: &Lab, k: usize, run: &SuiteRun) -> Vec<String> {
    let mut problems = Vec::new();
    let path = starter_path(lab, k);
    let steps = &lab.meta.steps;
    let name = &steps[k - 1].name;
    let label = format!("lab {} step {k} (\"{name}\")", lab.meta.number);
    let outcome = |test: &str| run.tests.iter().find(|t| t.name == test);
    for (j, step) in steps.iter().enumerate().take(k) {
        for test in &step.tests {
            match outcome(test) {
                None => problems.push(format!("{label}: `{test}` is not a graded test")),
                Some(t) if j + 1 < k && !t.passed() => problems.push(format!(
                    "{label}: its starter ({path}) fails `{test}` of step {} (\"{}\"), which should be done when step {k} begins: make the edits undo only step {k} and the later ones\n{}",
                    j + 1,
                    step.name,
                    t.output.lines().take(12).collect::<Vec<_>>().join("\n")
                )),
                Some(t) if j + 1 == k && t.passed() => problems.push(format!(
                    "{label}: its starter ({path}) already passes `{test}`, which the step should turn green: undo more of the step in the edits, or move the test to an earlier step in lab.toml"
                )),
                _ => {}
            }
        }
    }
    for t in (run.tests.iter()).filter(|t| lab.meta.step_of(&t.name).is_none() && !t.passed()) {
        problems.push(format!(
            "{label}: its starter ({path}) fails `{}`, which the published starter passes and no step names: a learner beginning step {k} would see a regression; make the edits keep it green",
            t.name
        ));
    }
    problems
}

/// One step starter's graded run, judged.
#[derive(Debug)]
pub struct StarterRun {
    pub label: String,
    /// The failing tests of its run.
    pub fails: Vec<String>,
    pub problems: Vec<String>,
    pub seconds: f64,
}

/// The step starters of some labs, built and run.
#[derive(Debug, Default)]
pub struct StepsRun {
    /// What keeps a starter from being built: missing, stray, or edits that no longer
    /// apply.
    pub problems: Vec<String>,
    pub starters: Vec<StarterRun>,
    pub build_seconds: f64,
}

impl StepsRun {
    pub fn all_problems(&self) -> Vec<String> {
        let mut all = self.problems.clone();
        for starter in &self.starters {
            all.extend(starter.problems.iter().cloned());
        }
        all
    }
}

/// Step `k`'s starter's run, judged.
fn judged(lab: &Lab, k: usize, run: LabRun, seconds: f64) -> StarterRun {
    let label = format!("lab {} step {k}", lab.meta.number);
    let (fails, problems) = match run {
        LabRun::Ran(run) => (
            (run.tests.iter())
                .filter(|t| !t.passed())
                .map(|t| t.name.clone())
                .collect(),
            judge(lab, k, &run),
        ),
        other => (
            Vec::new(),
            vec![format!(
                "{label}: its starter ({}) does not build: {other:?}",
                starter_path(lab, k)
            )],
        ),
    };
    StarterRun {
        label,
        fails,
        problems,
        seconds,
    }
}

/// Builds the stored starter of every step of `labs` in one cargo run, runs each one's
/// graded suite, and judges it.
pub fn run(root: &std::path::Path, labs: &[Lab], settings: &Settings) -> Result<StepsRun> {
    let (mut problems, mut packages, mut which) = (Vec::new(), Vec::new(), Vec::new());
    for lab in labs {
        let (found, missing) = starters(lab);
        problems.extend(missing);
        if lab.meta.steps.is_empty() {
            continue;
        }
        for starter in found {
            match learner_files(lab, &starter) {
                Ok(files) => {
                    packages.push(Edited {
                        lab: lab.clone(),
                        package: package_name(lab, starter.step),
                        files,
                    });
                    which.push((lab.clone(), starter.step));
                }
                Err(problem) => problems.push(problem),
            }
        }
    }
    if packages.is_empty() {
        return Ok(StepsRun {
            problems,
            ..StepsRun::default()
        });
    }
    let done = build_and_run(root, "steps", &packages, settings)?;
    let starters = (which.iter().zip(done.runs))
        .map(|((lab, k), (run, seconds))| judged(lab, *k, run, seconds))
        .collect();
    Ok(StepsRun {
        problems,
        starters,
        build_seconds: done.build_seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::{TestOutcome, TestRun};

    fn lab08() -> Lab {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let labs = crate::meta::load_labs(&root).unwrap().labs;
        labs.into_iter().find(|l| l.meta.number == "08").unwrap()
    }

    /// A run of lab 08's suite in which exactly the tests of `failing` fail.
    fn run_failing(lab: &Lab, failing: &[&str]) -> SuiteRun {
        let suite =
            std::fs::read_to_string(lab.dir.join("../..").join(&lab.meta.graded_suite)).unwrap();
        let tests = crate::meta::graded_test_names(&suite)
            .into_iter()
            .map(|name| TestRun {
                outcome: if failing.contains(&name.as_str()) {
                    TestOutcome::Failed
                } else {
                    TestOutcome::Passed
                },
                name,
                output: "invariant violated: x".into(),
                detail: None,
            })
            .collect();
        SuiteRun {
            tests,
            ..SuiteRun::default()
        }
    }

    #[test]
    fn a_step_starter_is_judged_by_the_steps_around_it() {
        let lab = lab08();
        if !solution_dir(&lab).is_some_and(|d| d.is_dir()) {
            return; // the student edition: no solutions, no stored starters
        }
        let (found, problems) = starters(&lab);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            found.iter().map(|s| s.step).collect::<Vec<_>>(),
            (2..=lab.meta.steps.len()).collect::<Vec<_>>()
        );
        let step = |k: usize| -> Vec<&str> {
            lab.meta.steps[k - 1]
                .tests
                .iter()
                .map(String::as_str)
                .collect()
        };
        let mut later: Vec<&str> = step(2);
        later.extend(step(3));
        // Step 2 begins with step 1 done: its own tests and the later ones fail.
        assert_eq!(
            judge(&lab, 2, &run_failing(&lab, &later)),
            Vec::<String>::new()
        );
        // One of its own tests already green: undo more.
        let too_little = &later[1..];
        let said = judge(&lab, 2, &run_failing(&lab, too_little)).join("\n");
        assert!(
            said.contains(&format!("already passes `{}`", later[0])),
            "{said}"
        );
        // A test of step 1 red: undo less.
        let mut too_much = later.clone();
        too_much.push(step(1)[0]);
        let said = judge(&lab, 2, &run_failing(&lab, &too_much)).join("\n");
        assert!(
            said.contains(&format!("fails `{}` of step 1", step(1)[0]))
                && said.contains("solutions/08-append-streams/steps/2/step.toml"),
            "{said}"
        );
        // A test no step names red: a regression.
        let mut regression = later.clone();
        regression.push("every_schedule_replays_identically");
        let said = judge(&lab, 2, &run_failing(&lab, &regression)).join("\n");
        assert!(said.contains("regression"), "{said}");
    }
}
