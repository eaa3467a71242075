//! The RVV back end (`--target riscv64gcv`): kernels run under qemu at VLEN 128, 256, 512 and
//! 1024 must match the Tile IR interpreter bit for bit, at sizes around the strip length
//! (VLMAX of e32/m8 is VLEN/4 elements) and a large odd prime; the RVV leaf functions'
//! assembly of two fixtures is snapshotted (`snapshots/asm__*_rvv.snap`).

mod run_support;
#[path = "support/fixture.rs"]
mod fixture;

use run_support::{read_output, tilec, TempDir};
use tilec::{Compiler, Produce, Request, Target};

const VLENS: [u32; 4] = [128, 256, 512, 1024];

/// Runs `file` with `flags` then `args`; the output directory.
fn run(file: &str, kernel: &str, flags: &[&str], args: &[String]) -> TempDir {
    let out = TempDir::new("rvv");
    let out_dir = out.path.display().to_string();
    let mut all: Vec<&str> = vec!["run", file, "-k", kernel, "--out", &out_dir];
    all.extend_from_slice(flags);
    all.extend(args.iter().map(String::as_str));
    tilec(&all, &[]).assert_success();
    out
}

/// Runs on the interpreter and on riscv64gcv at every VLEN; `outputs` must be identical.
fn check(file: &str, kernel: &str, args: &[String], outputs: &[&str]) -> Result<(), String> {
    let path = fixture::workspace_root().join(file).display().to_string();
    let want = run(&path, kernel, &["--target", "interp"], args);
    let mut failures = Vec::new();
    for vlen in VLENS {
        let vlen_text = vlen.to_string();
        let got = run(&path, kernel, &["--target", "riscv64gcv", "--vlen", &vlen_text], args);
        for name in outputs {
            let (g, w) = (read_output(&got, name), read_output(&want, name));
            if g != w {
                let bad = (0..w.len()).find(|&i| g.get(i) != w.get(i));
                failures.push(format!("{file} {} at VLEN {vlen}: `{name}` differs first at {bad:?}", args.join(" ")));
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
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
    ];
    let mut failures = Vec::new();
    for (file, outputs) in cases {
        let f = fixture::load(&fixture::workspace_root().join("fixtures").join(file));
        assert!(!f.runs.is_empty(), "{file} has no run line");
        for args in &f.runs {
            // Every array argument is compared when the case names none.
            let names: Vec<String> = if outputs.is_empty() {
                args.iter()
                    .filter_map(|a| a.split_once('='))
                    .filter(|(_, v)| ["zeros:", "rand:", "arange:"].iter().any(|p| v.starts_with(p)))
                    .map(|(n, _)| n.to_string())
                    .collect()
            } else {
                outputs.iter().map(|s| s.to_string()).collect()
            };
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let kernel = &f.compile[0].kernel;
            if let Err(e) = check(&format!("fixtures/{file}"), kernel, args, &names) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The listings of the RVV leaf functions in `--emit asm` of a fixture.
fn rvv_listings(file: &str) -> String {
    let f = fixture::load(&fixture::workspace_root().join("fixtures").join(file));
    let header = &f.compile[0];
    let signature = tilec_front::parse_signature(&header.signature).expect("the fixture's signature parses");
    let constants = header.constants.iter().map(|(k, v)| (k.clone(), tilec_front::parse_const_value(v))).collect();
    let request = Request { file_name: &f.name, source: &f.source, kernel: &header.kernel, signature, constants };
    let out = Compiler::new(Target::Riscv64gcv)
        .with_produce(Produce::Object)
        .compile(&request)
        .unwrap_or_else(|ds| panic!("{}", tilec::diagnostics::render(&f.name, &f.source, &ds)));
    let marker = format!("{}__rvv", header.kernel);
    let start = out.asm.find(&marker).unwrap_or_else(|| panic!("{file}: no RVV leaf function in:\n{}", out.asm));
    let leaves: Vec<&str> = out.asm[start..].split("\n\n").filter(|s| s.starts_with(&marker)).collect();
    leaves.join("\n\n")
}

#[test]
fn asm_of_rvv_leaf_functions() {
    for (file, name) in [("vector_add.py", "vector_add"), ("transpose.py", "transpose")] {
        let text = rvv_listings(file);
        insta::with_settings!({
            snapshot_path => fixture::workspace_root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(format!("asm__{name}_rvv"), text);
        });
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
