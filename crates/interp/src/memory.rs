//! The interpreter's sparse address space: one 4096-aligned window per buffer argument.
//!
//! Buffer `i` (buffer and pointer-table arguments, counted in argument order) starts at
//! `(i + 1) << 32`, so buffers are far apart and a stray access (a
//! wrong offset, a masked-off lane that was not masked) lands outside every buffer and is
//! reported instead of silently reading a neighbour.

use crate::scalar::normalize;
use crate::Arg;
use tilec_ir::ScalarType;

/// Distance between buffer bases; also the largest buffer the interpreter accepts.
pub const BUFFER_STRIDE: u64 = 1 << 32;

/// A buffer argument placed in the address space.
#[derive(Clone, Debug)]
pub struct Placed {
    pub base: u64,
    /// Index into the argument list.
    pub arg: usize,
    /// The parameter's name, for messages.
    pub name: String,
}

/// Why an access failed: the message part naming the address and the nearest buffer.
pub struct Fault(pub String);

pub struct Memory {
    pub buffers: Vec<Placed>,
}

impl Memory {
    pub fn base_for(slot: usize) -> u64 {
        (slot as u64 + 1) * BUFFER_STRIDE
    }

    /// The buffer holding `[addr, addr + size)`, as (argument index, byte offset).
    fn locate(&self, args: &[Arg], addr: u64, size: u64) -> Result<(usize, usize), Fault> {
        for b in &self.buffers {
            let len = args[b.arg].bytes().map_or(0, |d| d.len() as u64);
            if addr >= b.base && addr - b.base < BUFFER_STRIDE {
                let offset = addr - b.base;
                if offset + size <= len {
                    return Ok((b.arg, offset as usize));
                }
                return Err(Fault(format!(
                    "address {addr:#x} is byte {offset} of buffer `{}`, which has {len} bytes",
                    b.name
                )));
            }
        }
        Err(Fault(format!("address {addr:#x} is outside every buffer")))
    }

    /// Reads one element of type `s` at `addr` (little-endian), as normalized lane bits.
    pub fn read(&self, args: &[Arg], addr: u64, s: ScalarType) -> Result<u64, Fault> {
        let size = s.bytes() as usize;
        let (arg, offset) = self.locate(args, addr, size as u64)?;
        let data = args[arg].bytes().expect("located buffers are buffers");
        let mut bytes = [0u8; 8];
        bytes[..size].copy_from_slice(&data[offset..offset + size]);
        let raw = u64::from_le_bytes(bytes);
        Ok(if s == ScalarType::I1 { (raw != 0) as u64 } else { normalize(raw, s) })
    }

    /// Writes one element of type `s` at `addr`.
    pub fn write(&self, args: &mut [Arg], addr: u64, s: ScalarType, bits: u64) -> Result<(), Fault> {
        let size = s.bytes() as usize;
        let (arg, offset) = self.locate(args, addr, size as u64)?;
        let data = args[arg].bytes_mut().expect("located buffers are buffers");
        data[offset..offset + size].copy_from_slice(&bits.to_le_bytes()[..size]);
        Ok(())
    }
}
