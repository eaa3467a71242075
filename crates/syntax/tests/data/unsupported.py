import triton


@triton.jit
def bad(x):
    ys = [v * 2 for v in x]
    s = f"{x}"
    f = lambda a: a + 1
    with open("f") as handle:
        pass
    try:
        pass
    except Exception:
        pass
    def inner():
        pass
    del ys
    return (n := 3)
