//! No code the student edition ships answers a build phase. A lab's harness sources
//! (`labs/NN-*/src/` beside the learner's files: the observe phase's protocols, the
//! scenarios, the world) are in the learner's hands; a function there with the signature
//! of a learner function could be pasted into the learner's file. For every lab, every
//! such paste is built on the lab's harness — the starter with each learner function that
//! has a look-alike in the harness replaced by its body, in every combination, the helpers
//! of that body's file pasted beside it — and its graded suite must fail.
//!
//! The pastes are built the way the catalogue's wrong solutions are
//! (`workbook::mutants::gate::run_entries`), as edits of the reference solution that
//! replace it with the pasted starter.

use crate::common;

use common::{labs, repo};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use workbook::grade::LabRun;
use workbook::meta::Lab;
use workbook::mutants::{Edit, Mutant, MutantMeta};
use workbook::settings::Settings;

/// The most pastes one lab may need; beyond it the gate says so and tests the first ones.
const MOST_PASTES: usize = 24;

/// A top-level function of a source file: its name, its parameter types and return type
/// (as tokens print), its body, and the whole item from `fn` on.
#[derive(Clone, Debug)]
struct Function {
    name: String,
    shape: String,
    body: String,
    item: String,
    /// The identifiers its body uses.
    uses: BTreeSet<String>,
}

/// The parameter types of a parameter list, without the names.
fn parameter_types(params: &TokenStream) -> String {
    let mut types = Vec::new();
    let (mut current, mut depth, mut seen_colon) = (Vec::new(), 0i32, false);
    let mut previous_dash = false;
    for tree in params.clone() {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
            TokenTree::Punct(p) if p.as_char() == '>' && !previous_dash => depth -= 1,
            TokenTree::Punct(p) if p.as_char() == ',' && depth == 0 => {
                types.push(current.iter().map(ToString::to_string).collect::<Vec<_>>());
                (current, seen_colon) = (Vec::new(), false);
                continue;
            }
            TokenTree::Punct(p) if p.as_char() == ':' && depth == 0 && !seen_colon => {
                seen_colon = true;
                current.clear();
                continue;
            }
            _ => {}
        }
        previous_dash = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '-');
        current.push(tree);
    }
    if !current.is_empty() {
        types.push(current.iter().map(ToString::to_string).collect());
    }
    let types: Vec<String> = types.into_iter().map(|t| t.join(" ")).collect();
    types.join(", ")
}

fn identifiers(stream: &TokenStream, into: &mut BTreeSet<String>) {
    for tree in stream.clone() {
        match tree {
            TokenTree::Ident(i) => {
                into.insert(i.to_string());
            }
            TokenTree::Group(g) => identifiers(&g.stream(), into),
            _ => {}
        }
    }
}

/// The top-level functions of a Rust source file (none when it does not parse).
fn functions(source: &str) -> Vec<Function> {
    let Ok(stream) = source.parse::<TokenStream>() else {
        return Vec::new();
    };
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        let is_fn = matches!(&trees[i], TokenTree::Ident(k) if k == "fn");
        let Some(TokenTree::Ident(name)) = trees.get(i + 1).filter(|_| is_fn) else {
            i += 1;
            continue;
        };
        let Some(params) = (trees[i + 2..].iter()).position(
            |t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis),
        ) else {
            break;
        };
        let params = i + 2 + params;
        let Some(body) = (trees[params + 1..].iter())
            .position(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))
        else {
            break;
        };
        let body = params + 1 + body;
        let (TokenTree::Group(param_group), TokenTree::Group(body_group)) =
            (&trees[params], &trees[body])
        else {
            unreachable!("found as groups");
        };
        let returns: TokenStream = trees[params + 1..body].iter().cloned().collect();
        let mut uses = BTreeSet::new();
        identifiers(&body_group.stream(), &mut uses);
        found.push(Function {
            name: name.to_string(),
            shape: format!("({}) {}", parameter_types(&param_group.stream()), returns),
            body: body_group.stream().to_string(),
            item: trees[i..=body]
                .iter()
                .cloned()
                .collect::<TokenStream>()
                .to_string(),
            uses,
        });
        i = body + 1;
    }
    found
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for path in (std::fs::read_dir(dir).into_iter().flatten().flatten()).map(|e| e.path()) {
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// The harness sources of a lab the student edition ships: every `.rs` under its `src/`
/// but the learner's files and the crate roots.
fn harness_sources(lab: &Lab) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&lab.dir.join("src"), &mut files);
    let learner: Vec<PathBuf> = (lab.meta.learner_files.iter())
        .map(|f| lab.dir.join(f))
        .collect();
    files.retain(|f| {
        !learner.contains(f) && !f.ends_with("src/lib.rs") && !f.ends_with("src/main.rs")
    });
    files.sort();
    files
}

