"""Runs Triton kernels in Triton's own interpreter (TRITON_INTERPRET=1) for `cargo xtask oracle`.

A worker: reads one JSON job per line on stdin and answers one JSON line on stdout.

Job:    {"file": PATH, "kernel": NAME, "grid": [X, Y, Z], "out": DIR,
         "args": [[NAME, KIND, VALUE], ...]}
        KIND is "array" (VALUE: a .npy path), "int", "float", "bool" or "expr" (VALUE: Python
        text evaluated with `tl` and `triton` in scope, e.g. "tl.float16").
Answer: {"ok": true} once every array argument is saved as DIR/NAME.npy after the run, or
        {"ok": false, "error": TEXT} when Triton rejects or cannot run the kernel.

No torch: array arguments are `HostTensor`s, numpy arrays with the few tensor methods the
interpreter calls on its arguments (`data_ptr`, `dtype`, `untyped_storage`, `new_empty`,
`set_`, `storage_offset`, `size`, `stride`, `copy_`).

The interpreter is used as it is except for five documented corrections (docs/oracle.md):
1. bfloat16 is a real numpy dtype (ml_dtypes), not raw uint16 bits on which the upstream
   interpreter does integer arithmetic; conversions to bfloat16 round to nearest even.
2. Programs run in tilec's launch order, x fastest, then y, then z (upstream runs x
   outermost), so atomics return the same old values as in tilec's one-thread runs.
3. Sums and prefix sums of fp16/bf16 tensors add in a pairwise tree rounded to the element
   type at every step, the order of a GPU's reduction across lanes, instead of numpy's
   sequential (bfloat16) or float32-accumulated (fp16) sums.
4. Sums and prefix sums of int1 tensors (`tl.sum(b, dtype=tl.int1)`) wrap at one bit, as
   the combine `a + b` does in compiled Triton, instead of numpy's count turned into True.
5. The value of `tl.max`/`tl.min(..., return_indices=True)` is the element at the index,
   as the (value, index) combine keeps it in compiled Triton (a `-0.0` among zeros stays),
   instead of numpy's maximum taken apart from the index.
"""

import ast
import importlib.util
import json
import os
import sys
import traceback

os.environ["TRITON_INTERPRET"] = "1"

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
import triton.runtime.interpreter as interp  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)
U16 = np.dtype(np.uint16)

# ---- correction 1: bfloat16 as ml_dtypes.bfloat16 ----

_upstream_np_dtype = interp._get_np_dtype


def _element_type(ty):
    return ty.element_ty if isinstance(ty, tl.block_type) else ty


def _np_dtype(ty):
    if _element_type(ty) == tl.bfloat16:
        return BF16
    return _upstream_np_dtype(ty)


interp._get_np_dtype = _np_dtype

_upstream_cast = interp.InterpreterBuilder.cast_impl


def _cast(self, src, dst_type):
    if src.dtype.scalar == tl.bfloat16 or dst_type.scalar == tl.bfloat16:
        # numpy's conversions (through ml_dtypes) round to nearest even
        return interp.TensorHandle(src.data.astype(_np_dtype(dst_type)), dst_type.scalar)
    return _upstream_cast(self, src, dst_type)


interp.InterpreterBuilder.cast_impl = _cast


class _MemoryWithBf16:
    """The interpreter's native memory functions, with bfloat16 moved as its 16 bits."""

    def __init__(self, native):
        self._native = native

    def __getattr__(self, name):
        return getattr(self._native, name)

    def load(self, ptrs, mask, other, dtype):
        if dtype == BF16:
            return self._native.load(ptrs, mask, other.view(U16), U16).view(BF16)
        return self._native.load(ptrs, mask, other, dtype)

    def store(self, ptrs, value, mask):
        if value.dtype == BF16:
            value = value.view(U16)
        return self._native.store(ptrs, value, mask)

    def atomic_rmw(self, op, ptrs, value, mask, sem):
        if value.dtype == BF16:
            raise NotImplementedError("the oracle does not model bfloat16 atomics")
        return self._native.atomic_rmw(op, ptrs, value, mask, sem)

    def atomic_cas(self, ptrs, cmp, value, sem):
        if value.dtype == BF16:
            raise NotImplementedError("the oracle does not model bfloat16 atomics")
        return self._native.atomic_cas(ptrs, cmp, value, sem)


