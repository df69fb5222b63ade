//! A learner file as a sequence of normalised tokens, each with its line.
//!
//! Normalising is what makes renaming and reformatting change nothing: every identifier
//! becomes one class, every literal its kind, while keywords, punctuation and delimiters
//! stay as they are. Spacing, line breaks and comments are gone once the text is read as
//! Rust tokens; doc comments, which the lexer turns into `#[doc = "…"]` attributes, are
//! dropped too, so adding or removing `///` lines changes nothing either.
//!
//! More is layout that rustfmt changes with the line width, so it is dropped: commas (a
//! trailing comma comes and goes, and a match arm loses its comma when its body becomes a
//! block) and the braces of a block that is a match arm's or a closure's body. And
//! the file remembers where each top-level item starts, so that no k-gram spans two
//! items: items can be put in any order.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use std::str::FromStr;

/// Keywords (and the reserved words a learner file could use) keep their own code: they
/// carry a program's structure, and no renaming changes them.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "yield",
];

/// Codes below 256 are punctuation characters; keywords, identifiers, literals,
/// lifetimes and delimiters take the codes above.
const IDENT: u32 = 300;
const LIFETIME: u32 = 301;
const LITERAL: u32 = 310;
const OPEN: u32 = 320;
const CLOSE: u32 = 330;
const KEYWORD: u32 = 400;

/// Normalised token codes and, for each, the line it starts on (1-based).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    pub codes: Vec<u32>,
    pub lines: Vec<usize>,
    /// For each token, the number of the top-level item it belongs to.
    pub items: Vec<usize>,
}

/// Reads `text` as Rust tokens. A text that does not lex (an unclosed delimiter, an
/// unterminated string) yields no tokens: it is compared with nothing.
pub fn read(text: &str) -> Tokens {
    let mut tokens = Tokens::default();
    if let Ok(stream) = TokenStream::from_str(text) {
        flatten(stream, &mut tokens, Some(&mut 0));
    }
    tokens
}

/// Appends the normalised tokens of `stream`. `item` is the current top-level item's
/// number when `stream` is the file itself, and `None` inside a group.
fn flatten(stream: TokenStream, out: &mut Tokens, mut item: Option<&mut usize>) {
    let trees: Vec<TokenTree> = stream.into_iter().collect();
    let mut at = 0;
    while at < trees.len() {
        let line = trees[at].span().start().line;
        match &trees[at] {
            TokenTree::Punct(punct) if punct.as_char() == '#' => {
                // `#[doc = …]` and `#![doc = …]` are comments the lexer kept.
                match doc_attribute_length(&trees[at..]) {
                    Some(length) => at += length - 1,
                    None => out.push(u32::from('#'), line),
                }
            }
            TokenTree::Punct(punct) if punct.as_char() == '\'' => {
                // A lifetime is a joint `'` and the identifier after it: one class.
                at += 1;
                out.push(LIFETIME, line);
            }
            TokenTree::Punct(punct) if punct.as_char() == ',' => {}
            // Spacing is left out: whether `=` touches the `-` after it is layout.
            TokenTree::Punct(punct) => out.push(u32::from(punct.as_char()), line),
            TokenTree::Ident(ident) => out.push(ident_code(&ident.to_string()), line),
            TokenTree::Literal(literal) => {
                out.push(LITERAL + literal_kind(&literal.to_string()), line)
            }
            TokenTree::Group(group)
                if group.delimiter() == Delimiter::Brace && out.ends_body_start() =>
            {
                flatten(group.stream(), out, None);
            }
            TokenTree::Group(group) => {
                let delimiter = delimiter_code(group.delimiter());
                out.push(OPEN + delimiter, line);
                flatten(group.stream(), out, None);
                out.push(CLOSE + delimiter, group.span_close().start().line);
            }
        }
        if let Some(item) = item.as_deref_mut() {
            out.items.resize(out.codes.len(), *item);
            *item += usize::from(ends_item(&trees[at], trees.get(at + 1)));
        }
        at += 1;
    }
}

/// Whether a top-level item ends with `tree`: its body (`{ … }`, unless a `;` follows, as
/// in `use a::{b, c};`) or its `;`.
fn ends_item(tree: &TokenTree, next: Option<&TokenTree>) -> bool {
    let semicolon = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == ';');
    match tree {
        TokenTree::Group(group) => {
            group.delimiter() == Delimiter::Brace && !next.is_some_and(semicolon)
        }
        other => semicolon(other),
    }
}

