//! The printer's text form, checked on hand-built functions.

mod common;

use common::{control_flow, vector_add};
use tilec_ir::*;

fn check(f: &Function, expected: &str) {
    let text = print_function(f);
    assert_eq!(text, expected, "printed:\n{text}");
}

#[test]
fn vector_add_prints_like_ttir() {
    check(
        &vector_add(),
        "\
// constexprs: BLOCK_SIZE = 128
tt.func @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %n: i32) {
  %0 = tt.get_program_id x : i32
  %1 = arith.constant 128 : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : i32 -> tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.splat %n : i32 -> tensor<128xi32>
  %7 = arith.cmpi slt, %5, %6 : tensor<128xi32>
  %8 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %9 = tt.addptr %8, %5 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %10 = tt.load %9, %7 : tensor<128x!tt.ptr<f32>>
  %11 = tt.splat %y_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %12 = tt.addptr %11, %5 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %13 = tt.load %12, %7 : tensor<128x!tt.ptr<f32>>
  %14 = arith.addf %10, %13 : tensor<128xf32>
  %15 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %16 = tt.addptr %15, %5 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %16, %14, %7 : tensor<128x!tt.ptr<f32>>
  tt.return
}
",
    );
}

#[test]
fn control_flow_prints_scf_regions() {
    check(
        &control_flow(),
        "\
tt.func @loops(%n: i32, %p: !tt.ptr<f16> {tt.divisibility = 16}) {
  %0 = arith.constant dense<0.0> : tensor<16xf32>
  %1 = arith.constant 0 : i32
  %2 = arith.constant 1 : i32
  %3 = scf.for %k = %1 to %n step %2 iter_args(%acc = %0) -> (tensor<16xf32>) : i32 {
    %4 = arith.sitofp %k : i32 -> f32
    %5 = tt.splat %4 : f32 -> tensor<16xf32>
    %6 = arith.addf %acc, %5 : tensor<16xf32>
    scf.yield %6 : tensor<16xf32>
  }
  %7 = tt.reduce sum %3 {axis = 0} : tensor<16xf32> -> f32
  %8 = arith.constant 1e-7 : f32
  %9 = arith.cmpf une, %7, %8 : f32
  %10 = scf.if %9 -> (f32) {
    scf.yield %7 : f32
  } else {
    scf.yield %8 : f32
  }
  %11 = arith.truncf %10 : f32 -> f16
  tt.store %p, %11 : !tt.ptr<f16>
  %12 = scf.while (%13 = %1) : (i32) -> (i32) {
    %14 = arith.cmpi slt, %13, %n : i32
    scf.condition(%14) %13 : i32
  } do {
  ^bb0(%15: i32):
    %16 = arith.addi %15, %2 : i32
    scf.yield %16 : i32
  }
  tt.return
}
",
    );
}

#[test]
fn op_text_names_values_like_the_listing() {
    let f = control_flow();
    let names = tilec_ir::print::ValueNames::new(&f);
    let body_ops = &f.regions[f.body].ops;
    assert_eq!(tilec_ir::print::op_text(&f, &names, body_ops[4]), "%7 = tt.reduce sum %3 {axis = 0} : tensor<16xf32> -> f32");
    assert_eq!(tilec_ir::print::op_name(&f, body_ops[3]), "scf.for");
    assert_eq!(tilec_ir::print::op_name(&f, body_ops[9]), "tt.store");
}
