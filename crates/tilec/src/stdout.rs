//! Standard output that may be a pipe closed early (`tilec compile ... --emit asm | head`).
//!
//! Rust ignores SIGPIPE, so a write into a closed pipe fails with `BrokenPipe`, and `print!`
//! panics on it. [`Stdout`] instead remembers that the reader is gone and drops what follows;
//! the command still finishes its work (a `tilec run` writes its `--out` files) and exits
//! with [`CLOSED_EXIT_CODE`], as a tool that SIGPIPE stopped does.

use std::io::{ErrorKind, Write};

use crate::cli_error::{codes, CliError};

/// The exit status after output into a closed pipe: 128 + SIGPIPE (13), what a shell shows
/// for a tool that the signal ended.
pub const CLOSED_EXIT_CODE: u8 = 141;

/// The process's standard output, written whole and flushed at every call.
#[derive(Debug, Default)]
pub struct Stdout {
    closed: bool,
}

impl Stdout {
    /// Writes `bytes`; nothing once the reader has gone. Errors other than a closed pipe
    /// (a full disk behind a redirection) are reported.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        if self.closed {
            return Ok(());
        }
        let mut out = std::io::stdout().lock();
        match out.write_all(bytes).and_then(|()| out.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(CliError::new(codes::IO, format!("cannot write to the standard output: {e}"))),
        }
    }

    /// Writes `text` and a newline.
    pub fn line(&mut self, text: &str) -> Result<(), CliError> {
        self.write(format!("{text}\n").as_bytes())
    }

    /// Whether a write found the reader gone.
    pub fn closed(&self) -> bool {
        self.closed
    }
}

/// Writes `text` to standard error, ignoring a failure (`eprint!` panics on one; there is
/// nowhere left to report it).
pub fn to_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
