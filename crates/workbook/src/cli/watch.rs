//! `cargo labs watch [N]`: the entry; the watching itself is `crate::watch`.

use super::{Command, Section};

pub const COMMAND: Command = Command {
    name: "watch",
    section: Section::Learner,
    usage: "cargo labs watch [N]",
    about: "re-check the lab on every save (keys: h hint, r run, c check, n next, q quit)",
    run: |wb, args| {
        let usage = args.usage();
        match args.positional()?.as_slice() {
            [] => crate::watch::watch(wb, None),
            [lab] => crate::watch::watch(wb, Some(wb.lab(lab)?)),
            _ => Err(usage),
        }
    },
};
