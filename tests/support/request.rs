//! The `tilec::Request` of a fixture's `# tilec:` header, shared by the workspace-level
//! tests that compile through the library. Include after `fixture` with
//! `#[path = "support/request.rs"] mod request;`.

#![allow(dead_code)]

use super::fixture::{CompileHeader, Fixture};
use tilec::diagnostics::Diagnostic;

/// The request compiling `header`'s kernel in `source` (named `file_name` in diagnostics);
/// `Err` is the diagnostic of a signature that does not parse.
pub fn of_source<'a>(
    file_name: &'a str,
    source: &'a str,
    header: &'a CompileHeader,
) -> Result<tilec::Request<'a>, Diagnostic> {
    let signature = tilec_front::parse_signature(&header.signature)?;
    let constants = header.constants.iter().map(|(k, v)| (k.clone(), tilec_front::parse_const_value(v))).collect();
    Ok(tilec::Request { file_name, source, kernel: &header.kernel, signature, constants })
}

/// [`of_source`] for fixture `f` itself.
pub fn of<'a>(f: &'a Fixture, header: &'a CompileHeader) -> Result<tilec::Request<'a>, Diagnostic> {
    of_source(&f.name, &f.source, header)
}
