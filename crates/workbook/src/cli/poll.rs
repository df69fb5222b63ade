//! `cargo labs poll serve …`: the live poll's server (teacher's edition); the learner's
//! side is `cargo labs predict N --send …`.

use super::{Command, Section};

pub const COMMAND: Command = Command {
    name: "poll",
    section: Section::Teacher,
    usage: "cargo labs poll serve [--labs N,…] [--listen ADDR:PORT] [--db FILE] [--roster FILE.csv]",
    about: "the live poll for peer instruction: prints the class code, the learners' URL and the\n\
            teacher's page. Listens on 127.0.0.1:8470 unless --listen names another address;\n\
            votes are kept in --db (default target/poll/poll.db), so a restart keeps the code,\n\
            the tokens and every vote. --roster binds names to a class list (CSV: id,name).\n\
            --rate N: requests per second one address may send (default 20). --remote-teacher\n\
            lets the teacher's page answer other machines (see the teacher's chapter)",
    run: |wb, args| {
        let rest = args.rest();
        let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
        crate::poll::launch(wb, &rest)
    },
};
