//! The built-in library: the parts of `triton.language` written in Triton itself, as Triton
//! writes them in `standard.py` and `random.py`. Each file is parsed on the first look-up of one
//! of its functions (most kernels call none of them; a matmul calls `tl.cdiv` only, and parsing
//! the random number generator costs more than a small kernel's own file), then inlined like
//! user helpers.

use std::sync::OnceLock;

use tilec_diagnostics::Diagnostic;
use tilec_syntax::ast;

use crate::errors;

/// One file of the built-in library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Library {
    /// `standard.py`: `_log2`, `_is_power_of_two`, `cdiv`, `sigmoid`, `softmax`, `swizzle2d`.
    Standard,
    /// `random.py`: Philox and `rand`, `randn`, `randint`, `randint4x`, ...
    Random,
}

const LIBRARIES: [Library; 2] = [Library::Standard, Library::Random];

impl Library {
    fn source(self) -> &'static str {
        match self {
            Library::Standard => include_str!("prelude/standard.py"),
            Library::Random => include_str!("prelude/random.py"),
        }
    }

    /// Whether the file defines a top-level function `name`: a line `def NAME(`, found
    /// without parsing.
    fn defines(self, name: &str) -> bool {
        self.source().lines().any(|line| {
            line.strip_prefix("def ").and_then(|rest| rest.strip_prefix(name)).is_some_and(|rest| rest.starts_with('('))
        })
    }

    fn parsed(self) -> &'static Result<ast::Module, Vec<Diagnostic>> {
        static PARSED: [OnceLock<Result<ast::Module, Vec<Diagnostic>>>; 2] = [OnceLock::new(), OnceLock::new()];
        PARSED[self as usize].get_or_init(|| tilec_syntax::parse(self.source()))
    }

    /// The parsed file, for a function already resolved into it (so it parsed); an empty
    /// module if it did not.
    pub fn module(self) -> &'static ast::Module {
        static EMPTY: ast::Module =
            ast::Module { imports: Vec::new(), functions: Vec::new(), globals: Vec::new(), host_functions: Vec::new() };
        self.parsed().as_ref().unwrap_or(&EMPTY)
    }
}

/// The file and index of the built-in library's function `name`, if it has one; the file is
/// parsed on the first look-up, and one that does not parse is an internal error.
pub fn function(name: &str) -> Result<Option<(Library, usize)>, Diagnostic> {
    let Some(library) = LIBRARIES.into_iter().find(|l| l.defines(name)) else { return Ok(None) };
    match library.parsed() {
        Ok(module) => Ok(module.functions.iter().position(|f| f.name.name == name).map(|index| (library, index))),
        Err(ds) => {
            let first = ds.first().map(|d| d.to_string()).unwrap_or_default();
            Err(Diagnostic::error(errors::INTERNAL, format!("the built-in Triton library does not parse: {first}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_parses_and_every_definition_is_found() {
        for library in LIBRARIES {
            let module = library.parsed().as_ref().unwrap_or_else(|ds| panic!("{library:?} does not parse: {ds:?}"));
            assert!(!module.functions.is_empty());
            for (index, f) in module.functions.iter().enumerate() {
                assert_eq!(function(&f.name.name).unwrap(), Some((library, index)), "{}", f.name.name);
            }
        }
        assert_eq!(function("cdi").unwrap(), None);
        assert_eq!(function("no_such_function").unwrap(), None);
    }
}
