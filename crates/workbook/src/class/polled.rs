//! Predictions on the record: the live poll's round-1 votes (`cargo labs poll serve`),
//! made in class before the lab ran and stamped by the server, scored in place of the
//! predictions files a learner holds (and could rewrite). A learner is found in the poll
//! by their submission's name: the roster's id or name, or the name they voted under.

use crate::error::{Error, Result};
use crate::meta::Lab;
use crate::poll::db::{PolledLearner, round_one_answers};
use crate::predictions::{Answer, Predictions, Seal};
use std::collections::BTreeMap;
use std::path::Path;

/// The poll's round-1 votes, read once for the whole class.
pub struct Polled {
    learners: Vec<PolledLearner>,
}

fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

impl Polled {
    pub fn read(path: &Path) -> Result<Polled> {
        let learners = round_one_answers(path)
            .map_err(|e| Error::input(format!("{}: {e}", path.display())))?;
        Ok(Polled { learners })
    }

    /// What the poll holds of `learner` for `lab`, as predictions sealed when the vote was
    /// received (nothing revised: a vote is final once its round closed); an error in words
    /// when the poll holds nothing.
    pub fn predictions(
        &self,
        learner: &str,
        lab: &Lab,
    ) -> std::result::Result<Option<Predictions>, String> {
        let found = self.learners.iter().find(|p| {
            same(&p.name, learner) || p.roster_id.as_deref().is_some_and(|id| same(id, learner))
        });
        let Some(polled) = found else {
            return Err(format!(
                "the poll holds no vote under `{learner}` (a roster id or name, or the name voted under)"
            ));
        };
        let Some(vote) = polled
            .labs
            .iter()
            .find(|v| v.lab == lab.meta.id || v.lab == lab.meta.number)
        else {
            return Err(format!(
                "the poll holds no closed round-1 vote of `{learner}` for lab {}",
                lab.meta.number
            ));
        };
        let answers: BTreeMap<String, Answer> = (vote.answers.iter())
            .map(|(id, choice)| (id.clone(), choice.answer()))
            .collect();
        let seal = Seal::new(lab, &answers, &vote.voted_at);
        Ok(Some(Predictions {
            answers,
            seal: Some(seal),
            legacy_seal: None,
        }))
    }
}
