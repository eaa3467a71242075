//! `cargo xtask fit-log`: fits the coefficients of the inline fp32 `log`
//! (`crates/codegen/src/rvv/log.rs`) and measures the result.
//!
//! With `m ∈ [√½, √2)`, `f = m − 1`, `s = f/(2 + f)` and `z = s²`, `log(m) = 2s + s·R(z)`
//! exactly when `R(z) = 2·atanh(s)/s − 2 = Σⱼ 2zʲ/(2j + 1)`, over `z ∈ [0, z_max]`,
//! `z_max = (3 − 2√2)²`. `R` is approximated by `z·(c1 + z·(c2 + z·(c3 + z·c4)))`. The error
//! of `log(m)` that an error `δ` of `R` makes is `s·δ`, relative `δ/(2 + R)`: the fit
//! minimizes the largest `|δ|/(2 + R)` (the relative error of `log(m)`, not of `R`, which
//! would overweight small `z`) by iteratively reweighted least squares (Lawson's algorithm)
//! on a Chebyshev grid of `z`, in fp64. The coefficients are then rounded to fp32 one at a
//! time from `c1` up, the remaining ones re-fitted after each rounding.
//!
//! The check runs a model of the emitted steps (fp32 arithmetic, the same fused steps) on
//! every positive finite fp32, subnormals included, against fp64 `ln`, and prints the
//! largest error in ULP of the result and where it occurs. It prints the same for the
//! constants in use (`--bits` to check given ones instead of fitting).

use clap::Args;

use crate::Result;

#[derive(Args)]
pub struct Options {
    /// Check these four fp32 coefficients (hex bits, `c1` first) instead of fitting.
    #[arg(long, num_args = 4, value_parser = parse_bits)]
    bits: Option<Vec<u32>>,
}

fn parse_bits(text: &str) -> std::result::Result<u32, String> {
    u32::from_str_radix(text.trim_start_matches("0x").replace('_', "").as_str(), 16).map_err(|e| e.to_string())
}

/// Grid size and Lawson iterations: enough that more changes no rounded coefficient.
const GRID: usize = 4000;
const ITERATIONS: usize = 400;

pub fn run(options: &Options) -> Result<()> {
    let bits = match &options.bits {
        Some(bits) => [bits[0], bits[1], bits[2], bits[3]],
        None => {
            let bits = fit();
            let z_max = z_max();
            let grid = grid(z_max);
            let c = bits.map(|b| f64::from(f32::from_bits(b)));
            let max = grid.iter().map(|&z| (horner(&c, z) - r_exact(z)).abs() / (2.0 + r_exact(z))).fold(0.0, f64::max);
            println!(
                "fitted (fp32): relative error of log(m) from R alone {:.2e} ({:.4}·2⁻²⁴)",
                max,
                max * 2f64.powi(24)
            );
            bits
        }
    };
    println!(
        "coefficients: [{}]",
        bits.iter().map(|b| format!("0x{:04x}_{:04x}", b >> 16, b & 0xffff)).collect::<Vec<_>>().join(", ")
    );
    let (ulp, at) = max_ulp_error(bits);
    println!("model of the steps, every positive finite fp32: {ulp:.4} ULP at most (at {at:e})");
    Ok(())
}

fn z_max() -> f64 {
    let s = 3.0 - 2.0 * std::f64::consts::SQRT_2;
    s * s
}

/// `Σⱼ 2zʲ/(2j + 1)` to fp64 precision (`z ≤ 0.03`: 16 terms).
fn r_exact(z: f64) -> f64 {
    (1..=16).rev().fold(0.0, |acc, j| (acc + 2.0 / f64::from(2 * j + 1)) * z)
}

/// `z·(c1 + z·(c2 + …))`.
fn horner(c: &[f64], z: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &cj| (acc + cj) * z)
}

/// Chebyshev points of `[0, z_max]` (endpoints included).
fn grid(z_max: f64) -> Vec<f64> {
    (0..GRID).map(|i| z_max * 0.5 * (1.0 - (std::f64::consts::PI * i as f64 / (GRID - 1) as f64).cos())).collect()
}

/// The four coefficients as fp32 bits: the minimax fit, rounded one at a time with the
/// later ones re-fitted.
fn fit() -> [u32; 4] {
    let grid = grid(z_max());
    let mut fixed: Vec<f64> = Vec::new();
    let mut bits = [0u32; 4];
    for (i, slot) in bits.iter_mut().enumerate() {
        let free = lawson(&grid, &fixed);
        let rounded = free[0] as f32;
        println!("c{}: {:.17e} → fp32 {:e}", i + 1, free[0], rounded);
        *slot = rounded.to_bits();
        fixed.push(f64::from(rounded));
    }
    bits
}