/// A harness function with a learner function's shape, and the helpers of its file it
/// calls (directly or through each other).
#[derive(Clone, Debug)]
struct Lookalike {
    file: String,
    function: Function,
    helpers: Vec<Function>,
}

/// `known`: the names the learner's file already has (imported or its own).
fn lookalikes(lab: &Lab, wanted: &Function, known: &BTreeSet<String>) -> Vec<Lookalike> {
    let sources: Vec<(PathBuf, Vec<Function>)> = (harness_sources(lab).into_iter())
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path, functions(&text))
        })
        .collect();
    let mut found = Vec::new();
    for (path, own) in &sources {
        // Helpers are looked for in the function's own file first, then in the others.
        let all: Vec<&Function> = (own.iter())
            .chain(
                sources
                    .iter()
                    .filter(|(p, _)| p != path)
                    .flat_map(|(_, f)| f),
            )
            .collect();
        for function in own.iter().filter(|f| f.shape == wanted.shape) {
            let mut helpers: Vec<Function> = Vec::new();
            let mut pending: Vec<&Function> = vec![function];
            while let Some(f) = pending.pop() {
                for helper in all.iter().filter(|h| f.uses.contains(&h.name)) {
                    let had = helper.name == function.name
                        || known.contains(&helper.name)
                        || helpers.iter().any(|h| h.name == helper.name);
                    if !had {
                        helpers.push((*helper).clone());
                        pending.push(helper);
                    }
                }
            }
            found.push(Lookalike {
                file: path.strip_prefix(&lab.dir).unwrap().display().to_string(),
                function: function.clone(),
                helpers,
            });
        }
    }
    found
}

/// `text` with the body of its function `name` replaced by `body`.
fn with_body(text: &str, name: &str, body: &str) -> String {
    let at = (text.match_indices(&format!("fn {name}")))
        .map(|(at, _)| at)
        .find(|at| {
            let after = &text[at + 3 + name.len()..];
            after.starts_with('(') || after.starts_with('<')
        })
        .unwrap_or_else(|| panic!("fn {name} in the learner's file"));
    let open = at + text[at..].find('{').expect("a body");
    let (mut depth, mut close) = (0, open);
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            close = open + i;
            break;
        }
    }
    format!("{}{{ {body} }}{}", &text[..open], &text[close + 1..])
}

/// One paste: which harness function went into which learner function.
#[derive(Clone, Debug)]
struct Paste {
    file: String,
    text: String,
    from: Vec<String>,
}

/// Every paste of a lab: the starter of each learner file with every learner function that
/// has look-alikes replaced, one combination of look-alikes each.
fn pastes(lab: &Lab) -> Vec<Paste> {
    let mut all = Vec::new();
    for file in &lab.meta.learner_files {
        let starter = std::fs::read_to_string(lab.dir.join(file)).unwrap();
        let mut known = BTreeSet::new();
        identifiers(&starter.parse().unwrap_or_default(), &mut known);
        let mut combinations: Vec<(String, Vec<String>, Vec<Function>)> =
            vec![(starter.clone(), Vec::new(), Vec::new())];
        for wanted in functions(&starter) {
            let options = lookalikes(lab, &wanted, &known);
            if options.is_empty() {
                continue;
            }
            let mut next = Vec::new();
            for (text, from, helpers) in &combinations {
                for option in &options {
                    let mut helpers = helpers.clone();
                    for h in &option.helpers {
                        if !helpers.iter().any(|k| k.name == h.name) {
                            helpers.push(h.clone());
                        }
                    }
                    let mut from = from.clone();
                    from.push(format!(
                        "{} ← {}::{}",
                        wanted.name, option.file, option.function.name
                    ));
                    let text = with_body(text, &wanted.name, &option.function.body);
                    next.push((text, from, helpers));
                }
            }
            combinations = next;
        }
        for (text, from, helpers) in combinations {
            if from.is_empty() {
                continue;
            }
            let helpers: Vec<String> = (helpers.iter())
                .map(|h| format!("#[allow(dead_code)]\n{}\n", h.item))
                .collect();
            all.push(Paste {
                file: file.clone(),
                text: format!("{text}\n{}", helpers.join("\n")),
                from,
            });
        }
    }
    all
}

