//! The registry of diagnostic codes: every code any part of tilec reports, with its
//! one-line documentation.
//!
//! A code is `E` and four digits. The hundreds name the crate that reports it:
//!
//! | range | crate |
//! |-------|-------|
//! | E01xx | `tilec-syntax`: lexing and parsing |
//! | E02xx | `tilec-front`: names, types, shapes, specialization |
//! | E03xx | `tilec-ir`: the Tile IR verifier and reader |
//! | E05xx | `tilec-vector`: lowering to the Vector IR, the Vector IR verifier |
//! | E06xx | `tilec-codegen`: code generation and linking |
//! | E07xx | `tilec-rvv`: the RVV encoder and assembler |
//! | E09xx | `tilec-interp`: the interpreter's run-time errors |
//! | E10xx | `tilec`: the command-line tool's own errors, the pipeline's internal errors |
//!
//! A new code is one line in the `registry!` invocation below; the tests check that no
//! two codes share a number, that each is documented and that each sits in its crate's
//! range. Codes are stable: a code is never reused for another meaning.

use std::fmt;

/// A stable diagnostic code such as `E0101`. Values exist only as the constants of the
/// per-crate modules of this file ([`syntax`], [`front`], ...), so every code in use is in
/// [`REGISTRY`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code(u16);

impl Code {
    /// The number after the `E`.
    pub fn number(self) -> u16 {
        self.0
    }

    /// The registry entry of this code.
    pub fn entry(self) -> &'static Entry {
        REGISTRY.iter().find(|e| e.code == self).expect("every Code constant is in the registry")
    }

    /// The one-line documentation of this code.
    pub fn doc(self) -> &'static str {
        self.entry().doc
    }

    /// The code of a text such as `E0101`, if it is a registered code.
    pub fn parse(text: &str) -> Option<Code> {
        let number: u16 = text.strip_prefix('E').filter(|n| n.len() == 4)?.parse().ok()?;
        REGISTRY.iter().map(|e| e.code).find(|c| c.0 == number)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "E{:04}", self.0)
    }
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// One registered code: its value, the module (crate) and constant that name it, and
/// its documentation.
#[derive(Debug)]
pub struct Entry {
    pub code: Code,
    /// The module of this file that holds the constant: the reporting crate's short name.
    pub module: &'static str,
    pub name: &'static str,
    pub doc: &'static str,
}

/// The ranges of the table above: `(hundreds, module)`.
pub const RANGES: &[(u16, &str)] =
    &[(1, "syntax"), (2, "front"), (3, "ir"), (5, "vector"), (6, "codegen"), (7, "rvv"), (9, "interp"), (10, "tilec")];

