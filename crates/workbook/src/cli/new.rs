//! `cargo labs new NN-slug "Title"`: a lab the gates accept as it is.

use super::{Command, Section};

pub const COMMAND: Command = Command {
    name: "new",
    section: Section::Teacher,
    usage: "cargo labs new NN-slug \"Title\"",
    about: "scaffold a lab the consistency gate accepts",
    run: |wb, args| {
        let usage = args.usage();
        let [slug, title] = <[String; 2]>::try_from(args.positional()?).map_err(|_| usage)?;
        for path in crate::scaffold::scaffold(&wb.root, &slug, &title)? {
            println!("  wrote {}", path.display());
        }
        let number = slug.get(..2).unwrap_or(&slug);
        println!(
            "\nNext: `cargo test -p solution{slug} --test graded` passes, `cargo labs check {slug}` fails one test.\n\
             Then replace the placeholder scenario with the lab's own (see CONTRIBUTING.md), run\n\
             `cargo labs bless {number}` to publish what the gate derives, and grow the catalogue to eight wrong\n\
             solutions, each a mutant.toml whose [[edit]]s make one mistake in the solution\n\
             (solutions/{slug}/mutants/; `LABS_ONLY={number} cargo test -p gates --test gates mutants::`)."
        );
        Ok(())
    },
};
