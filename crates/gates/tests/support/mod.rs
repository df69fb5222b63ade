//! What the gates share beyond the CLI's test helpers (`common`): the book's rules, the
//! catalogue's packages, the readability limits.
#![allow(dead_code)]

pub mod book_rules;
pub mod catalogue;
pub mod readability;
