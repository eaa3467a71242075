//! `tilec_ir::fp8`'s decoding of every pattern of the four fp8 formats ml_dtypes has, against
//! ml_dtypes' values (`fp8_ml_dtypes.tsv` says how they were made). `fp8e4b15` has no
//! ml_dtypes type: its patterns are those of `fp8e4nv` with bias 15, every one finite
//! (Triton's `convert_fp8e4b15_to_float16`), which the unit tests of `fp8.rs` check.

use tilec_ir::ScalarType;

#[test]
fn decoding_matches_ml_dtypes() {
    let table = include_str!("fp8_ml_dtypes.tsv");
    let formats = [ScalarType::F8E4NV, ScalarType::F8E5, ScalarType::F8E4B8, ScalarType::F8E5B16];
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<u32> = line.split('\t').map(|f| u32::from_str_radix(f, 16).unwrap()).collect();
        let pattern = fields[0] as u8;
        for (format, &want) in formats.iter().zip(&fields[1..]) {
            let want = f32::from_bits(want);
            let got = format.fp8_format().unwrap().decode(pattern);
            let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
            assert!(same, "{} {pattern:#04x}: got {got:e}, ml_dtypes {want:e}", format.name());
        }
        rows += 1;
    }
    assert_eq!(rows, 256);
}

#[test]
fn e4b15_is_e4nv_with_bias_15() {
    let e4nv = ScalarType::F8E4NV.fp8_format().unwrap();
    let e4b15 = ScalarType::F8E4B15.fp8_format().unwrap();
    for pattern in 0..=255u8 {
        let want = if pattern & 0x7f == 0x7f { 1.875 } else { e4nv.decode(pattern).abs() * 2f32.powi(-8) };
        let want = if pattern & 0x80 != 0 { -want } else { want };
        assert_eq!(e4b15.decode(pattern).to_bits(), want.to_bits(), "{pattern:#04x}");
    }
}
