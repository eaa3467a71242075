# tilec: -k grouped_matmul_kernel -s "*i64:16, *i64:16, *i64:16, *i32:16, *i32:16, i32" -c NUM_SM=8 -c BLOCK_SIZE_M=64 -c BLOCK_SIZE_N=64 -c BLOCK_SIZE_K=32
# tilec-run: --grid 8 group_a_ptrs=ptrs:rand:fp16:256x256:1,rand:fp16:256x256:2,rand:fp16:128x128:3,rand:fp16:128x128:4 group_b_ptrs=ptrs:rand:fp16:256x256:5,rand:fp16:256x256:6,rand:fp16:128x128:7,rand:fp16:128x128:8 group_c_ptrs=ptrs:zeros:fp16:256x256,zeros:fp16:256x256,zeros:fp16:128x128,zeros:fp16:128x128 group_gemm_sizes=@sizes.npy g_lds=@lds.npy group_size=4 NUM_SM=8 BLOCK_SIZE_M=64 BLOCK_SIZE_N=64 BLOCK_SIZE_K=32
# (sizes.npy: int32 [256, 256, 256, 256, 256, 256, 128, 128, 128, 128, 128, 128]; lds.npy the same)
# Benchmark: the grouped GEMM of Triton's tutorial 08 (python/tutorials/08-grouped-gemm.py of
# triton-lang/triton), written here after it: a persistent kernel of NUM_SM programs walks the
# tiles of every GEMM of the group in turn (tile `pid`, `pid + NUM_SM`, ...); the matrices are
# reached through tables of addresses (int64, converted to fp16 pointers), their sizes and
# leading dimensions through int32 tables of three entries per GEMM; fp16 in and out, an fp32
# accumulator. The tutorial's K loop is unmasked: K is a multiple of BLOCK_SIZE_K.
import triton
import triton.language as tl


@triton.jit
def grouped_matmul_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,
                          NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                          BLOCK_SIZE_K: tl.constexpr):
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        # This GEMM's tiles are [last_problem_end, last_problem_end + num_tiles).
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
        num_tiles = num_m_tiles * num_n_tiles
        while (tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles):
            k = gk
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile_idx_in_gemm = tile_idx - last_problem_end
            tile_m_idx = tile_idx_in_gemm // num_n_tiles
            tile_n_idx = tile_idx_in_gemm % num_n_tiles

            offs_am = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            offs_k = tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + offs_am[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
                tl.multiple_of(a_ptrs, [16, 16])
                tl.multiple_of(b_ptrs, [16, 16])
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                accumulator += tl.dot(a, b)
                a_ptrs += BLOCK_SIZE_K
                b_ptrs += BLOCK_SIZE_K * ldb
            c = accumulator.to(tl.float16)

            offs_cm = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + ldc * offs_cm[:, None] + offs_cn[None, :]
            tl.store(c_ptrs, c)

            # The next tile of this program.
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles
