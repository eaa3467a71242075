# tilec: -k softmax_kernel -s "*fp32:16, *fp32:16, i32:16, i32:16, i32:16" -c BLOCK_SIZE=1024
# tilec-run: --grid 1024 output_ptr=zeros:fp32:1024x1024 input_ptr=rand:fp32:1024x1024 input_row_stride=1024 output_row_stride=1024 n_cols=1024 BLOCK_SIZE=1024
# Benchmark: fused softmax (Triton tutorial 02), one row per program.
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    mask = col_offsets < n_cols
    row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    output_ptrs = output_row_start_ptr + col_offsets
    tl.store(output_ptrs, softmax_output, mask=mask)
