//! tilec: Triton kernels compiled to RISC-V 64, as a library.
//!
//! [`Compiler`] runs the pipeline `syntax → front → (opt) → vector → codegen → link` and
//! returns the text of every stage it ran plus the object / shared object bytes. Between
//! stages it runs the IR verifiers (the Tile IR's after the front end and after the
//! optimizer, the Vector IR's after lowering): always in debug builds, on request
//! ([`Compiler::with_verify`]) in release builds.
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
    /// RV64GC + RVV 1.0, vector-length agnostic: loop nests the RVV emitter accepts become
    /// RVV leaf functions (their listings follow the kernel's in `--emit asm`).
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

impl Stage {
    /// The last artifact needed to print this stage.
    pub fn needs(self) -> Produce {
        match self {
            Stage::Ast | Stage::Tile => Produce::Tile,
            Stage::Vector => Produce::Vector,
            Stage::Asm => Produce::Object,
        }
    }
}

/// How far [`Compiler::compile`] goes; each step also produces everything before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Produce {
    /// AST and Tile IR text (and the optimized Tile IR when optimizing).
    Tile,
    /// ... and the Vector IR text.
    Vector,
    /// ... and the relocatable object with its assembly text.
    Object,
    /// ... and the linked shared object.
    SharedObject,
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

/// The text of each stage that ran, and the artifacts (empty when not produced).
#[derive(Clone, Debug, Default)]
pub struct Output {
    pub ast: String,
    /// Tile IR from the front end.
    pub tile: String,
    /// Tile IR after the optimizer (empty when [`Compiler::optimize`] is off).
    pub tile_opt: String,
    /// The front end's Tile IR function.
    pub function: Option<ir::Function>,
    /// The optimized Tile IR function (`None` when [`Compiler::optimize`] is off); the
    /// interpreter runs this one when present, else [`Output::function`].
    pub function_opt: Option<ir::Function>,
    /// What the optimizer did (`None` when [`Compiler::optimize`] is off): among others,
    /// the rules applied, such as the loop-carried rule that regroups float sums.
    pub opt_report: Option<tilec_opt::Report>,
    /// The axis analysis of the Tile IR that is lowered (`--emit axis`): the optimized
    /// function when optimizing, else the front end's.
    pub axis: String,
    /// Vector IR text (`--emit vector`).
    pub vector: String,
    /// Assembly text of the kernel and its launcher (`--emit asm`): Cranelift's
    /// disassembly of its register-allocated machine code.
    pub asm: String,
    /// ELF relocatable object (riscv64) with `NAME` and `NAME_launch`.
    pub object: Vec<u8>,
    /// The object linked into a shared object.
    pub shared_object: Vec<u8>,
}

/// Diagnostics together with what is needed to render them.
#[derive(Debug)]
pub struct Failure {
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug)]
pub struct Compiler {
    pub target: Target,
    /// How far [`Compiler::compile`] goes (default: the shared object).
    pub produce: Produce,
    /// Run the Tile IR optimizer before lowering (default: on).
    pub optimize: bool,
    /// Directories the link step searches for static libraries the kernel needs
    /// (`libsleef.a`); default: none, which is enough for kernels that call no SLEEF function.
    pub library_dirs: Vec<std::path::PathBuf>,
    /// Run the IR verifiers between stages. Debug builds always do; the default is off in
    /// release builds.
    pub verify: bool,
}

impl Compiler {
    pub fn new(target: Target) -> Compiler {
        Compiler {
            target,
            produce: Produce::SharedObject,
            optimize: true,
            library_dirs: Vec::new(),
            verify: cfg!(debug_assertions),
        }
    }

    pub fn with_verify(mut self, verify: bool) -> Compiler {
        self.verify = verify;
        self
    }

    pub fn with_library_dirs(mut self, library_dirs: Vec<std::path::PathBuf>) -> Compiler {
        self.library_dirs = library_dirs;
        self
    }

    pub fn with_produce(mut self, produce: Produce) -> Compiler {
        self.produce = produce;
        self
    }

    pub fn with_optimize(mut self, optimize: bool) -> Compiler {
        self.optimize = optimize;
        self
    }

