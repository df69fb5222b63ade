//! A command's arguments: `--flag VALUE` pairs, bare flags and positional arguments, each
//! taken by the command that knows them; whatever is left over is refused by name.

use crate::error::{Error, Result};

pub struct Args {
    command: &'static str,
    rest: Vec<String>,
}

impl Args {
    pub fn new(command: &'static str, rest: &[String]) -> Args {
        Args {
            command,
            rest: rest.to_vec(),
        }
    }

    /// Takes a bare flag: true when it was given.
    pub fn flag(&mut self, name: &str) -> bool {
        let before = self.rest.len();
        self.rest.retain(|a| a != name);
        self.rest.len() != before
    }

    /// Takes `name VALUE`, once.
    pub fn value(&mut self, name: &str) -> Result<Option<String>> {
        let Some(i) = self.rest.iter().position(|a| a == name) else {
            return Ok(None);
        };
        if i + 1 >= self.rest.len() {
            return Err(Error::input(format!("`{name}` needs a value")));
        }
        let value = self.rest.remove(i + 1);
        self.rest.remove(i);
        Ok(Some(value))
    }

    /// Takes every `name VALUE`, in order.
    pub fn values(&mut self, name: &str) -> Result<Vec<String>> {
        let mut all = Vec::new();
        while let Some(value) = self.value(name)? {
            all.push(value);
        }
        Ok(all)
    }

    /// Takes `name VALUE` and parses the value.
    pub fn parsed<T: std::str::FromStr>(&mut self, name: &str) -> Result<Option<T>> {
        match self.value(name)? {
            None => Ok(None),
            Some(text) => text.parse().map(Some).map_err(|_| {
                Error::input(format!("`{name} {text}`: {text} is not a valid value here"))
            }),
        }
    }

    /// The positional arguments; an unknown `--flag` is refused by name.
    pub fn positional(self) -> Result<Vec<String>> {
        let command = self.command;
        if let Some(flag) = self.rest.iter().find(|a| a.starts_with("--")) {
            return Err(Error::input(format!(
                "`cargo labs {command}` does not know `{flag}`; see `cargo labs {command} --help`"
            )));
        }
        Ok(self.rest)
    }

    /// Everything not taken yet, as given (for a command that passes its arguments on).
    pub fn rest(self) -> Vec<String> {
        self.rest
    }

    /// The usage error of this command.
    pub fn usage(&self) -> Error {
        super::usage_error(self.command)
    }

    /// Exactly one positional argument (a lab), or the usage error.
    pub fn one(self) -> Result<String> {
        let usage = self.usage();
        match <[String; 1]>::try_from(self.positional()?) {
            Ok([one]) => Ok(one),
            Err(_) => Err(usage),
        }
    }

    /// No positional argument, or the usage error.
    pub fn none(self) -> Result<()> {
        let usage = self.usage();
        if self.positional()?.is_empty() {
            Ok(())
        } else {
            Err(usage)
        }
    }
}
