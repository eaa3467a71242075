//! Reference interpreter for the Tile IR, with Triton's semantics.
//!
//! [`run`] executes a specialized kernel over a grid on host buffers. It is the oracle the
//! compiled code is checked against, so it favours being obviously right over being fast.
//!
//! Semantics (see also [`scalar`]):
//! - Programs run one after another in grid order: `z`, then `y`, then `x` innermost.
//! - Integers wrap around at their declared width; `/` and `%` truncate toward zero like C
//!   (the remainder has the dividend's sign); division by zero is an error. Shift amounts are
//!   taken modulo the width (as Cranelift does; Triton leaves larger shifts undefined).
//! - `f32` arithmetic is done in `f32`, `f64` in `f64`; `f16`/`bf16` in `f32` rounded to
//!   nearest even after every op. Math functions are evaluated in `f64` (the `libm` crate)
//!   and rounded once to the lane's type, see [`math`]. `max`/`min` on floats are
//!   `maxnum`/`minnum` (a NaN operand loses), float `%` is C's `fmod`.
//! - Reductions and scans combine along the axis sequentially from index 0 upward (from
//!   the end for reverse scans), in the element type's arithmetic (the front end makes
//!   fp16/bf16 sums and products fp32 ones). Results can differ from a tree-shaped
//!   reduction in the last bits; compare floats with a tolerance. `argmax`/`argmin` apply
//!   Triton's combine `v1 > v2 or (v1 == v2 and i1 < i2)` (`<` for argmin) left to right,
//!   so ties resolve to the smallest index; their value result is the element kept.
//! - Float `max`/`min` are maxnum/minnum with `-0.0 < +0.0`; a NaN that arithmetic or a math
//!   function produces is the canonical NaN (positive, quiet), as on RISC-V; `-x` and
//!   `abs` keep a NaN's bits. Float atomic max/min order the sign-magnitude bit patterns
//!   (Triton builds them from integer atomics): `-NaN < -inf < -0.0 < +0.0 < +inf < +NaN`.
//! - `tt.dot` widens `f16`/`bf16` inputs to `f32`, starts from the accumulator and adds the
//!   products for k = 0, 1, ... with one fused multiply-add per step, in `f32` (`f64` for
//!   `f64` inputs, wrapping `i64` rounded at the end for integers); an accumulator of
//!   another type is rounded once at the end.
//! - Loads and stores touch only the lanes whose mask is true; masked-off lanes of a load
//!   read `other` (zero without it). Atomics apply lane by lane in lane order and return the
//!   old values (zero for masked-off lanes).
//! - Memory: each buffer argument gets its own 4096-aligned window in a sparse address space
//!   ([`memory`]); an access outside every buffer is an error naming the op, the program and
//!   the address.
//! - `tt.assert` fails the run with its message when any lane is false; so does `tt.assume`
//!   (compiled code does not check assumptions, the interpreter does: a false one is
//!   undefined behaviour in Triton); `tt.print` writes a line per program to standard output.
//! - A program may execute at most a step limit of ops and loop iterations
//!   ([`DEFAULT_STEP_LIMIT`], or [`run_with_step_limit`]'s); past it the run fails naming the
//!   op and the program, so a kernel that never ends cannot hang its caller.

mod exec;
pub mod math;
pub mod memory;
pub mod scalar;

use std::fmt;
use tilec_diagnostics::{Code, Diagnostic, Span};
use tilec_ir::{Function, ScalarType};

/// One runtime argument, in the order of `Function::params` (runtime parameters only),
/// followed by any buffers that the kernel reaches only through a [`Arg::Pointers`] table.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// The bytes of a buffer (little-endian elements of type `elem`) for a pointer parameter.
    Buffer { data: Vec<u8>, elem: ScalarType },
    /// An integer parameter (wrapped to the parameter's type).
    Int(i64),
    /// A float parameter (rounded to the parameter's type).
    Float(f64),
    /// A table of addresses for a pointer parameter to 8-byte integers (tutorial 08's grouped
    /// GEMM takes its matrices this way): entry `k` is the address of the buffer argument
    /// `targets[k]`. `table` holds the entries once the interpreter has placed the buffers.
    Pointers { targets: Vec<usize>, table: Vec<u8> },
}

impl Arg {
    /// The bytes of memory the argument provides (buffers and pointer tables).
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Arg::Buffer { data, .. } => Some(data),
            Arg::Pointers { table, .. } => Some(table),
            Arg::Int(_) | Arg::Float(_) => None,
        }
    }

    fn bytes_mut(&mut self) -> Option<&mut Vec<u8>> {
        match self {
            Arg::Buffer { data, .. } => Some(data),
            Arg::Pointers { table, .. } => Some(table),
            Arg::Int(_) | Arg::Float(_) => None,
        }
    }
}

/// Error codes of the interpreter (E09xx), documented in the registry.
pub use tilec_diagnostics::codes::interp as codes;

/// The default of [`run_with_step_limit`]'s limit, per program: far above what a kernel that
/// ends executes (a `tl.dot` K loop of 10,000 iterations takes about 100,000 steps), and
/// reached in seconds by one that never ends.
pub const DEFAULT_STEP_LIMIT: u64 = 10_000_000;

/// A failed run: what went wrong, in which op (printer syntax) and program.
#[derive(Clone, Debug, PartialEq)]
pub struct InterpError {
    pub code: Code,
    pub message: String,
    /// The failing op as the printer shows it.
    pub op: Option<String>,
    /// `(x, y, z)` of the failing program.
    pub program_id: Option<[u32; 3]>,
    pub span: Option<Span>,
}

impl InterpError {
    pub(crate) fn new(code: Code, message: impl Into<String>) -> InterpError {
        InterpError { code, message: message.into(), op: None, program_id: None, span: None }
    }

    /// The error as a diagnostic (its span is the failing op's).
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.code, self.to_string());
        if let Some(span) = self.span {
            d = d.with_span(span);
        }
        d
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(op) = &self.op {
            write!(f, "`{op}`: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some([x, y, z]) = self.program_id {
            write!(f, " (program ({x}, {y}, {z}))")?;
        }
        if let Some(span) = self.span {
            if !span.is_dummy() {
                write!(f, " at bytes {}..{}", span.start, span.end)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for InterpError {}

impl From<InterpError> for Diagnostic {
    fn from(e: InterpError) -> Diagnostic {
        e.to_diagnostic()
    }
}

/// Runs kernel `f` over `grid` (`[x, y, z]` program counts) on `args`, which follow
/// `f.params`, with [`DEFAULT_STEP_LIMIT`]. Buffers are updated in place. The function is
/// verified first.
pub fn run(f: &Function, args: &mut [Arg], grid: [u32; 3]) -> Result<(), InterpError> {
    run_with_step_limit(f, args, grid, DEFAULT_STEP_LIMIT)
}

/// [`run`] where each program may execute at most `step_limit` steps: a step is one op
/// executed, or one iteration of a loop (so an empty `while True` loop counts too).
/// Exceeding it is a [`codes::STEP_LIMIT`] error naming the op and the program.
pub fn run_with_step_limit(f: &Function, args: &mut [Arg], grid: [u32; 3], step_limit: u64) -> Result<(), InterpError> {
    if let Err(errors) = tilec_ir::verify(f) {
        let first = errors.first().map_or_else(String::new, |d| d.to_string());
        return Err(InterpError::new(codes::INVALID_IR, format!("the kernel is not valid Tile IR: {first}")));
    }
    exec::Interpreter::new(f, args, step_limit)?.run_grid(grid)
}