    /// Runs the pipeline as far as [`Compiler::produce`] says.
    pub fn compile(&self, req: &Request<'_>) -> Result<Output, Vec<Diagnostic>> {
        let mut out = self.compile_tile(req)?;
        let Some(front) = &out.function else { return Ok(out) };
        let function = if self.optimize {
            let (optimized, report) = tilec_opt::optimize(front, &tilec_opt::Options::default());
            self.check("the optimizer", "Tile IR", || tilec_ir::verify(&optimized))?;
            out.tile_opt = tilec_ir::print_function(&optimized);
            out.function_opt = Some(optimized.clone());
            out.opt_report = Some(report);
            optimized
        } else {
            front.clone()
        };
        out.axis = tilec_ir::print_axis_info(&function, &tilec_ir::AxisAnalysis::new(&function));
        if self.produce < Produce::Vector {
            return Ok(out);
        }
        let lowered = tilec_vector::lower(&function).map_err(|d| vec![d])?;
        self.check("the lowering", "Vector IR", || tilec_vector::verify(&lowered))?;
        out.vector = tilec_vector::print_function(&lowered);
        if self.produce < Produce::Object {
            return Ok(out);
        }
        let compiled = tilec_codegen::compile(&lowered, codegen_target(self.target)).map_err(|d| vec![d])?;
        out.asm = compiled.asm;
        out.object = compiled.object;
        if self.produce < Produce::SharedObject {
            return Ok(out);
        }
        out.shared_object = tilec_codegen::link_shared_with(&out.object, &self.library_dirs).map_err(|d| vec![d])?;
        Ok(out)
    }

    /// The kernel's runtime parameters after specialization (constexprs and ints equal to 1
    /// removed), in ABI order: what `NAME_launch`'s argument slots hold.
    pub fn runtime_params(&self, req: &Request<'_>) -> Result<Vec<ir::Param>, Vec<Diagnostic>> {
        let out = self.compile_tile(req)?;
        Ok(out.function.map(|f| f.params).unwrap_or_default())
    }

    /// Runs the front end up to the Tile IR (`--emit ast|tile`).
    pub fn compile_tile(&self, req: &Request<'_>) -> Result<Output, Vec<Diagnostic>> {
        let module = tilec_syntax::parse(req.source)?;
        let ast = tilec_syntax::print_module(&module);
        let function = tilec_front::specialize(&module, req.kernel, &req.signature, &req.constants)?;
        self.check("the front end", "Tile IR", || tilec_ir::verify(&function))?;
        let tile = tilec_ir::print_function(&function);
        Ok(Output { ast, tile, function: Some(function), ..Output::default() })
    }

    /// Runs `verify` on the IR `stage` produced when verifying is on; each violation becomes
    /// an internal-error diagnostic ([`tilec_diagnostics::codes::tilec::INVALID_IR`]) naming the stage.
    fn check(
        &self,
        stage: &str,
        ir: &str,
        verify: impl FnOnce() -> Result<(), Vec<Diagnostic>>,
    ) -> Result<(), Vec<Diagnostic>> {
        if !(self.verify || cfg!(debug_assertions)) {
            return Ok(());
        }
        verify().map_err(|errors| {
            errors
                .into_iter()
                .map(|e| {
                    let mut d = Diagnostic::error(
                        tilec_diagnostics::codes::tilec::INVALID_IR,
                        format!("internal error: {stage} produced {ir} that does not verify: {}", e.message),
                    )
                    .with_note(format!("verifier code {}; this is a bug in tilec, not in the kernel", e.code));
                    d.span = e.span;
                    d
                })
                .collect()
        })
    }
}

/// The code generator's target for a compiler target.
fn codegen_target(target: Target) -> tilec_codegen::Target {
    match target {
        Target::Riscv64gc => tilec_codegen::Target::Riscv64gc,
        Target::Riscv64gcv => tilec_codegen::Target::Riscv64gcv,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilec_diagnostics::Span;

    /// A verifier failure becomes one internal error per violation, naming the stage and
    /// keeping the violation's span, code (in a note) and message.
    #[test]
    fn a_verifier_failure_is_an_internal_error_naming_the_stage() {
        let violation = Diagnostic::error(
            tilec_diagnostics::codes::ir::WRONG_TYPE,
            "`%3 = arith.addi %1, %2 : i32`: the operands have different types",
        )
        .with_span(Span::new(4, 9));
        let compiler = Compiler::new(Target::Riscv64gc).with_verify(true);
        let errors = compiler.check("the optimizer", "Tile IR", || Err(vec![violation])).expect_err("rejected");
        assert_eq!(errors.len(), 1);
        let d = &errors[0];
        assert_eq!(d.code, tilec_diagnostics::codes::tilec::INVALID_IR);
        assert_eq!(
            d.message,
            "internal error: the optimizer produced Tile IR that does not verify: `%3 = arith.addi %1, %2 : i32`: \
             the operands have different types"
        );
        assert_eq!(d.span, Some(Span::new(4, 9)));
        assert_eq!(d.notes, vec!["verifier code E0303; this is a bug in tilec, not in the kernel".to_string()]);
        assert!(compiler.check("the lowering", "Vector IR", || Ok(())).is_ok());
    }
}
