//! What the gates share beyond the CLI's test helpers (`common`): the book's rules and
//! the readability limits (the catalogue's packages are `workbook::mutants::gate`).
#![allow(dead_code)]

pub mod book_rules;
pub mod readability;