/// How many trees a doc attribute starting at `trees[0]` (a `#`) takes, if it is one.
fn doc_attribute_length(trees: &[TokenTree]) -> Option<usize> {
    let inner = matches!(trees.get(1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
    let length = if inner { 3 } else { 2 };
    trees.get(length - 1).filter(|t| is_doc(t)).map(|_| length)
}

impl Tokens {
    fn push(&mut self, code: u32, line: usize) {
        self.codes.push(code);
        self.lines.push(line);
    }

    /// Whether the last tokens are `=>` or a closure's `|`: a brace group here is a match
    /// arm's or a closure's body, which rustfmt wraps in braces or not by width.
    fn ends_body_start(&self) -> bool {
        self.codes.ends_with(&[u32::from('='), u32::from('>')])
            || self.codes.ends_with(&[u32::from('|')])
    }
}

fn is_doc(tree: &TokenTree) -> bool {
    let TokenTree::Group(group) = tree else {
        return false;
    };
    group.delimiter() == Delimiter::Bracket && first_ident(group).as_deref() == Some("doc")
}

fn first_ident(group: &Group) -> Option<String> {
    match group.stream().into_iter().next() {
        Some(TokenTree::Ident(ident)) => Some(ident.to_string()),
        _ => None,
    }
}

fn ident_code(name: &str) -> u32 {
    // `r#match` is an identifier that happens to be spelled like a keyword.
    if name.starts_with("r#") {
        return IDENT;
    }
    match KEYWORDS.iter().position(|k| *k == name) {
        Some(index) => KEYWORD + index as u32,
        None => IDENT,
    }
}

fn delimiter_code(delimiter: Delimiter) -> u32 {
    match delimiter {
        Delimiter::Parenthesis => 0,
        Delimiter::Brace => 1,
        Delimiter::Bracket => 2,
        Delimiter::None => 3,
    }
}

/// The kind of a literal: its value is a detail a copier changes freely.
fn literal_kind(text: &str) -> u32 {
    let unprefixed = text.trim_start_matches(['b', 'c', 'r']);
    if unprefixed.starts_with('"') || unprefixed.starts_with('#') {
        return if text.starts_with('b') { 1 } else { 0 };
    }
    if text.starts_with('\'') {
        return 2;
    }
    if text.starts_with("b'") {
        return 3;
    }
    let hex = text.starts_with("0x") || text.starts_with("0X");
    let float = text.contains('.')
        || text.ends_with("f32")
        || text.ends_with("f64")
        || (!hex && text.contains(['e', 'E']));
    if float { 4 } else { 5 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_values_layout_and_comments_change_nothing() {
        let one = read("/// Adds.\nfn add(a: u32, b: u32) -> u32 {\n    a + b + 1 // one\n}\n");
        let two = read("#![doc = \"x\"]\nfn   plus(x:u64,y:u64)->u64{x+y+7}");
        assert_eq!(one.codes, two.codes);
        assert_eq!(one.lines.first(), Some(&2));
    }

    #[test]
    fn keywords_kinds_and_structure_do_change_the_tokens() {
        assert_ne!(read("let a = 1;").codes, read("let a = 1.0;").codes);
        assert_ne!(read("let a = \"1\";").codes, read("let a = '1';").codes);
        assert_ne!(read("if a { b }").codes, read("while a { b }").codes);
        assert_ne!(read("f(a)").codes, read("f[a]").codes);
        assert_eq!(read("r#match").codes, read("other").codes);
        assert_eq!(read("0x1e").codes, read("7").codes);
        assert_eq!(read("r#\"a\"#").codes, read("\"b\"").codes);
        assert_eq!(
            read("fn f<'a>(x: &'a u8) {}").codes,
            read("fn g<'b>(y: &'b u8) {}").codes
        );
    }

    #[test]
    fn trailing_commas_and_body_blocks_are_layout() {
        let wide = read("fn f(a: u8, b: u8) { match a { 0 => g(a, b), _ => h() } }");
        let narrow = read(
            "fn f(\n    a: u8,\n    b: u8,\n) {\n    match a {\n        0 => {\n            g(a, b)\n        }\n        _ => h(),\n    }\n}\n",
        );
        assert_eq!(wide.codes, narrow.codes);
    }

    #[test]
    fn each_token_knows_its_top_level_item() {
        let read = read("use a::{b, c};\nfn f() { g(); }\nconst X: u8 = 1;\n");
        assert_eq!(read.items.len(), read.codes.len());
        assert_eq!(read.items.first(), Some(&0));
        assert_eq!(read.items.last(), Some(&2));
        assert!(read.items.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn text_that_does_not_lex_has_no_tokens() {
        assert!(read("fn f() {").codes.is_empty());
    }
}
