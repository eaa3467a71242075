//! The Vector IR ([`vir`]), the lowering of the Tile IR to it ([`lower()`]), its verifier
//! ([`verify()`], which checks every invariant [`vir`] states) and the stride analysis of
//! its loop nests for back ends that strip-mine them ([`stride`]), and element patterns
//! back ends compute in fewer instructions ([`patterns`]).
//!
//! Invariant: `lower` either returns a Vector IR function that passes [`verify()`] (every
//! nest body holds only element statements, every variable is assigned before it is read,
//! scratch accesses stay in bounds and never race with writes of the same nest:
//! accumulators, and in-place updates read each element before writing it at the same
//! position) or a [`Diagnostic`](tilec_diagnostics::Diagnostic) naming the unsupported op with its span; it never panics on
//! a verified Tile IR function. The text printer ([`print_function`]) is stable (`--emit vector`).

pub mod lower;
pub mod patterns;
pub mod print;
pub mod stride;
pub mod verify;
pub mod vir;

pub use lower::lower;
pub use print::print_function;
pub use verify::verify;
pub use vir::*;
