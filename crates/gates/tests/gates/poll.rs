//! The live poll (`cargo labs poll serve`, `cargo labs predict N --send`), end to end:
//! each test starts the real server through the real CLI on a free loopback port, with a
//! database of its own, and ends it when it is done.
//!
//! * `class`: a dozen scripted learners vote two rounds through the CLI from their own
//!   workbooks; the teacher's page, in headless Chromium, shows both distributions, and
//!   the keys only once revealed; a restart keeps the code, the tokens and the votes; the
//!   grader's reader returns the round-1 answers.
//! * `refusals`: every kind of bad input gets its 4xx and its reason, stores nothing, and
//!   the server answers afterwards; a flood from one address is refused.
//! * `leaks`: no learner-facing answer holds a key, a claim, an explanation or a hint of
//!   any lab, even with every lab revealed on the teacher's page.
//! * `load`: 300 learners × 40 items, both rounds, lose no vote.
//!
//! No test asserts on time; the benchmark (`cargo run --example poll_bench -p
//! boundary-poll`) measures it. The whole file is the teacher's edition's: the student
//! edition has no poll server.

use crate::common;
mod harness;

mod class;
mod leaks;
mod load;
mod refusals;
