//! The Tile IR reader: texts in the printer's form parse to functions that print the same
//! text (forms no fixture prints included), and malformed texts give precise diagnostics.

use tilec_ir::{parse_function, print_function, verify};

/// Parses `text`, checks the function verifies and prints back to `text`.
fn round_trip(text: &str) {
    let f = parse_function(text).unwrap_or_else(|d| panic!("{d}\n{text}"));
    verify(&f).unwrap_or_else(|e| panic!("{}\n{text}", e[0]));
    assert_eq!(print_function(&f), text);
}

/// Ops and forms no fixture prints.
const RARE_OPS: &str = r#"// constexprs: BLOCK = 16, NAME = 'a, b', FLAG = True
tt.func @k(%p: !tt.ptr<f32> {tt.divisibility = 16}, %q: !tt.ptr<i64>, %n: i32, %u: ui32) {
  %0 = tt.make_range {start = 0, end = 16} : tensor<16xi32>
  %1 = tt.max_constancy %0 [4] : tensor<16xi32>
  %2 = tt.reshape %1 : tensor<16xi32> -> tensor<4x4xi32>
  %3 = tt.ptr_to_int %p : !tt.ptr<f32> -> i64
  %4 = tt.int_to_ptr %3 : i64 -> !tt.ptr<f32>
  %5 = tt.bitcast %4 : !tt.ptr<f32> -> !tt.ptr<i32>
  %6 = arith.constant dense<true> : tensor<16xi1>
  %7 = arith.constant nan : f32
  %8 = arith.constant -inf : f32
  %9 = arith.constant 1e-7 : f32
  %10 = arith.remf %7, %8 : f32
  %11 = arith.cmpf une, %10, %9 : f32
  %12 = arith.cmpi ult, %u, %u : ui32
  %13 = arith.divui %u, %u : ui32
  %14 = arith.uitofp %13 : ui32 -> f64
  %15 = arith.fptoui %14 : f64 -> ui32
  tt.print "x = \"\n\t" {hex = true} %n, %15 : i32, ui32
  tt.print "no args"
  gpu.barrier
  tt.assert %12, "unsigned \u{1b}" : i1
  %16 = tt.atomic_rmw xchg, relaxed, %q, %3 : !tt.ptr<i64>
  %17 = scf.if %11 -> (i32) {
    %18 = arith.constant -1 : i32
    scf.yield %18 : i32
  } else {
    scf.yield %n : i32
  }
  %19 = tt.load %5 : !tt.ptr<i32>
  tt.store %5, %19 : !tt.ptr<i32>
  tt.return
}
"#;

/// `scf.while`, custom scans and reductions.
const LOOPS: &str = r#"tt.func @k(%p: !tt.ptr<i32>, %n: i32) {
  %0 = arith.constant 0 : i32
  %1, %2 = scf.while (%a = %0, %b = %n) : (i32, i32) -> (i32, i32) {
    %3 = arith.cmpi slt, %a, %b : i32
    scf.condition(%3) %a, %b : i32, i32
  } do {
  ^bb0(%a_1: i32, %b_1: i32):
    %4 = arith.constant 1 : i32
    %5 = arith.addi %a_1, %4 : i32
    scf.yield %5, %b_1 : i32, i32
  }
  %6 = tt.make_range {start = 0, end = 8} : tensor<8xi32>
  %7 = tt.scan %6 {axis = 0, reverse = true} : tensor<8xi32> combine(%x: i32, %y: i32) {
    %8 = arith.maxsi %x, %y : i32
    scf.yield %8 : i32
  }
  %9 = tt.reduce %7 {axis = 0} : tensor<8xi32> -> i32 combine(%x_1: i32, %y_1: i32) {
    %10 = arith.addi %x_1, %y_1 : i32
    scf.yield %10 : i32
  }
  %11 = arith.addi %9, %1 : i32
  tt.store %p, %11 : !tt.ptr<i32>
  tt.return
}
"#;

#[test]
fn rarely_printed_ops_round_trip() {
    round_trip(RARE_OPS);
}

#[test]
fn loops_and_combine_regions_round_trip() {
    round_trip(LOOPS);
}

/// Parses `text` and checks the error's code, message and the text its span covers.
fn check_error(text: &str, code: &str, message: &str, at: &str) {
    let d = parse_function(text).expect_err("the text does not parse");
    assert_eq!((d.code.to_string().as_str(), d.message.as_str()), (code, message));
    let span = d.span.expect("a span");
    assert_eq!(&text[span.range()], at);
}

#[test]
fn malformed_texts_are_diagnosed_at_the_token() {
    let header = "tt.func @k(%n: i32) {\n";
    let cases: &[(&str, &str, &str, &str)] = &[
        ("  %0 = arith.addi %n, %n i32\n", "E0341", "expected `:`, found `i32`", "i32"),
        (
            "  %0 = arith.frobnicate %n : i32\n",
            "E0341",
            "expected an op name, found `arith.frobnicate`",
            "arith.frobnicate",
        ),
        ("  %0 = arith.addi %n, %m : i32\n", "E0342", "`%m` is not defined here", "%m"),
        ("  %n = arith.addi %n, %n : i32\n", "E0342", "`%n` is already defined", "%n"),
        ("  %0 = arith.addi %n, %n : i8\n", "E0343", "the text says i8 but the value has type i32", "i8"),
        (
            "  %0 = arith.addf %n, %n : i32\n",
            "E0343",
            "`arith.addf` does not match the operand types: the op is spelled `arith.addi`",
            "arith.addf",
        ),
        (
            "  %0 = arith.cmpi ult, %n, %n : i32\n",
            "E0343",
            "`arith.cmpi ult` does not match the operand types: the op is spelled `arith.cmpi slt`",
            "arith.cmpi ult",
        ),
        (
            "  %0 = arith.constant 1.5 : tensor<4xf32>\n",
            "E0343",
            "a tensor constant is written `dense<...>`, a scalar one is not",
            "%0 = arith.constant 1.5 : tensor<4xf32>",
        ),
        (
            "  %0, %1 = arith.addi %n, %n : i32\n",
            "E0341",
            "the op has 1 results but 2 names are given",
            "%0, %1 = arith.addi %n, %n : i32",
        ),
        (
            "  %0 = arith.addi %n, %n : i32\n",
            "E0341",
            "expected `tt.return` ending the kernel, found the end of the text",
            "",
        ),
    ];
    for &(body, code, message, at) in cases {
        let text = if message.contains("end of the text") {
            format!("{header}{body}")
        } else {
            format!("{header}{body}  tt.return\n}}\n")
        };
        check_error(&text, code, message, at);
    }
}

/// Every truncation of a valid text, and the text with any one character removed, gives a
/// diagnostic (or, rarely, another valid function), never a panic.
#[test]
fn damaged_texts_never_panic() {
    let mut rejected = 0;
    for text in [RARE_OPS, LOOPS] {
        let boundaries: Vec<usize> = (0..text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        for &i in &boundaries {
            rejected += usize::from(parse_function(&text[..i]).is_err());
            let next = text[i..].chars().next().map_or(0, char::len_utf8);
            let damaged = format!("{}{}", &text[..i], &text[i + next..]);
            if let Err(d) = parse_function(&damaged) {
                assert!(d.span.is_some_and(|s| s.end as usize <= damaged.len()), "{d:?}");
                rejected += 1;
            }
        }
    }
    assert!(rejected > 2000, "{rejected}");
}
