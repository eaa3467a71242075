//! `NAME_launch(const u64 *args, i32 pid_x, pid_y, pid_z, u32 grid_x, grid_y, grid_z)`: reads
//! runtime arg `i` from the 8-byte slot `args[i]` (ints in the low bytes, sign- or
//! zero-extended by the caller; fp32 in the low 32 bits; fp16/bf16 in the low 16 bits;
//! fp64 and pointers as 64 bits) and calls the kernel.

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Signature};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Module};
use cranelift_object::ObjectModule;
use tilec_vector::{Elem, Function, ScalarType};

use crate::kernel::reg_type;

pub fn launch_signature(module: &ObjectModule) -> Signature {
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I32).sext());
    }
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I32).uext());
    }
    sig
}

/// Builds the body of the launcher of `f`, calling `kernel`.
pub fn build(f: &Function, kernel: FuncId, mut b: FunctionBuilder, module: &mut ObjectModule) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let slots = params[0];
    let mut args = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let ty = match f.ty(p.var) {
            Elem::Scalar(ScalarType::F16 | ScalarType::BF16) => types::I16,
            elem => reg_type(elem),
        };
        args.push(b.ins().load(ty, MemFlagsData::trusted(), slots, (8 * i) as i32));
    }
    args.extend_from_slice(&params[1..7]);
    let callee = module.declare_func_in_func(kernel, b.func);
    b.ins().call(callee, &args);
    b.ins().return_(&[]);
    b.finalize(module.isa().frontend_config());
}
