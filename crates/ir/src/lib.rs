//! The Tile IR of tilec: typed, block-level SSA with structured regions (see [`ir`]).
//!
//! Invariant: a [`Function`] that passed [`verify()`] is well typed, every value is defined
//! before its uses and in scope, and every region that must yield ends in its terminator.
//! The text printer ([`mod@print`]) is stable: it is what snapshots and `--emit tile` show; the
//! reader ([`parse`]) parses that text back, and print → parse → print is the identity.

pub mod assume;
pub mod axis;
pub mod extent;
pub mod fp8;
pub mod ir;
pub mod parse;
pub mod print;
pub mod verify;

pub use axis::{print_axis_info, AxisAnalysis, AxisInfo};
pub use ir::*;
pub use parse::parse_function;
pub use print::print_function;
pub use verify::verify;