interp._interpreter = _MemoryWithBf16(interp._interpreter)

_upstream_dot = interp.InterpreterBuilder.create_dot


def _dot(self, a, b, d, input_precision, max_num_imprecise_acc):
    if a.data.dtype == BF16 or b.data.dtype == BF16:
        # products of bfloat16 values are exact in float32, accumulated in d's type
        a = interp.TensorHandle(a.data.astype(np.float32), tl.float32)
        b = interp.TensorHandle(b.data.astype(np.float32), tl.float32)
    return _upstream_dot(self, a, b, d, input_precision, max_num_imprecise_acc)


interp.InterpreterBuilder.create_dot = _dot

# ---- correction 2: tilec's launch order ----

_launch = {"next": 0}
_upstream_grid_dim = interp.InterpreterBuilder.set_grid_dim
_upstream_grid_idx = interp.InterpreterBuilder.set_grid_idx


def _set_grid_dim(self, nx, ny, nz):
    _launch["next"] = 0
    _upstream_grid_dim(self, nx, ny, nz)


def _set_grid_idx(self, x, y, z):
    # The upstream loop visits every program once (x outermost); its k-th visit runs the
    # k-th program of tilec's order instead.
    nx, ny, _ = self.grid_dim
    k = _launch["next"]
    _launch["next"] = k + 1
    _upstream_grid_idx(self, k % nx, (k // nx) % ny, k // (nx * ny))


interp.InterpreterBuilder.set_grid_dim = _set_grid_dim
interp.InterpreterBuilder.set_grid_idx = _set_grid_idx

# ---- corrections 3 and 4: 16-bit float sums in a tree, int1 sums at one bit ----

NARROW_FLOATS = (np.dtype(np.float16), BF16)


def _tree_sum(data, axis):
    """Pairwise sum along `axis`, rounding every addition to the element type."""
    data = np.moveaxis(data, axis, -1)
    while data.shape[-1] > 1:
        if data.shape[-1] % 2:
            pad = np.zeros(data.shape[:-1] + (1, ), dtype=data.dtype)
            data = np.concatenate([data, pad], axis=-1)
        data = (data[..., 0::2] + data[..., 1::2]).astype(data.dtype)
    return data[..., 0]


def _tree_prefix_sum(data, axis):
    """Inclusive prefix sums along `axis` by doubling steps (Hillis-Steele), rounding every
    addition to the element type."""
    data = np.moveaxis(np.array(data), axis, -1)
    step = 1
    while step < data.shape[-1]:
        shifted = data[..., :-step]
        data = np.concatenate([data[..., :step], (data[..., step:] + shifted).astype(data.dtype)], axis=-1)
        step *= 2
    return np.moveaxis(data, -1, axis)


_upstream_sum = interp.ReduceOps.sum


def _sum(self, input):
    data = input.handle.data
    if data.dtype == np.bool_:
        # correction 4: the combine `a + b` of int1 wraps at one bit (the parity)
        result = np.sum(data.astype(np.int64), axis=self.axis, keepdims=self.keep_dims) & 1
        return self.to_tensor(result.astype(np.bool_), input.dtype)
    if data.dtype not in NARROW_FLOATS:
        return _upstream_sum(self, input)
    if self.axis is None:
        result = _tree_sum(data.reshape(-1), 0)
    else:
        result = _tree_sum(data, self.axis)
        if self.keep_dims:
            result = np.expand_dims(result, self.axis)
    return self.to_tensor(result, input.dtype)


interp.ReduceOps.sum = _sum

_upstream_cumsum = interp.ScanOps.cumsum


def _cumsum(self, input):
    data = input.handle.data
    if data.dtype == np.bool_:
        # correction 4: int1 prefix sums wrap at one bit
        result = np.cumsum(data.astype(np.int64), axis=self.axis) & 1
        return [self.to_tensor(result.astype(np.bool_), dtype=input.dtype)]
    if data.dtype not in NARROW_FLOATS:
        return _upstream_cumsum(self, input)
    return [self.to_tensor(_tree_prefix_sum(data, self.axis), dtype=input.dtype)]


interp.ScanOps.cumsum = _cumsum

# ---- correction 5: the value of a reduction with indices is the element at the index ----

_upstream_min_max = interp.ReduceOps.min_max


def _min_max(self, input, val_reduce_op, idx_reduce_op=None):
    result = _upstream_min_max(self, input, val_reduce_op, idx_reduce_op)
    if val_reduce_op is None or idx_reduce_op is None:
        return result
    val, idx = result
    data = (input[0] if isinstance(input, tuple) else input).handle.data
    index = np.asarray(idx.handle.data).astype(np.int64)
    if self.axis is None:
        kept = data.reshape(-1)[index.reshape(-1)]
    else:
        axis = self.axis % data.ndim
        reduced = tuple(d for k, d in enumerate(data.shape) if k != axis)
        kept = np.take_along_axis(data, np.expand_dims(index.reshape(reduced), axis), axis)
    # a scalar result as the numpy scalar numpy's reductions give (the interpreter makes a
    # scalar tensor of that, a block of an array)
    kept = kept.reshape(np.shape(val.handle.data)) if val.type.is_block() else kept.reshape(-1)[0]
    return self.to_tensor(kept, val.dtype), idx


interp.ReduceOps.min_max = _min_max

# ---- arguments ----


class _Storage:

    def __init__(self, array):
        self.array = array

    def data_ptr(self):
        return self.array.ctypes.data

    def cpu(self):
        return self

    def copy_(self, other):
        # the interpreter worked in place on the same memory
        assert other.data_ptr() == self.data_ptr()


class _DtypeName:
    """What `tensor.dtype` looks like to Triton's type mangling (`str(dtype)`)."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


class HostTensor:
    """A numpy array passed where Triton expects a torch tensor."""

    def __init__(self, array):
        self.array = np.ascontiguousarray(array)

    @property
    def dtype(self):
        return _DtypeName("bfloat16") if self.array.dtype == BF16 else self.array.dtype

    def data_ptr(self):
        return self.array.ctypes.data

    def untyped_storage(self):
        return _Storage(self.array)

    def new_empty(self, *shape, **kwargs):
        # `_to_cpu` makes a host copy with `new_empty` + `set_`: the array already is one
        return self

    def set_(self, storage, offset, size, stride):
        assert storage.data_ptr() == self.data_ptr() and offset == 0

    def storage_offset(self):
        return 0

    def size(self):
        return self.array.shape

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def copy_(self, other):
        assert other.data_ptr() == self.data_ptr()


def load_npy(path):
    array = np.load(path)
    if array.dtype == np.dtype("V2"):
        # tilec writes bfloat16 as a 2-byte void type, as numpy does without ml_dtypes
        array = array.view(BF16)
    return array


def save_npy(path, array):
    if array.dtype == BF16:
        array = array.view(np.dtype("V2"))
    np.save(path, array)


# ---- kernels ----


def _is_jit(decorator):
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr == "jit"
    return isinstance(target, ast.Name) and target.id == "jit"


def _is_named(node, name):
    """Whether `node` is `NAME`, `m.NAME`, or a call of either."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr == name
    return isinstance(target, ast.Name) and target.id == name


def _dotted_root(node):
    """The first name of a dotted name (`tl.math.rsqrt` -> `tl`), or None."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _triton_import(node):
    if not isinstance(node, (ast.Import, ast.ImportFrom)):
        return False
    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    return all(n.split(".")[0] in ("triton", "math") for n in names)


def kernel_module_source(source):
    """`source` as tilec's front end reads a file: its imports of `triton` (and `math`, also
    in the body of a top-level `try:`), its `NAME = tl.constexpr(...)` globals and globals
    bound to a dotted name of what is kept (`rsqrt = libdevice.rsqrt`), and its
    `@triton.jit`, `@triton.constexpr_function` and `@tl.constexpr` functions. Host code is
    blanked out, and so is `@triton.autotune` (its configs arrive as constexpr arguments;
    `@triton.heuristics` stays and computes its parameters as in Triton); line numbers
    stay."""
    lines = source.splitlines()
    kept = set()

    def blank(node):
        for i in range(node.lineno - 1, node.end_lineno):
            lines[i] = ""

    def bound(node):
        for a in node.names:
            kept.add((a.asname or a.name).split(".")[0])

    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if _triton_import(node):
                bound(node)
            else:
                blank(node)
        elif isinstance(node, ast.Try) and node.body and all(_triton_import(s) for s in node.body):
            for s in node.body:
                bound(s)
        elif isinstance(node, ast.FunctionDef) and any(_is_jit(d) for d in node.decorator_list):
            kept.add(node.name)
            for decorator in node.decorator_list:
                if not (_is_jit(decorator) or _is_named(decorator, "heuristics")):
                    blank(decorator)
        elif isinstance(node, ast.FunctionDef) and any(
            _is_named(d, "constexpr_function") or _is_named(d, "constexpr") for d in node.decorator_list
        ):
            kept.add(node.name)
        elif isinstance(node, ast.Assign) and _is_named(node.value, "constexpr"):
            kept.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Assign) and _dotted_root(node.value) in kept:
            kept.update(t.id for t in node.targets if isinstance(t, ast.Name))
        else:
            blank(node)
    return "\n".join(lines) + "\n"


_loaded = {"count": 0}


def load_kernel(path, name, work_dir):
    with open(path) as f:
        source = f.read()
    filtered = os.path.join(work_dir, "kernel_for_triton.py")
    with open(filtered, "w") as f:
        f.write(kernel_module_source(source))
    _loaded["count"] += 1
    module_name = f"tilec_oracle_kernel_{_loaded['count']}"
    spec = importlib.util.spec_from_file_location(module_name, filtered)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = getattr(module, name, None)
    if kernel is None:
        raise LookupError(f"no @triton.jit function `{name}` in {path}")
    return kernel


def argument(kind, value):
    if kind == "array":
        return HostTensor(load_npy(value))
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "bool":
        return value == "True"
    if kind == "expr":
        return eval(value, {"tl": tl, "triton": triton})
    raise ValueError(f"unknown argument kind `{kind}`")


def run_job(job):
    out = job["out"]
    os.makedirs(out, exist_ok=True)
    kernel = load_kernel(job["file"], job["kernel"], out)
    args = {name: argument(kind, value) for name, kind, value in job["args"]}
    kernel[tuple(job["grid"])](**args)
    for name, value in args.items():
        if isinstance(value, HostTensor):
            save_npy(os.path.join(out, f"{name}.npy"), value.array)


def error_text(error):
    # the interpreter wraps the real error; its message is the useful part
    cause = error.__cause__ or error
    lines = [f"{type(cause).__name__}: {cause}"]
    frames = [f for f in traceback.extract_tb(cause.__traceback__) if "kernel_for_triton" in f.filename]
    if frames:
        lines.append(f"at kernel line {frames[-1].lineno}: {frames[-1].line}")
    return "\n".join(lines)


def main():
    np.seterr(all="ignore")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            run_job(json.loads(line))
            answer = {"ok": True}
        except Exception as error:  # every failure is an answer, the worker goes on
            answer = {"ok": False, "error": error_text(error)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