/// A paste as an entry the gate builds: the reference solution replaced by it.
fn as_entry(lab: &Lab, n: usize, paste: &Paste) -> Mutant {
    let solution = repo().join("solutions").join(lab.slug()).join(&paste.file);
    let reference = std::fs::read_to_string(&solution).unwrap();
    Mutant {
        name: format!("paste{n}"),
        dir: repo().join("target/pastes").join(lab.slug()),
        meta: MutantMeta {
            misconception: paste.from.join("; "),
            section: String::new(),
            rejected_by: Vec::new(),
            explains: Vec::new(),
            edits: vec![Edit {
                file: Some(paste.file.clone()),
                find: reference,
                replace: paste.text.clone(),
            }],
            signature: Default::default(),
        },
    }
}

/// The parts of the harness, found by the shapes of the learner's functions, on lab 10:
/// the observe phase's protocols are found, with the helper one of them calls.
#[test]
fn the_observe_protocols_of_lab_10_are_found_as_pastes() {
    let lab = (workbook::meta::load_labs(&repo()).unwrap().labs.into_iter())
        .find(|l| l.meta.number == "10")
        .expect("lab 10");
    let pasted: Vec<String> = pastes(&lab).into_iter().flat_map(|p| p.from).collect();
    for expected in [
        "produce ← src/observe/protocols.rs::produce_in_tx",
        "produced ← src/observe/protocols.rs::advance_after_commit",
        "consume ← src/observe/protocols.rs::consume_in_tx",
        "commit_was_applied ← src/observe/protocols.rs::rows_in_the_sink",
    ] {
        assert!(
            pasted.iter().any(|p| p == expected),
            "{expected} in {pasted:?}"
        );
    }
}

#[test]
fn no_paste_of_the_harness_into_a_learner_file_passes_the_graded_suite() {
    let settings = Settings::load(&repo()).unwrap();
    let (mut entries, mut notes) = (Vec::new(), Vec::new());
    for lab in labs() {
        let mut found = pastes(&lab);
        if found.len() > MOST_PASTES {
            notes.push(format!(
                "lab {}: {} pastes, the first {MOST_PASTES} tested",
                lab.meta.number,
                found.len()
            ));
            found.truncate(MOST_PASTES);
        }
        for (n, paste) in found.iter().enumerate() {
            entries.push((lab.clone(), as_entry(&lab, n, paste)));
        }
    }
    let (runs, problems) =
        workbook::mutants::gate::run_entries(&repo(), "pastes", entries, &settings).unwrap();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let (mut passing, mut unbuilt) = (Vec::new(), Vec::new());
    for (lab, mutant, run) in &runs {
        let label = format!("lab {} {}", lab.meta.number, mutant.meta.misconception);
        match run {
            LabRun::Ran(suite) => {
                let failed = suite.tests.iter().filter(|t| !t.passed()).count();
                println!("{label}: fails {failed} of {} tests", suite.tests.len());
                if failed == 0 {
                    passing.push(label);
                }
            }
            other => {
                println!("{label}: does not build\n{}", short(other));
                unbuilt.push(label);
            }
        }
    }
    for note in &notes {
        println!("{note}");
    }
    // A paste that does not build proves nothing: a learner would fix its imports.
    assert!(
        unbuilt.is_empty(),
        "these pastes do not build, so the gate cannot judge them\n{}",
        unbuilt.join("\n")
    );
    assert!(
        passing.is_empty(),
        "these pastes of harness code into a learner file pass the graded suite: the \
         student edition ships the answer\n{}",
        passing.join("\n")
    );
}

fn short(run: &LabRun) -> String {
    match run {
        LabRun::DidNotCompile(text) => text.chars().take(2000).collect(),
        other => format!("{other:?}").chars().take(400).collect(),
    }
}
