//! The entry points of a kernel `NAME`:
//!
//! - `NAME(runtime args..., i32 pid_x, pid_y, pid_z, u32 grid_x, grid_y, grid_z)` runs one
//!   program: it writes its arguments into argument slots on its stack and calls `NAME_grid`
//!   for that program alone. Requires `pid < grid` in each dimension (as Triton's programs
//!   are).
//! - `NAME_launch(const u64 *args, i32 pid_x, pid_y, pid_z, u32 grid_x, grid_y, grid_z)` reads
//!   runtime arg `i` from the 8-byte slot `args[i]` (ints in the low bytes, sign- or
//!   zero-extended by the caller; fp32 in the low 32 bits; fp16/bf16 in the low 16 bits;
//!   fp64 and pointers as 64 bits) and calls the kernel: one program.
//! - `NAME_grid(const u64 *args, u64 first, u64 end, u32 grid_x, grid_y, grid_z,
//!   i64 *program)` runs the programs `first..end` of the grid in linear (z, y, x) order
//!   (program `i` is `x = i % grid_x`, `y = i / grid_x % grid_y`, `z = i / (grid_x·grid_y)`),
//!   with the same argument slots. It reads the slots once and holds the kernel's body itself
//!   (its only translation), inside its loop over programs, so a program costs no call, no
//!   argument passing and no prologue. `program[0..3]` holds the running program's `x, y, z`
//!   whenever its body runs (so that a fault can be attributed to it: one store per program,
//!   two per row of the grid). Requires `end <= grid_x·grid_y·grid_z` and `program` valid;
//!   nothing runs when `first >= end`.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Module};
use cranelift_object::ObjectModule;
use tilec_diagnostics::Diagnostic;
use tilec_vector::{Elem, Function, ScalarType};

use crate::kernel::{reg_type, Program, Translator};

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

pub fn grid_signature(module: &ObjectModule) -> Signature {
    let mut sig = module.make_signature();
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I64));
    }
    for _ in 0..3 {
        sig.params.push(AbiParam::new(types::I32).uext());
    }
    sig.params.push(AbiParam::new(types::I64));
    sig
}

/// Loads the runtime args of `f` from the slots at `slots`, in the kernel's ABI form.
fn load_args(f: &Function, b: &mut FunctionBuilder, slots: Value) -> Vec<Value> {
    let mut args = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let ty = match f.ty(p.var) {
            Elem::Scalar(ScalarType::F16 | ScalarType::BF16) => types::I16,
            elem => reg_type(elem),
        };
        args.push(b.ins().load(ty, MemFlagsData::trusted(), slots, (8 * i) as i32));
    }
    args
}

/// Builds the body of the launcher of `f`, calling `kernel` (with the bounds table from the
/// slot after the arguments when `checked`).
pub fn build(f: &Function, kernel: FuncId, mut b: FunctionBuilder, module: &mut ObjectModule, checked: bool) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let mut args = load_args(f, &mut b, params[0]);
    args.extend_from_slice(&params[1..7]);
    if checked {
        args.push(b.ins().load(types::I64, MemFlagsData::trusted(), params[0], (8 * f.params.len()) as i32));
    }
    let callee = module.declare_func_in_func(kernel, b.func);
    b.ins().call(callee, &args);
    b.ins().return_(&[]);
    b.finalize(module.isa().frontend_config());
}

/// Builds the kernel `NAME` of `f` (signature [`crate::kernel::kernel_signature`]): its
/// runtime args stored in argument slots in the launcher's form (and the bounds table after
/// them when `checked`), then one call of `grid` for program `(pid_z·grid_y + pid_y)·grid_x
/// + pid_x` alone.
pub fn build_kernel(f: &Function, grid: FuncId, mut b: FunctionBuilder, module: &mut ObjectModule, checked: bool) {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params = b.block_params(entry).to_vec();
    let n = f.params.len();
    let slot_count = n + usize::from(checked);
    let slots =
        b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8 * slot_count.max(1) as u32, 3));
    let program = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 24, 3));
    let slots_address = b.ins().stack_addr(types::I64, slots, 0);
    let program_address = b.ins().stack_addr(types::I64, program, 0);
    // Each arg in the type `load_args` reads back from the low bytes of its slot.
    for (i, &arg) in params[..n].iter().enumerate() {
        b.ins().store(MemFlagsData::trusted(), arg, slots_address, (8 * i) as i32);
    }
    if checked {
        b.ins().store(MemFlagsData::trusted(), params[n + 6], slots_address, (8 * n) as i32);
    }
    let [px, py, pz, gx, gy, gz] = <[Value; 6]>::try_from(&params[n..n + 6]).expect("pids and grid sizes");
    let wide = |b: &mut FunctionBuilder, v| b.ins().uextend(types::I64, v);
    let (px, py, pz, gx64, gy64) =
        (wide(&mut b, px), wide(&mut b, py), wide(&mut b, pz), wide(&mut b, gx), wide(&mut b, gy));
    let plane = b.ins().imul(pz, gy64);
    let row = b.ins().iadd(plane, py);
    let rows = b.ins().imul(row, gx64);
    let first = b.ins().iadd(rows, px);
    let end = b.ins().iadd_imm_s(first, 1);
    let callee = module.declare_func_in_func(grid, b.func);
    b.ins().call(callee, &[slots_address, first, end, gx, gy, gz, program_address]);
    b.ins().return_(&[]);
    b.finalize(module.isa().frontend_config());
}

