//! Benchmark: `grade-class` over a generated class of ten clones of the student edition —
//! five solved, four starters, and one with every kind of tampering — graded from this
//! teacher's edition, every lab. It prints the time of each submission (the first pays
//! for building the workbook's dependencies once), the total, and each learner's grade;
//! and it fails if the tampering clone earned a point its learner files did not.
//!
//! ```sh
//! cargo run --release --example grade_class_bench -p workbook [-- --labs 01,02]
//! ```
//!
//! (Release or not only changes the grader itself; the labs are built as a learner's
//! are.) The class and the grader's scratch tree live under `target/grade-class-bench`.

use std::path::{Path, PathBuf};
use workbook::class::{self, Options};
use workbook::workbook::Workbook;

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&source, &target);
        } else {
            std::fs::copy(&source, &target).unwrap();
        }
    }
}

fn clone(edition: &Path, class: &Path, learner: &str) -> PathBuf {
    let to = class.join(learner);
    std::fs::create_dir_all(&to).unwrap();
    copy_tree(edition, &to);
    to
}

fn put(root: &Path, rel: &str, text: &str) {
    std::fs::write(root.join(rel), text).unwrap();
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let labs: Vec<String> = match args.iter().position(|a| a == "--labs") {
        Some(i) => args[i + 1].split(',').map(str::to_string).collect(),
        None => Vec::new(),
    };
    let wb = Workbook::load(root.clone()).unwrap();
    let bench = root.join("target/grade-class-bench");
    let _ = std::fs::remove_dir_all(bench.join("class"));
    let (edition, class_dir) = (
        bench.join("class/template"),
        bench.join("class/submissions"),
    );
    workbook::export::export(&wb, &edition, None).unwrap();
    std::fs::create_dir_all(&class_dir).unwrap();

    let mut dirs = Vec::new();
    for i in 1..=5 {
        let solved = clone(&edition, &class_dir, &format!("solved-{i}"));
        for lab in &wb.labs.labs {
            for file in &lab.meta.learner_files {
                let answer = root.join("solutions").join(lab.slug()).join(file);
                std::fs::copy(answer, solved.join(lab.learner_path(file))).unwrap();
            }
        }
        dirs.push(solved);
    }
    for i in 1..=4 {
        dirs.push(clone(&edition, &class_dir, &format!("starter-{i}")));
    }
    // Every kind of tampering at once: the grader's files edited, a learner file that is
    // a symbolic link to a solution, one that includes a solution, one that prints fake
    // results and exits, one too large to take, and a forged seal.
    let tamper = clone(&edition, &class_dir, "tamper");
    let lab_toml = tamper.join("labs/01-outbox/lab.toml");
    let text = std::fs::read_to_string(&lab_toml).unwrap();
    std::fs::write(
        &lab_toml,
        text.replace("graded = 20", "graded = 2000").replace(
            "time_limit_secs = 180",
            "time_limit_secs = 18446744073709551615",
        ),
    )
    .unwrap();
    for suite in std::fs::read_dir(tamper.join("tests")).unwrap().flatten() {
        std::fs::write(suite.path(), "graded::suite![t];\nfn t() {}\n").unwrap();
    }
    let verdict = tamper.join("crates/graded/src/verdict.rs");
    let text = std::fs::read_to_string(&verdict).unwrap();
    std::fs::write(
        &verdict,
        text.replace(
            "passed: proven && !failed && void.is_none()",
            "passed: true",
        ),
    )
    .unwrap();
    let learner = |n: usize| {
        let lab = &wb.labs.labs[n];
        (lab.learner_path(&lab.meta.learner_files[0]), lab)
    };
    if wb.labs.labs.len() >= 5 {
        let (rel, lab) = learner(0);
        std::fs::remove_file(tamper.join(&rel)).unwrap();
        let solution = root
            .join("solutions")
            .join(lab.slug())
            .join(&lab.meta.learner_files[0]);
        #[cfg(unix)]
        std::os::unix::fs::symlink(solution, tamper.join(&rel)).unwrap();
        #[cfg(not(unix))]
        drop(solution);
        let (rel, lab) = learner(1);
        let solution = root
            .join("solutions")
            .join(lab.slug())
            .join(&lab.meta.learner_files[0]);
        put(
            &tamper,
            &rel,
            &format!("include!({:?});\n", solution.display().to_string()),
        );
        let (rel, _) = learner(2);
        put(
            &tamper,
            &rel,
            &format!(
                "{}\npub fn cheat() {{ println!(\"test x ... ok\"); std::process::exit(0); }}\n",
                std::fs::read_to_string(tamper.join(&rel)).unwrap()
            ),
        );
        let (rel, _) = learner(3);
        put(&tamper, &rel, &"// padding\n".repeat(40_000));
        let (_, lab) = learner(4);
        let predictions = tamper.join("labs").join(lab.slug()).join("predictions.txt");
        std::fs::write(
            predictions,
            "# sealed at first run: 2026-12-01T00:00:00Z answers=yyyyyyyy|aaaa mac=0000000000000000\n",
        )
        .unwrap();
    }
    dirs.push(tamper);

    let options = Options {
        labs,
        work: Some(bench.join("work")),
        ..Options::default()
    };
    let started = std::time::Instant::now();
    let graded = class::grade_submissions(&wb, &dirs, &options).unwrap();
    let total = started.elapsed().as_secs_f64();
    println!(
        "\ngrade-class over {} submissions (sandboxed: {})",
        dirs.len(),
        graded.sandboxed
    );
    println!("{:<12} {:>9}  {:>12}", "learner", "seconds", "points");
    for (grade, seconds) in graded.learners.iter().zip(&graded.seconds) {
        println!(
            "{:<12} {seconds:>9.1}  {:>6} / {}",
            grade.learner.as_ref().map_or("?", |l| l.name.as_str()),
            grade.points,
            grade.max_points
        );
    }
    let further: Vec<f64> = graded.seconds.iter().skip(1).copied().collect();
    let slowest = further.iter().copied().fold(0.0, f64::max);
    let mean = further.iter().sum::<f64>() / further.len().max(1) as f64;
    println!(
        "\ntotal {total:.1} s; first submission {:.1} s; each further one: mean {mean:.1} s, slowest {slowest:.1} s",
        graded.seconds.first().copied().unwrap_or_default()
    );
    let starter = graded
        .learners
        .iter()
        .find(|g| g.learner.as_ref().is_some_and(|l| l.name == "starter-1"))
        .map(|g| g.points)
        .unwrap_or_default();
    let tampered = graded.learners.last().map(|g| g.points).unwrap_or_default();
    println!("starter-1 earned {starter}; the tampering clone earned {tampered}");
    assert!(
        tampered <= starter,
        "the tampering clone earned {tampered} points, more than an untouched starter ({starter})"
    );
}
