//! The layout of scratch buffers, the contract between the Cranelift kernel
//! ([`crate::kernel`]: it allocates each buffer as a stack slot and reads and writes it in
//! scalar code) and the RVV leaves ([`crate::rvv`]: they receive buffer addresses as
//! arguments and access them with vector loads and stores).
//!
//! A buffer of `len` elements is one contiguous row-major array in a stack slot aligned to
//! [`ALIGN`] bytes: element `i` is at byte `i · elem_bytes(elem)`. An element is stored in
//! its register form ([`stored_scalar`]): fp16/bf16 as f32 (exact), `i1` as one byte holding
//! 0 or 1, pointers as 64-bit addresses, every other scalar as itself.

use tilec_vector::{BufData, Elem, ScalarType};

/// The alignment of every buffer, in bytes.
pub const ALIGN: u32 = 8;

/// The scalar type an element of `elem` is stored as (`i1` is a byte; pointers are `u64`).
pub fn stored_scalar(elem: Elem) -> ScalarType {
    match elem {
        Elem::Ptr(_) => ScalarType::U64,
        Elem::Scalar(ScalarType::F16 | ScalarType::BF16) => ScalarType::F32,
        Elem::Scalar(s) => s,
    }
}

/// Bytes of one element of `elem`.
pub fn elem_bytes(elem: Elem) -> u32 {
    stored_scalar(elem).bytes()
}

/// Bytes of a whole buffer.
pub fn buffer_bytes(buf: &BufData) -> u64 {
    u64::from(elem_bytes(buf.elem)) * buf.len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_stored_in_their_register_form() {
        let sizes = [
            (Elem::Scalar(ScalarType::I1), 1),
            (Elem::Scalar(ScalarType::I8), 1),
            (Elem::Scalar(ScalarType::F16), 4),
            (Elem::Scalar(ScalarType::BF16), 4),
            (Elem::Scalar(ScalarType::U32), 4),
            (Elem::Scalar(ScalarType::F64), 8),
            (Elem::Ptr(ScalarType::F16), 8),
        ];
        for (elem, bytes) in sizes {
            assert_eq!(elem_bytes(elem), bytes, "{elem:?}");
            assert_eq!(elem_bytes(elem), crate::kernel::reg_type(elem).bytes(), "{elem:?}: register and memory differ");
        }
        assert_eq!(buffer_bytes(&BufData { elem: Elem::Scalar(ScalarType::F16), len: 10 }), 40);
    }
}
