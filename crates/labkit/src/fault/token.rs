//! Replay tokens: the option taken at each choice of a schedule ([`Token`]) and the
//! digest of the choice sites it was made on ([`SiteDigest`]), so that a replay can refuse
//! a token the code no longer fits.

use super::event::Choice;
use crate::hash::Fnv64;
use std::fmt;

/// A short digest of the choices along a path: each choice's site and the option it
/// took, FNV-1a hashed and folded to 20 bits, printed as five hex digits. A token carries
/// the digest of the choices it was made on, so a replay can tell whether the code still
/// offers the same choices along the same path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SiteDigest(u32);

impl SiteDigest {
    /// The digest of `choices`, in order.
    pub fn of(choices: &[Choice]) -> SiteDigest {
        let mut hash = Fnv64::new();
        for choice in choices {
            hash.write(choice.site.as_bytes());
            hash.write(&[0x1f]);
            hash.write(choice.option.as_bytes());
            hash.write(&[0x1e]);
        }
        let h = hash.finish();
        SiteDigest(((h ^ (h >> 20) ^ (h >> 40)) & 0xF_FFFF) as u32)
    }

    fn parse(text: &str) -> Option<SiteDigest> {
        if text.len() != 5 || !text.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(text, 16).ok().map(SiteDigest)
    }
}

impl fmt::Display for SiteDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:05x}", self.0)
    }
}

/// A replay token: the option taken at each choice of a schedule (trailing zeros, the
/// "nothing unusual" options after the last fault, dropped) and the [`SiteDigest`] of the
/// choices they were taken at.
///
/// Printed as `v2:0.0.1@3fa2c` (the schedule that takes no unusual option is `v2:none`;
/// a bare `v2:` still parses as it). Version 1 tokens
/// (`v1:0.0.1`) carried no digest; they still parse, as unverified tokens.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    pub(super) path: Vec<usize>,
    /// `None` for a token that names no sites (a `v1:` token, or one built by hand).
    sites: Option<SiteDigest>,
}

impl Token {
    /// The schedule with no fault: option 0 at every choice. It is the same schedule in
    /// every version of the code, so it needs no digest.
    pub fn fault_free() -> Token {
        Token {
            path: Vec::new(),
            sites: None,
        }
    }

    /// A token for a path written by hand, which names no sites: replaying it cannot
    /// prove it is the schedule it was meant to be.
    pub fn unverified(path: Vec<usize>) -> Token {
        Token { path, sites: None }
    }

    /// The token of a run that took `choices`: its path up to the last fault, and the
    /// digest of the choices on it.
    pub(crate) fn of_run(choices: &[Choice]) -> Token {
        let length = choices
            .iter()
            .rposition(|c| c.index != 0)
            .map_or(0, |last| last + 1);
        let path = choices[..length].iter().map(|c| c.index).collect();
        Token {
            path,
            sites: (length > 0).then(|| SiteDigest::of(&choices[..length])),
        }
    }

    pub(super) fn from_path(indices: impl IntoIterator<Item = usize>) -> Token {
        let mut path: Vec<usize> = indices.into_iter().collect();
        while path.last() == Some(&0) {
            path.pop();
        }
        Token::unverified(path)
    }

    /// The option index taken at each choice.
    pub fn path(&self) -> &[usize] {
        &self.path
    }

    /// The digest of the choices the token was made on, when it names them.
    pub fn sites(&self) -> Option<SiteDigest> {
        self.sites
    }

    /// Parses a list of token literals (a graded suite's determinism sample); a malformed
    /// literal is a bug in the suite, so it panics with the parse error.
    pub fn parse_all(texts: &[&str]) -> Vec<Token> {
        texts
            .iter()
            .map(|t| Token::parse(t).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    /// Parses a token as a failure report prints it on its `replay:` line, or says why
    /// `text` is not one.
    pub fn parse(text: &str) -> Result<Token, String> {
        let trimmed = text.trim();
        let path_of = |body: &str| -> Result<Vec<usize>, String> {
            if body.is_empty() {
                return Ok(Vec::new());
            }
            body.split('.')
                .map(|part| {
                    part.parse::<usize>()
                        .map_err(|_| format!("`{part}` in token `{text}` is not a choice index"))
                })
                .collect()
        };
        if let Some(body) = trimmed.strip_prefix("v2:") {
            // `v2:none` as printed; a bare `v2:` as printed before.
            if body.is_empty() || body == "none" {
                return Ok(Token::fault_free());
            }
            let (path, sites) = body.split_once('@').ok_or_else(|| {
                format!(
                    "a `v2:` token ends with `@` and the five hex digits of its choice sites, got `{text}`"
                )
            })?;
            let sites = SiteDigest::parse(sites)
                .ok_or_else(|| format!("`{sites}` in token `{text}` is not five hex digits"))?;
            return Ok(Token {
                path: path_of(path)?,
                sites: Some(sites),
            });
        }
        if let Some(body) = trimmed.strip_prefix("v1:") {
            return Ok(Token::unverified(path_of(body)?));
        }
        Err(format!(
            "a replay token starts with `v2:` (or the older `v1:`), got `{text}`"
        ))
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.path.iter().map(|i| i.to_string()).collect();
        match self.sites {
            // Not a bare `v2:`, which reads as a line cut short.
            _ if self.path.is_empty() => f.write_str("v2:none"),
            Some(sites) => write!(f, "v2:{}@{sites}", parts.join(".")),
            None => write!(f, "v1:{}", parts.join(".")),
        }
    }
}
