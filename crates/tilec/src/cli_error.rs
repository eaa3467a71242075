//! Errors of the `tilec` command-line tool: the library's [`tilec::Error`].

pub use tilec::error::codes;
pub use tilec::Error as CliError;
