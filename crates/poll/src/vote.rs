//! The checks a vote passes before the store sees it: the class code, a lab of this poll
//! asked the same way on both sides, a name a person could have, and answers to that
//! lab's items only, each of its item's kind.

use crate::error::{PollError, Result};
use crate::store::same_secret;
use workbook::meta::{Lab, item_id};
use workbook::poll::wire::{Choice, MAX_NAME_CHARS, RefusalKind, Vote, items_digest};

/// The lab `vote` is for, once the vote is known to be well formed for it.
pub fn check<'a>(labs: &'a [Lab], code: &str, vote: &Vote) -> Result<&'a Lab> {
    if !same_secret(&vote.code.trim().to_ascii_uppercase(), code) {
        return Err(PollError::new(
            RefusalKind::WrongCode,
            "this is not the class code of this poll: check the code your teacher shows",
        ));
    }
    let lab = find(labs, &vote.lab)?;
    if vote.items != items_digest(lab) {
        return Err(PollError::new(
            RefusalKind::OtherItems,
            format!(
                "your lab {} asks other questions than your teacher's copy: update your workbook (your teacher knows which version the class uses)",
                lab.meta.number
            ),
        ));
    }
    check_name(&vote.name)?;
    if let Some(token) = &vote.token
        && (token.len() != 32 || !token.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(PollError::new(
            RefusalKind::TokenWrong,
            "the token is not one this poll gives",
        ));
    }
    if vote.answers.is_empty() {
        return Err(PollError::new(
            RefusalKind::BadAnswer,
            "the vote holds no answer",
        ));
    }
    for (id, choice) in &vote.answers {
        check_answer(lab, id, *choice)?;
    }
    Ok(lab)
}

/// A lab of this poll, by id (`outbox`) or number (`01` or `1`).
pub fn find<'a>(labs: &'a [Lab], wanted: &str) -> Result<&'a Lab> {
    let number = wanted.parse::<u32>().ok();
    let found = labs.iter().find(|lab| {
        lab.meta.id == wanted || (number.is_some() && lab.meta.number.parse::<u32>().ok() == number)
    });
    found.ok_or_else(|| {
        let polled: Vec<&str> = labs.iter().map(|l| l.meta.number.as_str()).collect();
        let shown: String = wanted.chars().take(40).collect();
        PollError::new(
            RefusalKind::UnknownLab,
            format!(
                "lab `{shown}` is not in this poll: it polls lab {}",
                polled.join(", ")
            ),
        )
    })
}

fn check_name(name: &str) -> Result<()> {
    let name = name.trim();
    let count = name.chars().count();
    if count == 0 || count > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(PollError::new(
            RefusalKind::Malformed,
            format!("a name is 1 to {MAX_NAME_CHARS} characters, without control characters"),
        ));
    }
    Ok(())
}

fn check_answer(lab: &Lab, id: &str, choice: Choice) -> Result<()> {
    let n = &lab.meta.number;
    let shown: String = id.chars().take(20).collect();
    let index = lab
        .item_index(id)
        .filter(|i| item_id(*i) == id)
        .ok_or_else(|| {
            let last = item_id(lab.prediction_count().saturating_sub(1));
            PollError::new(
                RefusalKind::BadAnswer,
                format!("`{shown}` is not an item of lab {n}: its items are q01 to {last}"),
            )
        })?;
    let checks = lab.meta.checks.len();
    let fits = match (index < checks, choice) {
        (true, Choice::Yes | Choice::No) => true,
        (false, Choice::Letter(letter)) => lab.meta.questions[index - checks]
            .options
            .contains_key(&letter.to_string()),
        _ => false,
    };
    if fits {
        return Ok(());
    }
    let expected = if index < checks {
        "`yes` or `no`".to_string()
    } else {
        let letters: Vec<&str> = (lab.meta.questions[index - checks].options.keys())
            .map(String::as_str)
            .collect();
        format!("one of {}", letters.join(", "))
    };
    Err(PollError::new(
        RefusalKind::BadAnswer,
        format!("{id} of lab {n} takes {expected}, not `{choice}`"),
    ))
}