/// Minimax fit of the coefficients after `fixed` (the `fixed.len()` lowest degrees), for
/// the relative error of `log(m)`: minimize `max |R − R̂|/(2 + R)` by Lawson's iteration.
fn lawson(grid: &[f64], fixed: &[f64]) -> Vec<f64> {
    let free = 4 - fixed.len();
    let z_max = z_max();
    // Basis (z/z_max)^(j+1) for the free degrees j = fixed.len() .. 3, scaled for conditioning.
    let rows: Vec<(Vec<f64>, f64, f64)> = grid
        .iter()
        .map(|&z| {
            let t = z / z_max;
            let basis = (0..free).map(|j| t.powi((fixed.len() + j + 1) as i32)).collect();
            let exact = r_exact(z);
            let known = fixed.iter().enumerate().map(|(j, c)| c * z.powi(j as i32 + 1)).sum::<f64>();
            (basis, exact - known, 1.0 / (2.0 + exact))
        })
        .collect();
    let mut weights = vec![1.0 / grid.len() as f64; grid.len()];
    let mut scaled = vec![0.0; free];
    for _ in 0..ITERATIONS {
        let mut a = vec![vec![0.0; free]; free];
        let mut b = vec![0.0; free];
        for ((basis, target, scale), w) in rows.iter().zip(&weights) {
            let w = w * scale * scale;
            for r in 0..free {
                b[r] += w * basis[r] * target;
                for c in 0..free {
                    a[r][c] += w * basis[r] * basis[c];
                }
            }
        }
        scaled = solve(a, b);
        let errors: Vec<f64> = rows
            .iter()
            .map(|(basis, target, scale)| {
                let fit: f64 = basis.iter().zip(&scaled).map(|(x, c)| x * c).sum();
                ((target - fit) * scale).abs()
            })
            .collect();
        let total: f64 = weights.iter().zip(&errors).map(|(w, e)| w * e).sum();
        if total == 0.0 {
            break;
        }
        for (w, e) in weights.iter_mut().zip(&errors) {
            *w *= e / total;
        }
    }
    (0..free).map(|j| scaled[j] / z_max.powi((fixed.len() + j + 1) as i32)).collect()
}

/// Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let pivot_row = a[col].clone();
        for row in col + 1..n {
            let factor = a[row][col] / pivot_row[col];
            for (x, p) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                *x -= factor * p;
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    x
}

/// The emitted steps of `log_f32` for one positive finite lane, in fp32 (constants as in
/// `rvv/log.rs`).
fn log_steps(x_bits: u32, c: [f32; 4]) -> f32 {
    const OFFSET: i32 = 0x3f35_04f3;
    const FRACTION: i32 = 0x007f_ffff;
    let ln2_hi = f32::from_bits(0x3f31_7180);
    let ln2_lo = f32::from_bits(0x3717_f7d1);
    let mut x = f32::from_bits(x_bits);
    let subnormal = (x_bits as i32) <= FRACTION;
    if subnormal {
        x *= f32::from_bits(0x4b00_0000);
    }
    let t = (x.to_bits() as i32).wrapping_sub(OFFSET);
    let k = (t >> 23) - if subnormal { 23 } else { 0 };
    let k = k as f32;
    let m = f32::from_bits(((t & FRACTION) + OFFSET) as u32);
    let f = m - 1.0;
    let s = f / (m + 1.0);
    let z = s * s;
    let mut p = z.mul_add(c[3], c[2]);
    p = p * z + c[1];
    p = p * z + c[0];
    p *= z;
    let half_f2 = f * 0.5 * f;
    p = (p + half_f2) * s;
    p = k.mul_add(ln2_lo, p);
    k.mul_add(ln2_hi, -((half_f2 - p) - f))
}

/// The largest error in ULP of the result (`2^(e − 23)` for a result in `[2ᵉ, 2ᵉ⁺¹)`) over
/// every positive finite fp32, and the input where it occurs; split across the host's cores.
fn max_ulp_error(bits: [u32; 4]) -> (f64, f32) {
    let c = bits.map(f32::from_bits);
    let last = 0x7f7f_ffffu32;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
    let chunk = last / threads + 1;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                scope.spawn(move || {
                    let (lo, hi) = (1 + i * chunk, (1 + (i + 1) * chunk).min(last + 1));
                    let mut worst = (0.0f64, 0.0f32);
                    for b in lo..hi {
                        let x = f32::from_bits(b);
                        let got = f64::from(log_steps(b, c));
                        let want = f64::from(x).ln();
                        let err = if want == 0.0 {
                            if got == 0.0 {
                                0.0
                            } else {
                                f64::INFINITY
                            }
                        } else {
                            let e = ((want.abs().to_bits() >> 52) as i64 - 1023 - 23) as i32;
                            (got - want).abs() / 2f64.powi(e)
                        };
                        if err > worst.0 {
                            worst = (err, x);
                        }
                    }
                    worst
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or((f64::INFINITY, f32::NAN))).fold((0.0, 0.0), |a, b| {
            if b.0 > a.0 {
                b
            } else {
                a
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The series is `2·atanh(s)/s − 2` (fp64 rounding of the closed form at `z_max`).
    #[test]
    fn target_is_the_atanh_series() {
        let s = 3.0 - 2.0 * std::f64::consts::SQRT_2;
        let closed = 2.0 * s.atanh() / s - 2.0;
        assert!((r_exact(s * s) - closed).abs() < 1e-15, "{} vs {closed}", r_exact(s * s));
        assert_eq!(r_exact(0.0), 0.0);
    }

    #[test]
    fn solver_solves_a_pivoting_system() {
        let x = solve(vec![vec![0.0, 2.0], vec![3.0, 1.0]], vec![4.0, 5.0]);
        assert_eq!(x, vec![1.0, 2.0]);
    }

    /// Exact points of the model: `log(1) = 0`, `log(2ᵏ)` is `k·ln2` rounded (one rounding of
    /// `k·ln2_hi + k·ln2_lo`), the smallest subnormal's within 1 ULP.
    #[test]
    fn model_of_the_steps_is_exact_at_powers_of_two() {
        let c = [0x3f2a_aaaa, 0x3ecc_ce14, 0x3e91_e989, 0x3e78_b0e9].map(f32::from_bits);
        assert_eq!(log_steps(1f32.to_bits(), c).to_bits(), 0);
        assert_eq!(log_steps(2f32.to_bits(), c), std::f32::consts::LN_2);
        assert_eq!(log_steps(0.5f32.to_bits(), c), -std::f32::consts::LN_2);
        let tiny = log_steps(1, c);
        assert!((f64::from(tiny) - f64::from(f32::from_bits(1)).ln()).abs() <= 2f64.powi(6 - 23), "{tiny}");
    }
}
