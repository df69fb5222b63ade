//! What a query sees before the commit, a resend inside W2's open stream, and a group with
//! one stream that is not finalized, committed in parts or again.

use super::{Batch, error_names, rows};
use labkit::Observation;
use serde_json::{Map, Value};

/// Appends and finalizations without a commit; then, in another run, W2 resends its last
/// row at offset 3 of its open stream.
pub fn before_the_commit(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    let row_counts = (b.finalize(&s1), b.finalize(&s2));
    obs.ask("W1 and W2 have run the worker code above, and the coordinator has finalized s1 and s2 but sent no commit. Does a query of `daily` return any row?", b.visible() > 0);
    summary.insert(
        "finalize_row_counts".into(),
        format!("{row_counts:?}").into(),
    );

    let mut b = Batch::new();
    let [_, s2] = b.both_workers();
    let resent = b.append(&s2, 3, rows("W2", 4, 5));
    obs.ask("In another run, before anything is finalized, W2 resends its last row, position 4, to s2 at offset 3. Is that append accepted?", resent.is_ok());
}

/// s1 finalized, s2 not, and the group committed; then [s1] alone; then the group again,
/// once s2 is finalized.
pub fn one_unfinalized_stream(obs: &mut Observation, summary: &mut Map<String, Value>) {
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize s1");
    let first = b.commit(&[s1.clone(), s2.clone()]).expect("commit");
    obs.ask("In another run the coordinator finalizes s1 but not s2 and commits [s1, s2]. Does GetWriteStream show a commit_time on s1 afterwards?", b.commit_time(&s1).is_some());
    summary.insert(
        "stream_errors".into(),
        format!("{:?}", error_names(&first)).into(),
    );
    b.commit(std::slice::from_ref(&s1)).expect("commit s1");
    obs.ask(
        "After that commit, the coordinator commits [s1] alone. Does position 1 appear in the table?",
        b.copies(1) > 0,
    );
    b.finalize(&s2).expect("finalize s2");
    let group = b.commit(&[s1, s2]).expect("commit the group");
    obs.ask(
        "Then it finalizes s2 and commits [s1, s2]. Does position 3 appear in the table?",
        b.copies(3) > 0,
    );
    let errors = format!("{:?}", error_names(&group));
    summary.insert("group_after_s1_alone".into(), errors.into());
}

/// The variation: after the first commit, s2 is finalized and the same group sent again.
pub fn the_group_sent_again(obs: &mut Observation) {
    let mut b = Batch::new();
    let [s1, s2] = b.both_workers();
    b.finalize(&s1).expect("finalize s1");
    let group = [s1, s2.clone()];
    let first = b.commit(&group).expect("commit");
    b.finalize(&s2).expect("finalize s2");
    let again = b.commit(&group).expect("commit again");
    let letter = match (b.shows(0, 2), b.shows(2, 5)) {
        (false, false) => "a",
        (true, false) => "b",
        (false, true) => "c",
        (true, true) => "d",
    };
    obs.choose("In the run where s2 was not finalized, suppose instead that after that first commit the coordinator finalizes s2 and sends [s1, s2] again. Which rows does the table show then?",
        letter,
        format!(
            "the first commit answered {:?}; the second answered commit_time {:?}; the table shows {} rows",
            error_names(&first),
            again.commit_time,
            b.visible()
        ),
    );
}
