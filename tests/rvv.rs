//! The RVV back end (`--target riscv64gcv`): kernels run under qemu at VLEN 128, 256, 512 and
//! 1024 must match the Tile IR interpreter bit for bit, at sizes around the strip length
//! (VLMAX of e32/m8 is VLEN/4 elements) and a large odd prime; the RVV leaf functions'
//! assembly of some fixtures is snapshotted (`snapshots/asm__*_rvv.snap`).

mod support;

use std::path::Path;

use support::{compare_arrays, request, workspace_root, Fixture, TempDir};
use tilec::{Compiler, Produce, Target};

const VLENS: [u32; 4] = [128, 256, 512, 1024];

/// Runs `file` with `flags` then `args`; the output directory.
fn run(file: &str, kernel: &str, flags: &[&str], args: &[String]) -> TempDir {
    support::run(Path::new(file), kernel, flags, args).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `file` on the interpreter and on riscv64gcv at every VLEN; each of `outputs` must be
/// the interpreter's bit for bit (NaN payloads aside), unless the fixture declares a
/// tolerance for it.
fn check(file: &str, kernel: &str, args: &[String], outputs: &[&str]) -> Result<(), String> {
    let fixture = Fixture::load(&workspace_root().join(file)).unwrap_or_else(|e| panic!("{e}"));
    let path = fixture.path.display().to_string();
    let want = run(&path, kernel, &["--target", "interp"], args);
    let mut failures = Vec::new();
    for vlen in VLENS {
        let vlen_text = vlen.to_string();
        let got = run(&path, kernel, &["--target", "riscv64gcv", "--vlen", &vlen_text], args);
        for name in outputs {
            let tolerance = fixture.tolerance(name);
            if let Err(e) = compare_arrays(name, &got.read_npy(name), &want.read_npy(name), &tolerance) {
                failures.push(format!("{file} {} at VLEN {vlen}: {e}", args.join(" ")));
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn args(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// Reductions (row sums and maxima, column sums, the max and sum of fused softmax, layer
/// norm's mean and variance) and SLEEF math (softmax's `exp`, gelu's `tanh`) against the
/// interpreter, at other sizes than the fixtures' run lines, within the fixtures' declared
/// tolerances.
#[test]
fn reductions_and_math_match_the_interpreter_within_tolerance() {
    let cases: &[(&str, &str, &str, &[&str])] = &[
        ("softmax.py", "softmax_kernel", "--grid 3 output_ptr=zeros:fp32:10x100 input_ptr=rand:fp32:10x100:3 input_row_stride=100 output_row_stride=100 n_rows=10 n_cols=100 BLOCK_SIZE=128 num_stages=2", &["output_ptr"]),
        ("softmax.py", "softmax_kernel", "--grid 2 output_ptr=zeros:fp32:5x1000 input_ptr=rand:fp32:5x1000:4 input_row_stride=1000 output_row_stride=1000 n_rows=5 n_cols=1000 BLOCK_SIZE=1024 num_stages=2", &["output_ptr"]),
        ("softmax.py", "softmax_kernel", "--grid 1 output_ptr=zeros:fp32:3x7 input_ptr=rand:fp32:3x7:5 input_row_stride=7 output_row_stride=7 n_rows=3 n_cols=7 BLOCK_SIZE=128 num_stages=2", &["output_ptr"]),
        ("layer_norm.py", "_layer_norm_fwd_fused", "--grid 5 X=rand:fp32:5x200 Y=zeros:fp32:5x200 W=rand:fp32:200 B=rand:fp32:200 Mean=zeros:fp32:5 Rstd=zeros:fp32:5 stride=200 N=200 eps=1e-5 BLOCK_SIZE=64", &["Y", "Mean", "Rstd"]),
        ("layer_norm.py", "_layer_norm_fwd_fused", "--grid 3 X=rand:fp32:3x1031 Y=zeros:fp32:3x1031 W=rand:fp32:1031 B=rand:fp32:1031 Mean=zeros:fp32:3 Rstd=zeros:fp32:3 stride=1031 N=1031 eps=1e-5 BLOCK_SIZE=256", &["Y", "Mean", "Rstd"]),
        ("row_sum.py", "row_sum_kernel", "--grid 4 x_ptr=rand:fp32:30x50 out_ptr=zeros:fp32:30 M=30 N=50 stride=50 BLOCK_M=8 BLOCK_N=64", &["out_ptr"]),
        ("col_sum.py", "col_sum_kernel", "--grid 3 x_ptr=rand:fp32:45x70 out_ptr=zeros:fp32:70 M=45 N=70 stride=70 BLOCK_M=16 BLOCK_N=32", &["out_ptr"]),
        ("gelu.py", "gelu_kernel", "--grid 3 x_ptr=rand:fp32:1500 y_ptr=zeros:fp32:1500 n=1500 BLOCK=512 APPROXIMATE=tanh", &["y_ptr"]),
    ];
    let mut failures = Vec::new();
    for (file, kernel, run_args, outputs) in cases {
        if let Err(e) = check(&format!("fixtures/{file}"), kernel, &args(run_args), outputs) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Fused softmax keeps its max, exp and sum nests on RVV: a SLEEF call and both reductions
/// appear in the leaf functions.
#[test]
fn softmax_reduces_and_computes_exp_inline_in_rvv_leaves() {
    let text = rvv_listings("softmax.py");
    for needle in ["vfredmax.vs", "vfredusum.vs", "vfmax.vv", "vfncvt.x.f.w", "vfnmsac.vf"] {
        assert!(text.contains(needle), "no `{needle}` in:\n{text}");
    }
    assert!(!text.contains("auipc ra, 0"), "fp32 exp calls SLEEF:\n{text}");
}

/// fp32 `erf` is inline (`crates/codegen/src/rvv/erf.rs`), no SLEEF call: its nest runs at
/// LMUL 8 and, having no group to spare there, its full path in halves at LMUL 4.
#[test]
fn erf_is_computed_inline_at_lmul_8() {
    let text = rvv_listings("math/erf.py");
    for needle in ["e32, m8", "e32, m4", "vfirst.m", "vfmadd.vv", "vmerge.vvm"] {
        assert!(text.contains(needle), "no `{needle}` in:\n{text}");
    }
    assert!(!text.contains("auipc ra, 0"), "fp32 erf calls SLEEF:\n{text}");
}

/// fp32 `log` is inline (`crates/codegen/src/rvv/log.rs`), no SLEEF call: one straight-line
/// strip (a division and the specials' fix-ups under masks) at LMUL 4.
#[test]
fn log_is_computed_inline() {
    let text = rvv_listings("math/log.py");
    for needle in ["e32, m4", "vfdiv.vv", "vfsqrt.v", "vmerge.vvm", "vfmsac.vf"] {
        assert!(text.contains(needle), "no `{needle}` in:\n{text}");
    }
    assert!(!text.contains("auipc ra, 0"), "fp32 log calls SLEEF:\n{text}");
}

/// A scratch element a nest reads twice is loaded once per strip (RVV leaves only: the
/// scalar path keeps its loads). Cross-entropy's online max and sum read `tmp_max` before
/// and after the maximum: each copy of the strip loads the input (masked), `tmp_max` and
/// `tmp_sum` once.
#[test]
fn a_scratch_element_read_twice_is_loaded_once() {
    let leaf = cross_entropy_online_leaf();
    // Each block between labels (a copy of the strip, or part of one) loads through each
    // stream register at most once.
    for block in leaf.split("\n.L") {
        let mut bases: Vec<&str> =
            block.lines().filter(|l| l.contains("vle32.v")).filter_map(|l| l.split('(').nth(1)).collect();
        let loads = bases.len();
        bases.sort();
        bases.dedup();
        assert_eq!(bases.len(), loads, "a stream loaded twice in one strip:\n{leaf}");
    }
}

/// FlagGems' argmax: its row arg-reduction leaf and the leaves of its `[BLOCK_M]` (4-lane)
/// nests, split at the blank lines of the listing.
fn argmax_leaves() -> Vec<String> {
    rvv_listings_in("bench/kernels", "argmax.py").split("\n\n").map(str::to_string).collect()
}

/// A nest of at most VLMAX lanes at the smallest VLEN (argmax's 4-lane nests) is one strip:
/// `vl` set once, by an immediate before the prologue's splats (VLMAX never computed), no
/// strip count (`divu`), no loop. Only the row reduction over 1024 lanes keeps its loop.
#[test]
fn nests_that_fit_one_strip_run_it_without_a_loop() {
    let leaves = argmax_leaves();
    let looping: Vec<&String> = leaves.iter().filter(|l| l.contains("divu")).collect();
    assert_eq!(looping.len(), 1, "leaves with a strip loop:\n{}", leaves.join("\n\n"));
    assert!(looping[0].contains("vfredmax.vs"), "the loop is not the row reduction's:\n{}", looping[0]);
    let one_strip: Vec<&String> = leaves.iter().filter(|l| l.contains("vsetivli zero, 4,")).collect();
    assert!(one_strip.len() >= 4, "{} leaves set vl = 4:\n{}", one_strip.len(), leaves.join("\n\n"));
    // They set `vl` once, first, and never read VLMAX (`vsetvli` with a destination).
    for leaf in one_strip {
        assert_eq!(leaf.matches("vsetivli").count(), 1, "vl set twice:\n{leaf}");
        assert!(!leaf.contains("vsetvli t0"), "VLMAX read:\n{leaf}");
    }
}

/// A nest that fits one strip at the smallest VLEN in a narrower group than LMUL 8 runs in
/// the narrowest such group: argmax's 4-lane nests at m1 (e32) and m2 (e64), the same
/// instructions as at m8 on an eighth or a quarter of the registers.
#[test]
fn one_strip_nests_take_the_narrowest_group_that_holds_them() {
    let leaves = argmax_leaves();
    let small: Vec<&String> = leaves.iter().filter(|l| l.contains("vsetivli zero, 4,")).collect();
    assert!(small.len() >= 4, "{} 4-lane leaves:\n{}", small.len(), leaves.join("\n\n"));
    for leaf in small {
        for wide in ["m8", "m4", "e32, m2"] {
            assert!(!leaf.contains(wide), "a 4-lane leaf at {wide}:\n{leaf}");
        }
    }
}

/// The row arg-reduction sets no vtype already in effect: per row of argmax, the outer
/// loop's top, the finish at VLMAX after the tail and `vl` = 1 for the two stores, once
/// (23 vset instructions in the leaf with the strip copies' NaN paths, 30 before). And the
/// input stream's start is summed once before the loop over the rows from its uniform
/// terms: each row adds only its own offset (8 instructions start a row, 15 before); the
/// columns' prefix (`n_offset < N`) is clamped once, only the rows' guard in each row, and
/// that guard's value sign-extended where it is summed.
#[test]
fn row_arg_reductions_set_each_vtype_once_and_start_rows_cheaply() {
    let leaves = argmax_leaves();
    let leaf = leaves.iter().find(|l| l.contains("vfredmax.vs")).expect("the arg-reduction leaf");
    let vsets = leaf.lines().filter(|l| l.trim_start().starts_with("vset")).count();
    assert!(vsets <= 23, "{vsets} vset instructions:\n{leaf}");
    // From the row loop's top (the last branch's target) to the broadcast load of the
    // running maximum.
    let back = leaf.lines().rfind(|l| l.trim_start().starts_with("blt ")).expect("the row loop's branch");
    let top = back.rsplit(", ").next().expect("a label");
    let row_top = leaf.split(&format!("\n{top}:\n")).nth(1).expect("the row loop");
    let start: Vec<&str> = row_top.lines().take_while(|l| !l.contains("vlse32.v")).collect();
    assert!(start.len() <= 8, "{} instructions start a row:\n{leaf}", start.len());
    let after_start = &row_top[row_top.find("vlse32.v").expect("the running maximum's load")..];
    let per_row = &after_start[..after_start.find("divu").expect("the strip count")];
    assert!(!per_row.contains("bgez"), "the columns' prefix is clamped in every row:\n{leaf}");
    // The rows' guard (`m_offset < M`) is summed and sign-extended in place, not moved first.
    let lines: Vec<&str> = leaf.lines().map(str::trim).collect();
    for pair in lines.windows(2) {
        let moved = pair[0].strip_prefix("mv ").and_then(|m| m.split(',').next());
        let extended = pair[1].strip_prefix("sext.w ").and_then(|m| m.split(',').next());
        assert!(moved.is_none() || moved != extended, "a move before a sign extension:\n{leaf}");
    }
}

/// Cross-entropy's leaf computing the online maximum and the rescaled sum of exponentials.
fn cross_entropy_online_leaf() -> String {
    let text = rvv_listings_in("bench/kernels", "cross_entropy.py");
    text.split("\n\n").find(|l| l.contains("vfmax.vv")).expect("the online max and sum leaf").to_string()
}

/// Elementwise values computed as soon as their operands are (when that frees an operand)
/// and scratch stores moved up to their values shorten what lives across cross-entropy's two
/// inline `exp`s at LMUL 8: 4 whole-register spill moves per strip, 16 over the leaf's four
/// strip copies (7 per strip before).
#[test]
fn early_values_and_stores_spill_less() {
    let leaf = cross_entropy_online_leaf();
    let moves = leaf.lines().filter(|l| l.contains("vs8r.v") || l.contains("vl8re32.v")).count();
    assert!(moves <= 16, "{moves} whole-register moves:\n{leaf}");
}

/// A split range's two strips spill into the same slots (the first strip's spilled values
/// are dead when the second runs): cross-entropy's online leaf has a spill area of 16
/// registers (two m8 slots, 32 before) whose second slot's address is set up once, and
/// every whole-register move goes through `sp` or that one register.
#[test]
fn split_range_strips_share_spill_slots() {
    let leaf = cross_entropy_online_leaf();
    let lines: Vec<&str> = leaf.lines().map(str::trim).collect();
    let area =
        lines.windows(2).find(|w| w[0].starts_with("csrr ") && w[0].ends_with("vlenb") && w[1].starts_with("slli "));
    let area = area.expect("the spill area's size");
    assert!(area[1].ends_with(", 4"), "a spill area other than 16 registers: `{}`\n{leaf}", area[1]);
    let mut bases: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("vs8r.v") || l.starts_with("vl8re32.v"))
        .filter_map(|l| l.split('(').nth(1))
        .collect();
    bases.sort();
    bases.dedup();
    assert_eq!(bases.len(), 2, "spill slots at {bases:?}:\n{leaf}");
    assert!(bases.contains(&"sp)"), "no slot at sp:\n{leaf}");
}

/// A load masked by a prefix and-ed with a guard whose bound is a constant (cross-entropy's
/// `offset_c < C and offset_d < D` with D = 1) splits the range at the guarded prefix: the
/// strips load unmasked and build no mask (no `vid.v`, compare or `vmand.mm` per strip).
#[test]
fn a_guarded_prefix_with_a_constant_bound_splits_the_range() {
    let leaf = cross_entropy_online_leaf();
    for needle in ["vid.v", "vmand.mm", "vmslt", ", v0.t"] {
        assert!(!leaf.contains(needle), "`{needle}` in:\n{leaf}");
    }
}

/// A nest the emitter rewrites before planning (a store moved up to its value, a scratch
/// element read once) is still planned where it stands in the function: layer norm
/// backward's two sums (`sum(xhat * wdy)` and `sum(wdy)`) start from their identity there,
/// so both leaves return them in `fa0` rather than reading and writing the scratch element.
#[test]
fn rewritten_nests_keep_their_fresh_sums_in_registers() {
    let text = rvv_listings_in("bench/tutorials", "layer_norm_bwd.py");
    assert_eq!(text.matches("vfmv.f.s fa0").count(), 2, "{text}");
}

/// A nest whose only accumulation is a whole-block reduction to one scalar returns it in a
/// register (`fa0` for floats, fp64 included, `a0` for integers), which the kernel stores;
/// the results match the interpreter at every VLEN, the cut range's +0.0 start included.
#[test]
fn whole_block_reductions_return_in_registers() {
    let text = rvv_listings("scalar_reductions.py");
    for needle in ["vfmv.f.s fa0", "vmv.x.s a0", "e64, m8"] {
        assert!(text.contains(needle), "no `{needle}` in:\n{text}");
    }
    let file = "fixtures/scalar_reductions.py";
    for run_args in fixture_runs("scalar_reductions.py") {
        check(file, "scalar_reductions_kernel", &run_args, &["fout_ptr", "iout_ptr", "dout_ptr"]).unwrap();
    }
}

/// A reduction reads only element 0 of its start operand `vs1`: a fresh accumulation's
/// identity goes there with a scalar move (`vfmv.s.f`, `vmv.s.x`: one register at any LMUL),
/// never a splat across the register group.
#[test]
fn reductions_start_from_a_scalar_move_of_the_identity() {
    let mut checked = 0;
    for text in [rvv_listings("scalar_reductions.py"), rvv_listings_in("bench/kernels", "layernorm.py")] {
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for (at, line) in lines.iter().enumerate() {
            let Some(operands) = line.strip_prefix("vfredusum.vs ").or_else(|| line.strip_prefix("vredsum.vs ")) else {
                continue;
            };
            let start = operands.split(", ").nth(2).expect("vd, vs2, vs1");
            let written = lines[..at]
                .iter()
                .rev()
                .find(|l| l.split_once(' ').is_some_and(|(_, ops)| ops.split(", ").next() == Some(start)))
                .unwrap_or_else(|| panic!("nothing writes {start} before `{line}` in:\n{text}"));
            let op = written.split(' ').next().unwrap_or_default();
            assert!(
                !matches!(op, "vfmv.v.f" | "vmv.v.x" | "vmv.v.i"),
                "`{written}` splats the start of `{line}` in:\n{text}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 2, "fewer sum reductions than the fixtures hold");
}

/// A rotated loop's first test compares its bound's 64-bit extension, computed once: no
/// branch tests a value sign-extended just before it (layer norm's three row loops, inside
/// the grid's loop over programs).
#[test]
fn loop_tests_read_the_bound_extended_once() {
    let (kernel, asm) = riscv64gcv_asm_in("bench/kernels", "layernorm.py");
    let grid = format!("{kernel}_grid:");
    let start = asm.find(&grid).unwrap_or_else(|| panic!("no grid entry in:\n{asm}"));
    let lines: Vec<&str> = asm[start..].lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
    let mut tests = 0;
    for pair in lines.windows(2) {
        let branch = ["beq ", "bne ", "blt ", "bge ", "bgt ", "ble "].iter().any(|b| pair[1].starts_with(b));
        tests += usize::from(branch && pair[1].contains("zero"));
        let Some(extended) = pair[0].strip_prefix("sext.w ").and_then(|ops| ops.split(',').next()) else { continue };
        let reads = pair[1].split_once(' ').map_or("", |(_, ops)| ops).split(',').any(|op| op == extended);
        assert!(!(branch && reads), "`{}` extends what `{}` tests, in:\n{}", pair[0], pair[1], lines.join("\n"));
    }
    assert!(tests >= 3, "fewer loop tests against zero than layer norm's three loops:\n{}", lines.join("\n"));
}

fn strings(items: &[String]) -> Vec<String> {
    items.to_vec()
}

#[test]
fn vector_add_at_sizes_around_the_strip_length() {
    let mut sizes = vec![0u64, 1, 100_003];
    for vlen in VLENS {
        let strip = vlen as u64 / 4;
        sizes.extend([strip - 1, strip, strip + 1]);
    }
    sizes.sort();
    sizes.dedup();
    let mut failures = Vec::new();
    for n in sizes {
        // Arrays one element longer than n, so that an overrun would show in the output.
        let len = n + 1;
        let grid = n.div_ceil(1024).max(1);
        let args = strings(&[
            format!("--grid={grid}"),
            format!("x_ptr=rand:fp32:{len}:1"),
            format!("y_ptr=rand:fp32:{len}:2"),
            format!("output_ptr=zeros:fp32:{len}"),
            format!("n_elements={n}"),
            "BLOCK_SIZE=1024".to_string(),
        ]);
        if let Err(e) = check("fixtures/vector_add.py", "add_kernel", &args, &["output_ptr"]) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Non-prefix masks (`masked_where`), gathers through pointer tiles and strided scratch
/// (`copy_2d`, `transpose`), integer ops and i64 offsets, on the fixtures' own run lines.
#[test]
fn memory_and_mask_fixtures_match_the_interpreter() {
    let cases: &[(&str, &[&str])] = &[
        ("masked_where.py", &["out_ptr"]),
        ("copy_2d.py", &["dst"]),
        ("transpose.py", &["y_ptr"]),
        ("int8_ops.py", &[]),
        ("i64_offsets.py", &[]),
        ("grid3d.py", &[]),
        ("strided_columns.py", &[]),
        ("strided_rows.py", &["y"]),
        ("unsigned_bounds.py", &["lt", "le"]),
        ("register_reuse.py", &["out_ptr", "acc_ptr", "iout_ptr"]),
        ("many_live.py", &["out_ptr"]),
    ];
    let mut failures = Vec::new();
    for (file, outputs) in cases {
        let f = Fixture::named("fixtures", file.trim_end_matches(".py"));
        assert!(!f.runs.is_empty(), "{file} has no run line");
        for line in &f.runs {
            // Every array argument is compared when the case names none.
            let names: Vec<String> =
                if outputs.is_empty() { line.array_names() } else { outputs.iter().map(|s| s.to_string()).collect() };
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            if let Err(e) = check(&format!("fixtures/{file}"), &line.kernel, &line.args, &names) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The listings of the RVV leaf functions in `--emit asm` of a fixture.
fn rvv_listings(file: &str) -> String {
    rvv_listings_in("fixtures", file)
}

/// [`rvv_listings`] of a kernel in directory `dir`.
fn rvv_listings_in(dir: &str, file: &str) -> String {
    let (kernel, asm) = riscv64gcv_asm_in(dir, file);
    let marker = format!("{kernel}__rvv");
    let start = asm.find(&marker).unwrap_or_else(|| panic!("{file}: no RVV leaf function in:\n{asm}"));
    let leaves: Vec<&str> = asm[start..].split("\n\n").filter(|s| s.starts_with(&marker)).collect();
    leaves.join("\n\n")
}

/// The kernel's name and the `--emit asm` listing of the first compile header of kernel
/// `file` in directory `dir`, for riscv64gcv.
fn riscv64gcv_asm_in(dir: &str, file: &str) -> (String, String) {
    let f = Fixture::named(dir, file.trim_end_matches(".py"));
    let header = &f.compile[0];
    let request = request(&f, header).expect("the fixture's signature parses");
    let out = Compiler::new(Target::Riscv64gcv)
        .with_produce(Produce::Object)
        .compile(&request)
        .unwrap_or_else(|ds| panic!("{}", tilec::diagnostics::render(&f.name, &f.source, &ds)));
    (header.kernel.clone(), out.asm)
}

#[test]
fn asm_of_rvv_leaf_functions() {
    for (file, name) in [
        ("vector_add.py", "vector_add"),
        ("transpose.py", "transpose"),
        ("strided_columns.py", "strided_columns"),
        ("layer_norm.py", "layer_norm"),
        ("many_live.py", "many_live"),
    ] {
        let text = rvv_listings(file);
        insta::with_settings!({
            snapshot_path => workspace_root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("asm__{name}_rvv"), text);
        });
    }
}

/// Philox's four state words and a temporary take five register groups, one more than
/// m8 leaves: seeded dropout's leaf still runs at m8, spilling whole groups, because that
/// costs less per element than m4 without spills; Triton's fold of the random word's sign
/// (`x < 0 ? -x - 1 : x`) is a shift and an xor, with no mask.
#[test]
fn seeded_dropout_runs_at_m8_with_whole_group_spills() {
    let text = rvv_listings("dropout.py");
    for needle in ["e32, m8", "vs8r.v", "vl8re32.v", "vsra.vi"] {
        assert!(text.contains(needle), "no `{needle}` in:\n{text}");
    }
    for absent in ["e32, m4", "vmslt"] {
        assert!(!text.contains(absent), "`{absent}` in:\n{text}");
    }
}

/// fp16 loads widen at 16 bits (a widening multiply, the inf/NaN test at e16, 3 more
/// instructions at e32: no `vsext.vf2`), and a strip that starts with an fp16 load and ends
/// with an fp16 store (fp16 axpy) runs its full-strip loop entered at e16: the loop's first
/// instruction is the load, and it changes the vtype 4 times per strip (2 per load's
/// widening, 2 around the store's narrowing) instead of 6.
#[test]
fn fp16_widens_at_16_bits_in_loops_entered_at_e16() {
    let text = rvv_listings("fp16_scale.py");
    for needle in ["vwmul.vx", "vmsgtu.vx"] {
        assert!(text.contains(needle), "no `{needle}` in:\n{text}");
    }
    assert!(!text.contains("vsext.vf2"), "`vsext.vf2` in:\n{text}");
    let lines: Vec<&str> = text.lines().collect();
    let branch = lines.iter().position(|l| l.trim_start().starts_with("bne")).expect("a loop branch");
    let label = lines[..branch].iter().rposition(|l| l.ends_with(':') && l.starts_with(".L")).expect("a loop label");
    let body = &lines[label + 1..=branch];
    assert_eq!(lines[label - 1].trim(), "vsetvli zero, zero, e16, m4, ta, mu", "loop entry:\n{text}");
    assert!(body[0].trim_start().starts_with("vle16.v"), "full-strip loop:\n{}", body.join("\n"));
    let vtype_changes = body.iter().filter(|l| l.contains("vsetvli")).count();
    assert_eq!(vtype_changes, 4, "full-strip loop:\n{}", body.join("\n"));
}

/// A scan nest whose loads' mask is a guarded prefix (FlagGems' cumsum: rows < M and
/// columns < N) runs only the prefix: its strip computes no mask; its log steps go from the
/// largest shift down, filling the identity once per strip.
#[test]
fn scan_nests_run_their_prefix_without_a_mask() {
    let listings = rvv_listings_in("bench/kernels", "cumsum.py");
    let text = listings.split("\n\n").find(|leaf| leaf.contains("vslideup")).expect("a scan leaf");
    for absent in ["vmslt", "vmand", "v0.t"] {
        assert!(!text.contains(absent), "`{absent}` in:\n{text}");
    }
    let steps: Vec<&str> = text.lines().filter(|l| l.contains("vslideup.vi")).collect();
    assert_eq!(steps.first().map(|l| l.trim_end()), Some("    vslideup.vi v16, v8, 16"), "{text}");
    let fills = text.lines().filter(|l| l.trim_start().starts_with("vfmv.v.f")).count();
    assert_eq!(fills, 2, "one identity fill per strip copy:\n{text}");
}

/// FlagGems' argmax: `tl.max(..., return_indices=True)` is one arg-accumulation, whose
/// nest splits at the loads' prefix (rows < M, columns < N) like other reductions: the
/// full-strip loop loads without a mask and folds with no mask computation.
#[test]
fn argmax_runs_one_nest_without_masks_in_its_strip_loop() {
    let listings = rvv_listings_in("bench/kernels", "argmax.py");
    let leaves: Vec<&str> = listings.split("\n\n").filter(|leaf| leaf.contains("vredminu")).collect();
    assert_eq!(leaves.len(), 1, "one arg-accumulation leaf:\n{listings}");
    let lines: Vec<&str> = leaves[0].lines().collect();
    let branch = lines.iter().position(|l| l.trim_start().starts_with("bne")).expect("a loop branch");
    let label = lines[..branch].iter().rposition(|l| l.ends_with(':') && l.starts_with(".L")).expect("a loop label");
    let body = lines[label + 1..=branch].join("\n");
    for absent in ["vmslt", "vmand", "vle32.v v24, (t1), v0.t"] {
        assert!(!body.contains(absent), "`{absent}` in the strip loop:\n{body}");
    }
    assert_eq!(leaves[0].matches("vredminu").count(), 1, "one finish per row:\n{}", leaves[0]);
}

/// 40 values live at once do not fit in 31 registers even at LMUL 1: the nest still gets a
/// leaf, which spills whole registers and reloads them (its results are checked against
/// the interpreter with the memory fixtures).
#[test]
fn many_live_values_spill_whole_registers() {
    let text = rvv_listings("many_live.py");
    for needle in ["vs1r.v", "vl1re32.v", "csrr"] {
        assert!(text.contains(needle), "no `{needle}` in:\n{text}");
    }
}

#[test]
fn vector_add_inner_loop_is_eight_instructions_per_strip() {
    let text = rvv_listings("vector_add.py");
    // The full-strip loop: from its label to the backward branch.
    let lines: Vec<&str> = text.lines().collect();
    let branch = lines.iter().position(|l| l.trim_start().starts_with("bne")).expect("a loop branch");
    let label = lines[..branch].iter().rposition(|l| l.ends_with(':') && l.starts_with(".L")).expect("a loop label");
    let body = &lines[label + 1..=branch];
    assert_eq!(body.len(), 8, "full-strip loop:\n{}", body.join("\n"));
    assert!(body.iter().all(|l| !l.contains("vsetvli")), "vsetvli hoisted out of the loop:\n{}", body.join("\n"));
}

/// The arguments of each run line of a fixture.
fn fixture_runs(file: &str) -> Vec<Vec<String>> {
    let f = Fixture::named("fixtures", file.trim_end_matches(".py"));
    assert!(!f.runs.is_empty(), "{file} has no run line");
    f.runs.into_iter().map(|line| line.args).collect()
}

/// fp16 and bf16 without Zvfh: every 16-bit pattern widened, fp32 patterns of every exponent
/// narrowed (random low bits and exact ties), fp16 products overflowing and underflowing,
/// fp16 axpy, fp16 loads feeding fp32 math (silu) — bit for bit against the interpreter
/// (any NaN matches any NaN); bf16 with `exp` within the tolerance `bf16_add.py` declares.
#[test]
fn half_precision_matches_the_interpreter() {
    let mut failures = Vec::new();
    let cases: &[(&str, &str, &[&str])] = &[
        ("half_widen.py", "half_widen_kernel", &["hw_ptr", "bw_ptr", "sq_ptr"]),
        ("half_narrow.py", "half_narrow_kernel", &["out_ptr"]),
        ("fp16_scale.py", "fp16_axpy_kernel", &["out_ptr"]),
        ("silu.py", "silu_mul_kernel", &["out_ptr"]),
    ];
    for (file, kernel, outputs) in cases {
        for run_args in fixture_runs(file) {
            if let Err(e) = check(&format!("fixtures/{file}"), kernel, &run_args, outputs) {
                failures.push(e);
            }
        }
    }
    let bf16 = "fixtures/bf16_add.py";
    for run_args in fixture_runs("bf16_add.py") {
        let checked = check(bf16, "bf16_mix_kernel", &run_args, &["c_ptr", "d_ptr"]);
        if let Err(e) = checked {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Scans: integer scans, float scans across rows (a lane-wise recurrence) and float max
/// scans (`tl.associative_scan`) bit for bit; float sums and products along the strip
/// (reassociated within a strip) within the tolerances their fixtures declare; at lengths
/// around the strip.
#[test]
fn scans_match_the_interpreter() {
    let mut failures = Vec::new();
    let cumsum = "fixtures/cumsum.py";
    for n in [1, 63, 64, 65, 129, 200, 256] {
        let run_args =
            args(&format!("--grid 1 x_ptr=arange:i32:257 y_ptr=zeros:i32:257 z_ptr=zeros:fp32:257 n={n} BLOCK=256"));
        let checked = check(cumsum, "cumsum_kernel", &run_args, &["y_ptr", "z_ptr"]);
        if let Err(e) = checked {
            failures.push(e);
        }
    }
    let custom = "fixtures/custom_reduce.py";
    for run_args in fixture_runs("custom_reduce.py") {
        if let Err(e) = check(custom, "custom_reduce_kernel", &run_args, &["scan_ptr", "prod_ptr"]) {
            failures.push(e);
        }
    }
    let scan_2d = "fixtures/scan_2d.py";
    for run_args in fixture_runs("scan_2d.py") {
        let checked =
            check(scan_2d, "scan_2d_kernel", &run_args, &["rows_ptr", "cols_ptr", "fcol_ptr", "wide_ptr", "frow_ptr"]);
        if let Err(e) = checked {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Half loads and stores, scans along and across the strip, and float max/min reductions
/// are in RVV leaves.
#[test]
fn halves_and_scans_are_vectorized() {
    let checks: &[(&str, &[&str])] = &[
        ("fp16_scale.py", &["vle16.v", "vwmul.vx", "vmsgtu.vx", "vnclipu.wi", "vse16.v"]),
        ("bf16_add.py", &["vle16.v", "vse16.v"]),
        ("half_widen.py", &["vzext.vf2", "vwmul.vx", "vfmul.vf", "vse16.v"]),
        ("half_narrow.py", &["vfadd.vf", "vmflt.vf", "csrwi vxrm, 1", "vnclipu.wi", "vse16.v"]),
        ("cumsum.py", &["vslideup.vi", "vslidedown.vx", "vadd.vv", "vfmul.vv"]),
        ("scan_2d.py", &["vslideup.vx", "vfadd.vv", "vmul.vv"]),
        ("custom_reduce.py", &["vmseq.vi", "vslideup.vi", "vfmax.vv"]),
        // Its NaN cases reach the RVV reductions and scans, not only the scalar fallback.
        ("nan_max_min.py", &["vfredmax.vs", "vfredmin.vs", "vslideup.vi", "vfmax.vv", "vfmin.vv"]),
    ];
    for (file, needles) in checks {
        let text = rvv_listings(file);
        for needle in *needles {
            assert!(text.contains(needle), "{file}: no `{needle}` in:\n{text}");
        }
    }
}
