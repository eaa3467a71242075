//! tilec: Triton kernels compiled to RISC-V 64, as a library.
//!
//! [`Compiler`] runs the pipeline `syntax → front → (opt) → vector → codegen → link` and
//! returns the text of every stage it ran plus the object / shared object bytes.
//!
//! Invariant: this crate only wires stages together and talks to the outside world (files,
//! tools, the runner); it holds no compiler logic of its own.

use tilec_diagnostics::Diagnostic;

pub use tilec_diagnostics as diagnostics;
pub use tilec_front::{ConstValue, SigItem};
pub use tilec_ir as ir;

/// What machine code is generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// RV64GC, scalar code only.
    Riscv64gc,
    /// RV64GC + RVV 1.0, vector-length agnostic.
    Riscv64gcv,
}

impl Target {
    pub fn name(self) -> &'static str {
        match self {
            Target::Riscv64gc => "riscv64gc",
            Target::Riscv64gcv => "riscv64gcv",
        }
    }
}

/// The pipeline stages whose text can be printed (`--emit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Ast,
    Tile,
    Vector,
    Asm,
}

/// One kernel to compile.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// File name used in diagnostics.
    pub file_name: &'a str,
    pub source: &'a str,
    pub kernel: &'a str,
    pub signature: Vec<SigItem>,
    pub constants: Vec<(String, ConstValue)>,
}

/// The text of each stage that ran, and the artifacts.
#[derive(Clone, Debug, Default)]
pub struct Output {
    pub ast: String,
    pub tile: String,
    pub function: Option<ir::Function>,
}

/// Diagnostics together with what is needed to render them.
#[derive(Debug)]
pub struct Failure {
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug)]
pub struct Compiler {
    pub target: Target,
}

impl Compiler {
    pub fn new(target: Target) -> Compiler {
        Compiler { target }
    }

    /// Runs the front end up to the Tile IR (`--emit ast|tile`).
    pub fn compile_tile(&self, req: &Request<'_>) -> Result<Output, Vec<Diagnostic>> {
        let module = tilec_syntax::parse(req.source)?;
        let ast = tilec_syntax::print_module(&module);
        let function = tilec_front::specialize(&module, req.kernel, &req.signature, &req.constants)?;
        let tile = tilec_ir::print_function(&function);
        Ok(Output { ast, tile, function: Some(function) })
    }
}