/// Defines one module of `Code` constants per crate and [`REGISTRY`], which lists them all.
macro_rules! registry {
    ($( $(#[$module_doc:meta])* mod $module:ident { $( $name:ident = $number:literal, $doc:literal; )* } )*) => {
        $(
            $(#[$module_doc])*
            pub mod $module {
                use super::Code;
                $( #[doc = $doc] pub const $name: Code = Code($number); )*
            }
        )*

        /// Every code, in the order of this file.
        pub const REGISTRY: &[Entry] = &[
            $( $( Entry { code: $module::$name, module: stringify!($module), name: stringify!($name), doc: $doc }, )* )*
        ];
    };
}

registry! {
    /// `tilec-syntax`: lexing, indentation and parsing.
    mod syntax {
        UNEXPECTED_TOKEN = 101, "unexpected token (the message names the token, the label what was expected)";
        UNTERMINATED_STRING = 102, "unterminated string literal";
        DEDENT = 103, "unindent does not match any outer indentation level";
        TABS = 104, "inconsistent use of tabs and spaces in indentation";
        UNEXPECTED_EOF = 105, "unexpected end of file";
        INVALID_CHARACTER = 106, "invalid character";
        BRACKET = 107, "unmatched, mismatched or unclosed bracket";
        INVALID_NUMBER = 108, "invalid number literal (leading zeros, too large)";
        INDENTATION = 109, "unexpected indent, or an indented block expected";
        PARAMETER = 110, "parameter form tilec does not take (`**kwargs`, `/`) or a second `*`";
        TOO_DEEP = 111, "brackets nested too deeply, or a statement with too many operators";
        INVALID_ESCAPE = 112, "invalid escape sequence in a string literal";
        ARGUMENT_ORDER = 113, "positional argument after keyword argument";
        DECORATOR = 114, "malformed `autotune` / `heuristics` decorator";
        IMPORT = 115, "an imported module's file cannot be read";
    }

    /// `tilec-front`: names, types, shapes and specialization.
    mod front {
        UNKNOWN_NAME = 201, "unknown name";
        ARITY = 202, "wrong number of arguments, missing or duplicated argument";
        UNKNOWN_KEYWORD = 203, "unknown keyword argument";
        BROADCAST = 204, "shapes that do not broadcast";
        ARANGE = 205, "bad `tl.arange` (length not a power of two, empty, out of int32)";
        NOT_CONSTEXPR = 206, "a compile-time value (`tl.constexpr`) is needed but a runtime value was given";
        NOT_POINTER = 207, "load, store or atomic through something that is not a pointer";
        MASK_SHAPE = 208, "mask shape does not match the pointer block";
        BAD_SIGNATURE = 209, "bad signature string";
        PARAM_COUNT = 210, "signature and parameters do not match (count, unknown constant name)";
        UNKNOWN_KERNEL = 211, "no `@triton.jit` function with the kernel name";
        UNSUPPORTED = 212, "unsupported Python construct (lambda, comprehension, `break`, dict, ...)";
        RECURSION = 213, "recursive call of a helper";
        LOOP_CARRIED_TYPE = 214, "loop-carried variable changes type in the loop";
        TYPE_ERROR = 215, "type error (operand types, casts, dtypes of math functions)";
        STATIC_ASSERT = 216, "`tl.static_assert` or constant `assert` failed";
        CONSTEXPR_PARAM = 217, "a `tl.constexpr` parameter given a runtime type in the signature";
        SHAPE = 218, "shape error (reshape, dot, axis out of range, non-power-of-two block)";
        RETURN = 219, "`return` where it is not allowed (in a loop, a value from a kernel)";
        BRANCH_TYPE = 220, "a variable has different types in the two branches of an `if`";
        VALUE = 221, "bad value (division by zero in a constexpr, out-of-range literal, ...)";
        UNKNOWN_ATTRIBUTE = 222, "unknown attribute or module member";
        FALSE_ASSUMPTION = 223, "`tl.assume` of a condition that is false at compile time";
        NON_CONSTEXPR_GLOBAL = 224, "a kernel reads a module global that is not a `tl.constexpr`";
        AMBIGUOUS_KERNEL = 225, "several nested `@triton.jit` functions have the kernel name";
        HEURISTIC = 226, "a `triton.heuristics` value that cannot be computed at compile time";
        CONSTEXPR_FUNCTION = 227, "a `triton.constexpr_function` called with or returning a runtime value";
        FOLLOW_ON = 298, "never shown: a failure that follows from an error already reported (a use of its poisoned value)";
        INTERNAL = 299, "internal error of the front end";
    }

    /// `tilec-ir`: the Tile IR verifier (E030x, E031x; each diagnostic names the offending op)
    /// and the reader of printed Tile IR (E034x).
    mod ir {
        UNDEFINED_VALUE = 301, "a value used where it is not defined (not yet, in a region that does not enclose the use, or not of this function)";
        REDEFINED_VALUE = 302, "a value defined more than once, or whose recorded definition disagrees with where it appears";
        WRONG_TYPE = 303, "an operand or result of the wrong type (element type or signedness)";
        WRONG_SHAPE = 304, "shapes that do not agree, or a tensor with a zero-sized dimension";
        BAD_ATTRIBUTE = 305, "a bad attribute (axis out of range, `order` not a permutation, bad range length or hint, constant out of its type)";
        TERMINATOR = 306, "a missing, misplaced or mismatched terminator (`scf.yield`, `scf.condition`)";
        MALFORMED_REGION = 307, "a malformed region: missing, used by two ops, or with the wrong parameters";
        BAD_CAST = 308, "a cast between types the cast kind does not convert";
        PARAMETERS = 309, "the kernel parameters disagree with the body region's parameters";
        RESULT_COUNT = 310, "an op with the wrong number of results";
        PARSE_SYNTAX = 341, "printed Tile IR that does not parse (the message says what was expected)";
        PARSE_NAME = 342, "printed Tile IR using a value name that is not defined, or defining one twice";
        PARSE_MISMATCH = 343, "printed Tile IR whose printed type or type-spelled op name disagrees with the values' types";
    }

    /// `tilec-vector`: lowering of the Tile IR to the Vector IR (E050x) and the Vector IR
    /// verifier (E052x, E053x; each diagnostic names the offending statement).
    mod vector {
        UNSUPPORTED = 501, "a Tile IR op the lowering does not support";
        TOO_LARGE = 502, "the tiles of a kernel need more stack scratch than the limit";
        NOT_ASSIGNED = 521, "a variable or buffer not of the function, or a variable read where it is not assigned on every path";
        BAD_ASSIGNMENT = 522, "a variable assigned where it may not be (a nest index, in a nest and elsewhere, twice in a nest)";
        TYPE = 523, "an operand or result of the wrong type";
        POSITION = 524, "a position with the wrong number of strides for its nest, or reaching outside its buffer";
        PLACEMENT = 525, "a statement where it may not be (a nest in a nest, an accumulation outside one, memory in a combine body)";
        NEST = 526, "a malformed nest: no dims, a zero-sized dim, index variables that are not one distinct i64 per dim";
        DEPENDENCE = 527, "iterations of a nest that depend on each other other than through accumulators and in-place updates";
        DOT = 528, "a malformed `dot`: sizes, buffers too small or shared between accumulator and operand, operand kinds";
        HEADER = 529, "a malformed function header: a parameter that is not a variable, or listed twice";
        CONSTANT = 530, "a Vector IR constant that does not fit its type";
    }

    /// `tilec-codegen`: machine code and linking.
    mod codegen {
        CODEGEN = 601, "code generation failed";
        LINK = 602, "linking failed (linker missing or failing)";
    }

    /// `tilec-rvv`: the RV64GC + RVV encoder and assembler (an internal error of the
    /// vector code generator when it reaches a user).
    mod rvv {
        INVALID_OPERAND = 701, "an operand does not fit its field, or the operation has no such form";
        UNRESOLVED_LABEL = 702, "a branch to a label encoded outside an assembler";
        UNBOUND_LABEL = 703, "a branch to a label that is never bound";
        LABEL_BOUND_TWICE = 704, "a label bound twice";
        BRANCH_OUT_OF_RANGE = 705, "a branch or jump target farther away than the instruction reaches";
        UNKNOWN_LABEL = 706, "a label that belongs to another assembler";
    }

    /// `tilec-interp`: errors of a kernel run in the interpreter.
    mod interp {
        INVALID_IR = 950, "the function failed verification";
        BAD_ARGUMENT = 951, "the arguments do not match the parameters";
        OUT_OF_BOUNDS = 952, "a load, store or atomic outside every buffer";
        DIVISION_BY_ZERO = 953, "integer division or remainder by zero";
        ASSERT_FAILED = 954, "a `tt.assert` (`tl.device_assert`) failed";
        ZERO_STEP = 955, "a loop with step zero";
        STEP_LIMIT = 956, "a program executed more steps than the limit (it probably never ends)";
        ASSUME_FAILED = 957, "a `tt.assume` (`tl.assume`) whose condition is false";
        GATHER_INDEX = 958, "a `tl.gather` index outside the source's dimension";
    }

    /// `tilec`: errors of the command-line tool itself (E100x, E101x), and the pipeline's
    /// report of a stage whose output its verifier rejects (E1090).
    mod tilec {
        BAD_ARGUMENT = 1001, "a command-line argument that does not parse";
        MISSING_ARGUMENT = 1002, "a kernel parameter without a value";
        EXTRA_ARGUMENT = 1003, "a value for a name that is not a kernel parameter";
        CONSTEXPR_RUNTIME_VALUE = 1004, "an array given to a `tl.constexpr` parameter";
        BAD_NPY = 1005, "a `.npy` file that cannot be read or has an unsupported dtype";
        TOOLCHAIN_MISSING = 1006, "qemu, the runner or the sysroot is missing";
        KERNEL_FAULT = 1007, "the kernel died of a signal";
        RUN_FAILED = 1008, "the runner or the interpreter failed for another reason";
        IO = 1009, "a file could not be read or written";
        TIMED_OUT = 1010, "the kernel ran past `tilec run --timeout` and was killed";
        WROTE_OUTSIDE = 1011, "the kernel wrote next to an array, between it and its guard pages";
        BOUNDS_CHECK = 1012, "a kernel compiled with `--check-bounds` accessed memory outside every array";
        LAUNCH_ARGUMENT = 1013, "an argument of `CompiledKernel::launch` whose kind or type does not fit its parameter";
        NO_MACHINE_CODE = 1014, "machine code asked of the interpreter target";
        AOT_GRID = 1030, "a `tilec aot --grid` expression that does not parse or names no integer parameter or constant";
        AOT_LINK = 1031, "headers given to `tilec aot-link` that are not specializations of one kernel";
        AUTOTUNE = 1040, "an `@triton.autotune` decorator or `tilec tune` request tilec cannot honour (no configs, a key or reset name that is no parameter, host-code hooks)";
        TUNE_FAILED = 1041, "every autotune config failed to compile or run";
        INVALID_IR = 1090, "internal error: a stage produced IR that its verifier rejects (a bug in tilec, not in the kernel)";
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn codes_are_unique() {
        let mut seen: HashMap<Code, &Entry> = HashMap::new();
        for e in REGISTRY {
            if let Some(first) = seen.insert(e.code, e) {
                panic!("{} is both {}::{} and {}::{}", e.code, first.module, first.name, e.module, e.name);
            }
        }
    }

    #[test]
    fn every_code_is_documented_on_one_line() {
        for e in REGISTRY {
            let doc = e.doc.trim();
            assert!(doc.len() > 10, "{} ({}::{}) has no documentation", e.code, e.module, e.name);
            assert!(!doc.contains('\n'), "{} is documented on more than one line", e.code);
        }
    }

    #[test]
    fn every_code_is_in_its_crates_range() {
        for e in REGISTRY {
            let range = RANGES.iter().find(|(_, module)| *module == e.module);
            let Some((hundreds, _)) = range else { panic!("module {} has no range", e.module) };
            assert_eq!(e.code.number() / 100, *hundreds, "{} ({}::{}) is outside its range", e.code, e.module, e.name);
        }
    }

    #[test]
    fn codes_print_and_parse() {
        assert_eq!(syntax::UNEXPECTED_TOKEN.to_string(), "E0101");
        assert_eq!(tilec::TIMED_OUT.to_string(), "E1010");
        assert_eq!(format!("{:?}", front::INTERNAL), "E0299");
        for e in REGISTRY {
            assert_eq!(Code::parse(&e.code.to_string()), Some(e.code));
            assert_eq!(e.code.doc(), e.doc);
        }
        assert_eq!(Code::parse("E0000"), None);
        assert_eq!(Code::parse("E101"), None);
    }
}
