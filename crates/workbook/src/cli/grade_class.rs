//! `cargo labs grade-class DIR…`: the entry; the grading itself is `crate::class`.

use super::{Command, Section};
use crate::class::Options;

pub const COMMAND: Command = Command {
    name: "grade-class",
    section: Section::Teacher,
    usage: "cargo labs grade-class DIR… [--json FILE] [--csv FILE] [--report FILE.html] [--labs N,N] [--jobs N] [--work DIR] [--predictions-from POLL.db] [--classroom [--base64]] [--no-sandbox]",
    about: "grade a folder of submissions with this copy's settings, suites and keys: only each lab's\n\
            learner files and predictions.txt are taken from a submission (see the teacher's chapter).\n\
            The summary and the CSV give each lab's status and everything that needs your attention;\n\
            --report writes the class report's page (`cargo labs class report` makes it from the JSON).\n\
            --jobs grades that many submissions at once (default: the cores). --work sets where the\n\
            scratch trees and their builds live (default: target/grade-class in this copy).\n\
            --predictions-from scores the live poll's round-1 votes (closed rounds, stamped by the\n\
            server, names bound to the roster) instead of the learners' predictions files. --classroom\n\
            prints one submission's GitHub Classroom result (--base64 encodes it). Grading runs in\n\
            bubblewrap's sandbox and refuses to start without it, unless you say --no-sandbox.",
    run: |wb, mut args| {
        let options = Options {
            json: args.value("--json")?.map(Into::into),
            csv: args.value("--csv")?.map(Into::into),
            report: args.value("--report")?.map(Into::into),
            labs: (args.value("--labs")?)
                .map(|l| l.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
            work: args.value("--work")?.map(Into::into),
            jobs: args.parsed("--jobs")?,
            predictions_from: args.value("--predictions-from")?.map(Into::into),
            classroom: args.flag("--classroom"),
            base64: args.flag("--base64"),
            no_sandbox: args.flag("--no-sandbox"),
        };
        let usage = args.usage();
        let dirs: Vec<std::path::PathBuf> = args.positional()?.iter().map(Into::into).collect();
        if dirs.is_empty() {
            return Err(usage);
        }
        crate::class::grade_class(wb, &dirs, &options)
    },
};