/// Builds the grid entry of `f`: its body inside a loop over programs (RVV leaf functions
/// when `vector`, defined in `module` by this translation; bounds checks with the table from
/// the slot after the arguments when `checked`). Returns the leaves' code and the
/// checked sites; the outlined statements' functions go to `outlined` as each is translated.
pub fn build_grid(
    f: &Function,
    mut b: FunctionBuilder,
    module: &mut ObjectModule,
    vector: Option<crate::VectorExtensions>,
    checked: bool,
    outlined: crate::kernel::outline::Sink,
) -> Result<crate::kernel::Translated, Diagnostic> {
    let config = module.isa().frontend_config();
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let (slots, first, end) = (params[0], params[1], params[2]);
    let grids = [params[3], params[4], params[5]];
    let current = params[6];

    // Programs run in row segments: a run of consecutive x at fixed (y, z), so that the
    // per-program control is one increment and one branch.
    let start = b.create_block();
    let row = b.create_block();
    let program = b.create_block();
    let row_end = b.create_block();
    let next_row = b.create_block();
    let next_plane = b.create_block();
    let exit = b.create_block();
    let nonempty = b.ins().icmp(IntCC::UnsignedLessThan, first, end);
    b.ins().brif(nonempty, start, &[], exit, &[]);

    // The first program's coordinates; the grid sizes are nonzero since the range is not
    // empty. Coordinates are held as i64.
    b.switch_to_block(start);
    let args = load_args(f, &mut b, slots);
    let bounds = checked.then(|| b.ins().load(types::I64, MemFlagsData::trusted(), slots, (8 * f.params.len()) as i32));
    let [gx, gy] = [grids[0], grids[1]].map(|g| b.ins().uextend(types::I64, g));
    let x = b.ins().urem(first, gx);
    let rows = b.ins().udiv(first, gx);
    let y = b.ins().urem(rows, gy);
    let z = b.ins().udiv(rows, gy);
    let count = b.ins().isub(end, first);
    b.ins().jump(row, &[x.into(), y.into(), z.into(), count.into()]);

    // row(x, y, z, remaining): the segment x..x_end, x_end = x + min(gx - x, remaining).
    b.switch_to_block(row);
    for _ in 0..4 {
        b.append_block_param(row, types::I64);
    }
    let [x, y, z, remaining] = <[Value; 4]>::try_from(b.block_params(row)).expect("four row params");
    let row_left = b.ins().isub(gx, x);
    let segment = b.ins().umin(row_left, remaining);
    let x_end = b.ins().iadd(x, segment);
    let remaining = b.ins().isub(remaining, segment);
    b.ins().store(MemFlagsData::trusted(), y, current, 8);
    b.ins().store(MemFlagsData::trusted(), z, current, 16);
    b.ins().jump(program, &[x.into()]);

    b.switch_to_block(program);
    b.append_block_param(program, types::I64);
    let x = b.block_params(program)[0];
    b.ins().store(MemFlagsData::trusted(), x, current, 0);
    let pids = [x, y, z].map(|c| b.ins().ireduce(types::I32, c));
    let (mut b, translated) =
        Translator::translate_body(f, b, module, vector, &args, Program { pids, grids, bounds }, outlined)?;
    let next_x = b.ins().iadd_imm_s(x, 1);
    let in_row = b.ins().icmp(IntCC::NotEqual, next_x, x_end);
    b.ins().brif(in_row, program, &[next_x.into()], row_end, &[]);

    b.switch_to_block(row_end);
    let zero = b.ins().iconst(types::I64, 0);
    let y_next = b.ins().iadd_imm_s(y, 1);
    b.ins().brif(remaining, next_row, &[], exit, &[]);
    b.switch_to_block(next_row);
    let y_wraps = b.ins().icmp(IntCC::Equal, y_next, gy);
    b.ins().brif(y_wraps, next_plane, &[], row, &[zero.into(), y_next.into(), z.into(), remaining.into()]);
    b.switch_to_block(next_plane);
    let z_next = b.ins().iadd_imm_s(z, 1);
    b.ins().jump(row, &[zero.into(), zero.into(), z_next.into(), remaining.into()]);

    b.switch_to_block(exit);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    crate::kernel::drop_unread(b.func, &translated.narrowing);
    b.finalize(config);
    Ok(translated)
}
