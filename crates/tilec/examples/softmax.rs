//! Compiles the softmax kernel of Triton's fused-softmax tutorial (`fixtures/softmax.py`)
//! once, launches it on a `Vec<f32>` of 64 rows of 781 values, and checks every row against
//! a plain Rust loop.
//!
//! ```sh
//! cargo run -p tilec --example softmax -- riscv64gcv   # or riscv64gc, host, interp
//! ```
//!
//! The RISC-V targets run under qemu (natively on a riscv64 host) and need `cargo xtask
//! setup`; the error says so when it is missing. `host` runs natively on the machine this
//! runs on.

use std::error::Error;

/// Rows and columns of the input; 781 columns leave a ragged last block, as in the tutorial.
const ROWS: usize = 64;
const COLS: usize = 781;

/// The kernel's results may differ from the Rust loop's by this much relative to the
/// largest value of the row: `exp` is SLEEF's on riscv64gcv (within 1 ulp; Rust's is the
/// platform libm's), and the kernel sums a row in another order than the loop does.
const RELATIVE_TOLERANCE: f32 = 1e-6;

fn main() -> Result<(), Box<dyn Error>> {
    let target = std::env::args().nth(1).unwrap_or_else(|| "riscv64gcv".to_string()).parse()?;
    let worst = run(target)?;
    println!("softmax of {ROWS}x{COLS} on {}: largest difference from the Rust loop {worst:e}", target.name());
    Ok(())
}

/// Compiles and launches the kernel for `target`, checks it, and returns the largest
/// difference from the Rust loop relative to each row's maximum.
pub fn run(target: tilec::Target) -> Result<f32, Box<dyn Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/softmax.py");
    let kernel = tilec::Kernel::from_file(path, "softmax_kernel")?
        .signature("*fp32:16, *fp32:16, i32, i32, i32, i32")?
        .constant("BLOCK_SIZE", 1024)
        .constant("num_stages", 2)
        .build(&target)?
        .threads(2);

    let input: Vec<f32> = (0..ROWS * COLS).map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0).collect();
    let mut output = vec![0f32; ROWS * COLS];
    let (rows, cols) = (ROWS as i32, COLS as i32);
    // softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols)
    kernel.launch(
        [16, 1, 1],
        &mut [(&mut output).into(), (&input).into(), cols.into(), cols.into(), rows.into(), cols.into()],
    )?;

    let mut worst = 0f32;
    for (row, got) in input.chunks(COLS).zip(output.chunks(COLS)) {
        let want = softmax(row);
        let scale = want.iter().fold(0f32, |m, &v| m.max(v));
        for (col, (&g, &w)) in got.iter().zip(&want).enumerate() {
            let difference = (g - w).abs() / scale;
            if difference.is_nan() || difference > RELATIVE_TOLERANCE {
                return Err(format!("column {col}: the kernel gives {g}, the Rust loop {w}").into());
            }
            worst = worst.max(difference);
        }
    }
    Ok(worst)
}

/// Softmax of one row, the plain way.
fn softmax(row: &[f32]) -> Vec<f32> {
    let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    let exps: Vec<f32> = row.iter().map(|&v| (v - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.iter().map(|&e| e / sum).collect()
}
