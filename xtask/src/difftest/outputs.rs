//! Comparing an output array of a run with the interpreter's, as the generator's
//! [`OutputCheck`] says. Shared by `cargo xtask difftest` and `tests/differential.rs` (which
//! includes this file with `#[path]`); the includer provides the `.npy` arrays of
//! `crates/tilec/src/host_array.rs` as `super::host_array`.

use super::host_array::{HostArray, Number};
use tilec_kernelgen::{Element, OutputCheck};

/// `Ok` when `got` has `want`'s type and shape and every element matches.
pub fn compare_arrays(check: &OutputCheck, got: &HostArray, want: &HostArray) -> Result<(), String> {
    if got.shape != want.shape || got.dtype != want.dtype {
        return Err(format!("`{}`: got {} but the interpreter wrote {}", check.name, got.summary(0), want.summary(0)));
    }
    check.compare(&elements(got), &elements(want))
}

/// The elements of `array` as the comparison sees them.
pub fn elements(array: &HostArray) -> Vec<Element> {
    (0..array.len())
        .map(|i| match array.get(i) {
            Number::Int(v) => Element::Int(v.into()),
            Number::UInt(v) => Element::Int(v.into()),
            Number::Float(v) => Element::Float(v),
        })
        .collect()
}
