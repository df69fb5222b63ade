//! A workbook a learner can read: every file a learner reads (a lab's sources, its graded
//! suite, its reference solution's learner files, and the sources of the crates a learner
//! opens: the simulators and the kit) fits a few screens, no function in them runs past a
//! screen, and the learner's file imports the world it talks to without that world
//! importing it back: the learner's file is a crate of its own that depends on the lab's
//! harness, never the reverse, and reaches neither the kit nor the graded suites'
//! harness. The measures are in support/readability.rs, which the scaffold's test applies
//! to a new lab too.
//!
//! What was over the limits when the rule came to the crates is listed, with its length,
//! in support/oversized.toml: a listed item may not grow, a new one may not break a limit,
//! and an entry goes (the gate says so) once its item fits. Tests' own files (`tests.rs`,
//! `tests/`) are left out: see `is_test_file`.

use crate::common;
use crate::support;

use common::{labs, repo};
use std::collections::BTreeMap;
use std::path::PathBuf;
use support::readability::{
    Item, MAX_FILE_LINES, OVERSIZED, against_list, crate_sources, file_sizes, functions,
    import_circles, learner_visible, long_functions, measure, oversized_list,
};

/// Every file a learner reads: the labs' (all, or those in `LABS_ONLY`) and the crates'.
fn files_a_learner_reads() -> Vec<PathBuf> {
    let root = repo();
    let mut files: Vec<PathBuf> = labs()
        .iter()
        .flat_map(|lab| learner_visible(&root, lab))
        .collect();
    files.extend(crate_sources(&root));
    files
}

/// The gate's verdict on the items `keep` selects, against the list.
fn problems(keep: fn(&Item) -> bool) -> Vec<String> {
    let all = measure(&repo(), &files_a_learner_reads());
    let every_lab = std::env::var_os("LABS_ONLY").is_none();
    let in_scope = |file: &str| every_lab || all.contains_key(&Item::File(file.to_string()));
    let measured: BTreeMap<Item, (usize, String)> = all
        .iter()
        .filter(|(item, _)| keep(item))
        .map(|(item, measure)| (item.clone(), measure.clone()))
        .collect();
    let listed: BTreeMap<Item, usize> = oversized_list(&repo().join(OVERSIZED))
        .into_iter()
        .filter(|(item, _)| keep(item))
        .collect();
    against_list(&measured, &listed, &in_scope)
}

#[test]
fn every_file_a_learner_reads_fits_a_few_screens() {
    let mut sizes: Vec<(usize, String)> = measure(&repo(), &files_a_learner_reads())
        .into_iter()
        .filter_map(|(item, (lines, _))| match item {
            Item::File(file) => Some((lines, file)),
            Item::Function(..) => None,
        })
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    println!("the largest files a learner reads:");
    for (lines, file) in sizes.iter().take(8) {
        println!("  {lines:>5}  {file}");
    }
    let problems = problems(|item| matches!(item, Item::File(_)));
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn no_function_a_learner_reads_runs_past_a_screen() {
    let problems = problems(|item| matches!(item, Item::Function(..)));
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
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
        functions(source).unwrap(),
        vec![("a".to_string(), 1, 4), ("b".to_string(), 6, 3)]
    );
    assert!(functions("fn broken() { \"unclosed }").is_err());
}

#[test]
fn the_function_finder_reads_every_kind_of_fn_item() {
    let source = r##"
/// A doc comment with a brace: {
#[inline]
pub(super) fn scoped() {
    let raw = r#"}}}"#;
}
pub(crate) const unsafe fn qualified() -> u32 {
    1
}
pub(in crate::a) async fn awaited() {}
extern "C" fn foreign(x: u32) -> u32 { x }
struct S;
impl S {
    pub fn method<const N: usize>(&self) -> [u8; N]
    where
        [u8; N]: Default,
    {
        let pointer: fn(u32) -> u32 = |x| x;
        Default::default()
    }
}
trait T {
    fn declared(&self);
    fn provided(&self) -> Box<dyn Fn() -> u32> {
        fn nested() -> u32 { 2 }
        Box::new(nested)
    }
    fn generic_brace() -> Foo<{ 1 + 1 }> {
    }
}
macro_rules! m { ($name:ident) => { fn $name() {} } }
"##;
    let found: Vec<(String, usize, usize)> = functions(source).unwrap();
    let expected = [
        ("scoped", 4, 3),
        ("qualified", 7, 3),
        ("awaited", 10, 1),
        ("foreign", 11, 1),
        ("method", 14, 7),
        ("provided", 24, 4),
        ("nested", 25, 1),
        ("generic_brace", 28, 2),
    ];
    let expected: Vec<(String, usize, usize)> = expected
        .iter()
        .map(|(name, line, lines)| (name.to_string(), *line, *lines))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn the_list_may_only_shrink() {
    let file = |path: &str| Item::File(path.to_string());
    let function = |path: &str, name: &str| Item::Function(path.to_string(), name.to_string());
    let measured: BTreeMap<Item, (usize, String)> = [
        (file("grew.rs"), 420),
        (file("shrank.rs"), 350),
        (file("fits.rs"), 120),
        (file("new.rs"), 301),
        (function("new.rs", "long"), 61),
        (function("new.rs", "short"), 60),
    ]
    .into_iter()
    .map(|(item, lines)| {
        let at = format!("{}:1", item.file());
        (item, (lines, at))
    })
    .collect();
    let listed: BTreeMap<Item, usize> = [
        (file("grew.rs"), 400),
        (file("shrank.rs"), 400),
        (file("fits.rs"), 400),
        (file("gone.rs"), 400),
        (function("new.rs", "gone"), 70),
        (file("labs/other.rs"), 400),
    ]
    .into_iter()
    .collect();
    let problems = against_list(&measured, &listed, &|file| !file.starts_with("labs/"));
    let said = |what: &str| problems.iter().filter(|p| p.contains(what)).count();
    assert_eq!(problems.len(), 7, "{problems:#?}");
    assert_eq!(said("grew.rs has 420 lines, more than its 400"), 1);
    assert_eq!(said("shrank.rs has 350 lines, fewer than its 400"), 1);
    assert_eq!(said("fits.rs has 120 lines and fits now"), 1);
    assert_eq!(said("new.rs has 301 lines (at most 300): split it"), 1);
    assert_eq!(said("`long` has 61 lines (at most 60): split it"), 1);
    assert_eq!(said("gone.rs is gone"), 1);
    assert_eq!(said("`gone` is gone"), 1);
}

/// The template lab that `cargo labs new` copies keeps the limits with no allowance, as a
/// scaffolded lab must (crates/gates/tests/gates/scaffold.rs applies the same measures to one).
#[test]
fn the_template_lab_keeps_the_limits_with_no_allowance() {
    let templates = repo().join("crates/workbook/templates");
    let loaded = workbook::meta::load_labs(&templates).expect("the template lab loads");
    assert_eq!(
        loaded.labs.len(),
        1,
        "one template lab: {:?}",
        loaded.broken
    );
    let lab = &loaded.labs[0];
    let files = learner_visible(&templates, lab);
    assert!(
        files
            .iter()
            .any(|f| f.starts_with(templates.join("solutions"))),
        "the solved learner file is measured too: {files:?}"
    );
    // As the scaffold's gate does.
    let mut problems: Vec<String> = file_sizes(&templates, lab)
        .into_iter()
        .filter(|(lines, _)| *lines > MAX_FILE_LINES)
        .map(|(lines, file)| format!("{file}: {lines} lines"))
        .collect();
    problems.extend(long_functions(&templates, lab));
    problems.extend(import_circles(lab));
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}
