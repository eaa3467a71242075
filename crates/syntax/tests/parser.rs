//! Parser tests: statements and expressions through the printed AST, decorators, docstrings,
//! unsupported constructs and syntax errors.

use tilec_syntax::ast::*;
use tilec_syntax::{parse, print_module};

/// Wraps `statements` (written at column 0) in a jit function.
fn kernel(statements: &str) -> String {
    let body: String = statements.lines().map(|l| format!("    {l}\n")).collect();
    format!("@triton.jit\ndef k():\n{body}")
}

/// Removes ` @start..end` span suffixes so that expectations stay readable.
fn strip_spans(text: &str) -> String {
    text.lines()
        .map(|line| {
            line.split(' ')
                .filter(|word| {
                    !(word.starts_with('@')
                        && word[1..].split("..").all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses `statements` as a kernel body and compares the printed body (without spans and
/// without the body's own indentation) with `expected`.
fn check_body(statements: &str, expected: &str) {
    let module = parse(&kernel(statements)).unwrap_or_else(|d| panic!("{statements:?} failed: {d:?}"));
    let printed = strip_spans(&print_module(&module));
    let body: Vec<&str> = printed
        .lines()
        .skip_while(|l| l.trim() != "body")
        .skip(1)
        .map(|l| l.strip_prefix("      ").unwrap_or(l))
        .collect();
    let expected: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).map(str::trim_end).collect();
    let expected = dedent(&expected);
    assert_eq!(body.join("\n"), expected, "body of {statements:?}");
}

fn dedent(lines: &[&str]) -> String {
    let margin =
        lines.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    lines.iter().map(|l| if l.len() >= margin { &l[margin..] } else { l.trim() }).collect::<Vec<_>>().join("\n")
}

fn only_function(source: &str) -> FunctionDef {
    let mut module = parse(source).unwrap_or_else(|d| panic!("{source:?} failed: {d:?}"));
    assert_eq!(module.functions.len(), 1);
    module.functions.remove(0)
}

/// `source` fails with the given diagnostic codes; returns the diagnostics' messages/labels.
fn check_error(source: &str, codes: &[&str]) -> Vec<String> {
    match parse(source) {
        Ok(m) => panic!("expected {codes:?} for {source:?}, got {}", print_module(&m)),
        Err(diagnostics) => {
            let got: Vec<String> = diagnostics.iter().map(|d| d.code.to_string()).collect();
            assert_eq!(got, codes, "{source:?}: {diagnostics:?}");
            assert!(diagnostics.iter().all(|d| d.span.is_some()), "every syntax error has a span");
            diagnostics.iter().map(|d| format!("{}: {}", d.message, d.label.clone().unwrap_or_default())).collect()
        }
    }
}

#[test]
fn assignments() {
    check_body(
        "a = b = c\nx, y = y, x\n(p, q), r = t\nz[0] = w.v = 1",
        r#"
        Assign
          target Name a
          target Name b
          value Name c
        Assign
          target Tuple
            item Name x
            item Name y
          value Tuple
            item Name y
            item Name x
        Assign
          target Tuple
            item Tuple
              item Name p
              item Name q
            item Name r
          value Name t
        Assign
          target Subscript
            value Name z
            index Int 0
          target Attribute .v
            value Name w
          value Int 1
        "#,
    );
    check_body(
        "a += 1\nb **= 2\nc //= d\nx: tl.constexpr = 3\ny: int",
        r#"
        AugAssign +=
          target Name a
          value Int 1
        AugAssign **=
          target Name b
          value Int 2
        AugAssign //=
          target Name c
          value Name d
        AnnAssign
          target Name x
          annotation Attribute .constexpr
            value Name tl
          value Int 3
        AnnAssign
          target Name y
          annotation Name int
        "#,
    );
}

#[test]
fn control_flow() {
    check_body(
        "if a:\n    pass\nelif b:\n    break\nelif c: continue\nelse:\n    return",
        r#"
        If
          test Name a
          body
            Pass
          orelse
            If
              test Name b
              body
                Break
              orelse
                If
                  test Name c
                  body
                    Continue
                  orelse
                    Return
        "#,
    );
    check_body(
        "for i, j in zip(a, b):\n    x = i\nelse:\n    y = 1\nwhile x < 10:\n    x += 1\nelse:\n    pass",
        r#"
        For
          target Tuple
            item Name i
            item Name j
          iter Call
            func Name zip
            arg Name a
            arg Name b
          body
            Assign
              target Name x
              value Name i
          orelse
            Assign
              target Name y
              value Int 1
        While
          test Compare [<]
            left Name x
            right Int 10
          body
            AugAssign +=
              target Name x
              value Int 1
          orelse
            Pass
        "#,
    );
    check_body(
        "assert x > 0, \"positive\"\nassert y\nreturn a, b\nx = 1; y = 2;",
        r#"
        Assert
          test Compare [>]
            left Name x
            right Int 0
          msg Str "positive"
        Assert
          test Name y
        Return
          value Tuple
            item Name a
            item Name b
        Assign
          target Name x
          value Int 1
        Assign
          target Name y
          value Int 2
        "#,
    );
}

#[test]
fn calls_attributes_subscripts() {
    check_body(
        "f(a, *b, k=1, **kw)\nx[:, None]\ny[1:2, ::3, ...]\nt.a.b(c)[0]",
        r#"
        Expr
          value Call
            func Name f
            arg Name a
            arg Starred
              value Name b
            keyword k Int 1
            keyword ** Name kw
        Expr
          value Subscript
            value Name x
            index Slice
            index None
        Expr
          value Subscript
            value Name y
            index Slice
              lower Int 1
              upper Int 2
            index Slice
              step Int 3
            index Ellipsis
        Expr
          value Subscript
            value Call
              func Attribute .b
                value Attribute .a
                  value Name t
              arg Name c
            index Int 0
        "#,
    );
}

#[test]
fn operators_and_precedence() {
    check_body(
        "-a ** -b * c + d << 1 & e ^ f | g",
        r#"
        Expr
          value BinOp |
            lhs BinOp ^
              lhs BinOp &
                lhs BinOp <<
                  lhs BinOp +
                    lhs BinOp *
                      lhs UnaryOp -
                        operand BinOp **
                          lhs Name a
                          rhs UnaryOp -
                            operand Name b
                      rhs Name c
                    rhs Name d
                  rhs Int 1
                rhs Name e
              rhs Name f
            rhs Name g
        "#,
    );
    check_body(
        "not a < b <= c and d is not None or e in f and g not in h",
        r#"
        Expr
          value BoolOp or
            value BoolOp and
              value UnaryOp not
                operand Compare [<, <=]
                  left Name a
                  right Name b
                  right Name c
              value Compare [is not]
                left Name d
                right None
            value BoolOp and
              value Compare [in]
                left Name e
                right Name f
              value Compare [not in]
                left Name g
                right Name h
        "#,
    );
    check_body(
        "x = a if c else b if d else e\ny = ~a // b % c @ d / e - +f",
        r#"
        Assign
          target Name x
          value IfExp
            test Name c
            body Name a
            orelse IfExp
              test Name d
              body Name b
              orelse Name e
        Assign
          target Name y
          value BinOp -
            lhs BinOp /
              lhs BinOp @
                lhs BinOp %
                  lhs BinOp //
                    lhs UnaryOp ~
                      operand Name a
                    rhs Name b
                  rhs Name c
                rhs Name d
              rhs Name e
            rhs UnaryOp +
              operand Name f
        "#,
    );
}

#[test]
fn literals_and_displays() {
    check_body(
        "(1, 2.5, 'a' \"b\", True, False, None)\n[1, *x]\n{'k': v}\n()\n(x,)\n(x)\nlambda a, b: a + b\n-float('inf')",
        r#"
        Expr
          value Tuple
            item Int 1
            item Float 2.5
            item Str "ab"
            item Bool True
            item Bool False
            item None
        Expr
          value List
            item Int 1
            item Starred
              value Name x
        Expr
          value Dict
            key Str "k"
            value Name v
        Expr
          value Tuple
        Expr
          value Tuple
            item Name x
        Expr
          value Name x
        Expr
          value Lambda (a, b)
            body BinOp +
              lhs Name a
              rhs Name b
        Expr
          value UnaryOp -
            operand Call
              func Name float
              arg Str "inf"
        "#,
    );
}

#[test]
fn unsupported_constructs_are_named() {
    let cases = [
        ("x = [i for i in y]", "list comprehension"),
        ("x = {k: v for k, v in y}", "dict comprehension"),
        ("x = {i for i in y}", "set comprehension"),
        ("x = {1, 2}", "set literal"),
        ("x = sum(i for i in y)", "generator expression"),
        ("x = (i for i in y)", "generator expression"),
        ("x = f\"{y}\"", "f-string"),
        ("x = b'abc'", "bytes literal"),
        ("x = 1j", "complex literal"),
        ("if (n := 10) > 5:\n    pass", "walrus operator `:=`"),
        ("x = await y", "`await` expression"),
        ("x = yield y", "`yield` expression"),
        ("yield", "`yield` expression"),
        ("x = lambda a=1: a", "lambda with default or star parameters"),
        ("x = {**a}", "dict unpacking `**`"),
    ];
    for (statement, what) in cases {
        let module = parse(&kernel(statement)).unwrap_or_else(|d| panic!("{statement:?}: {d:?}"));
        let printed = print_module(&module);
        assert!(
            printed.contains(&format!("Unsupported {what:?}")),
            "{statement:?} should be Unsupported {what:?}:\n{printed}"
        );
    }
    let statements = [
        ("with open(f) as g:\n    pass", "`with` statement"),
        ("try:\n    pass\nexcept ValueError as e:\n    pass\nelse:\n    pass\nfinally:\n    pass", "`try` statement"),
        ("def inner(x):\n    return x", "nested function definition"),
        ("@triton.jit\ndef inner(x):\n    return x", "decorated nested function definition"),
        ("class C(Base):\n    pass", "class definition"),
        ("global g", "`global` statement"),
        ("nonlocal n", "`nonlocal` statement"),
        ("del x, y", "`del` statement"),
        ("raise ValueError('x') from e", "`raise` statement"),
        ("raise", "`raise` statement"),
        ("import os", "import inside a function"),
        ("async for x in y:\n    pass", "`async for` statement"),
        ("async with a:\n    pass", "`async with` statement"),
    ];
    for (statement, what) in statements {
        let function = only_function(&kernel(statement));
        assert_eq!(function.body.len(), 1, "{statement:?}");
        match &function.body[0].kind {
            StmtKind::Unsupported { what: got } => assert_eq!(got, what, "{statement:?}"),
            other => panic!("{statement:?} parsed as {other:?}"),
        }
    }
}

#[test]
fn spans_are_byte_ranges_of_the_source() {
    let source =
        "@triton.jit\ndef k(x_ptr, N: tl.constexpr = 4):\n    y = tl.load(x_ptr + 1)\n    if y:\n        z = 2\n";
    let function = only_function(source);
    let text = |s: Span| &source[s.range()];
    assert_eq!(text(function.name.span), "k");
    assert_eq!(text(function.params[1].span), "N: tl.constexpr = 4");
    assert_eq!(text(function.body[0].span), "y = tl.load(x_ptr + 1)");
    assert_eq!(text(function.body[1].span), "if y:\n        z = 2");
    let StmtKind::Assign { value, .. } = &function.body[0].kind else { panic!("an assignment") };
    assert_eq!(text(value.span), "tl.load(x_ptr + 1)");
    let ExprKind::Call { args, .. } = &value.kind else { panic!("a call") };
    assert_eq!(text(args[0].span), "x_ptr + 1");
    assert_eq!(text(function.span), &source[1..source.len() - 1], "from the decorator to the body's end");
}

#[test]
fn imports() {
    let module = parse(
        "import triton\nimport triton.language as tl, numpy\nfrom triton.language import (arange as ar,\n    load)\nfrom m import *\n",
    )
    .expect("imports parse");
    let printed: Vec<String> = module
        .imports
        .iter()
        .map(|i| {
            let names: Vec<String> = i
                .names
                .iter()
                .map(|(n, a)| {
                    format!("{}{}", n.name, a.as_ref().map(|a| format!(" as {}", a.name)).unwrap_or_default())
                })
                .collect();
            let module: Vec<&str> = i.module.iter().map(|m| m.name.as_str()).collect();
            format!(
                "{} {} [{}] {:?}",
                i.is_from,
                module.join("."),
                names.join(", "),
                i.alias.as_ref().map(|a| a.name.clone())
            )
        })
        .collect();
    assert_eq!(
        printed,
        [
            "false triton [] None",
            "false triton.language [] Some(\"tl\")",
            "false numpy [] None",
            "true triton.language [arange as ar, load] None",
            "true m [*] None",
        ]
    );
}

#[test]
fn decorators_are_decoded() {
    let source = r#"
@triton.heuristics(values={'EVEN': lambda args: args['n'] % 2 == 0})
@triton.autotune(configs=[triton.Config({'BLOCK': 128, "SPLIT": 2}, num_warps=4),
                          Config(kwargs={'BLOCK': 256})], key=['n', "m"])
@triton.jit(do_not_specialize=["n"], noinline=True)
def k(x, n, BLOCK: tl.constexpr):
    '''Docstring.'''
    return x
"#;
    let f = only_function(source);
    assert_eq!(f.decorators.len(), 3);
    assert_eq!(f.docstring.as_deref(), Some("Docstring."));
    assert_eq!(f.body.len(), 1, "the docstring is not part of the body");
    let autotune = f.autotune.as_ref().expect("autotune decoded");
    assert_eq!(autotune.key, ["n", "m"]);
    assert_eq!(autotune.configs.len(), 2);
    let names: Vec<&str> = autotune.configs[0].kwargs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["BLOCK", "SPLIT"]);
    assert_eq!(autotune.configs[0].kwargs[0].1.kind, ExprKind::Int(128));
    assert_eq!(autotune.configs[0].options.len(), 1);
    assert_eq!(autotune.configs[0].options[0].name.as_ref().map(|n| n.name.as_str()), Some("num_warps"));
    assert_eq!(autotune.configs[1].kwargs[0].1.kind, ExprKind::Int(256));
    assert!(autotune.configs[1].options.is_empty(), "kwargs= is the table, not an option");
    assert_eq!(f.heuristics.len(), 1);
    assert_eq!(f.heuristics[0].0.name, "EVEN");
    assert!(matches!(f.heuristics[0].1.kind, ExprKind::Lambda { .. }));
    let jit: Vec<&str> = f.jit_kwargs.iter().filter_map(|k| k.name.as_ref()).map(|n| n.name.as_str()).collect();
    assert_eq!(jit, ["do_not_specialize", "noinline"]);
}

#[test]
fn relative_imports_keep_their_level() {
    let source =
        "from . import rand\nfrom .rand import uniform as u\nfrom ..pkg.ops import f, g\nfrom ...up import h\n";
    let module = parse(source).expect("relative imports parse");
    let levels: Vec<(u32, String, usize)> = module
        .imports
        .iter()
        .map(|i| (i.level, i.module.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join("."), i.names.len()))
        .collect();
    assert_eq!(
        levels,
        [(1, String::new(), 1), (1, "rand".to_string(), 1), (2, "pkg.ops".to_string(), 2), (3, "up".to_string(), 1)]
    );
    let printed = tilec_syntax::print_module(&module);
    assert!(printed.contains("from ..pkg.ops import f, g"), "{printed}");
    assert!(printed.contains("from . import rand"), "{printed}");
}

#[test]
fn a_file_parsed_at_a_base_offset_has_shifted_spans() {
    let source = "import triton\nX = tl.constexpr(1)\n\n@triton.jit\ndef k(a):\n    return a +\n";
    let at_zero = tilec_syntax::parse("import triton\n\n@triton.jit\ndef k(a):\n    return a\n").expect("parses");
    let shifted =
        tilec_syntax::parse_at("import triton\n\n@triton.jit\ndef k(a):\n    return a\n", 1000).expect("parses");
    assert_eq!(shifted.functions[0].span.start, at_zero.functions[0].span.start + 1000);
    assert_eq!(shifted.functions[0].name.span.end, at_zero.functions[0].name.span.end + 1000);
    let errors = tilec_syntax::parse_at(source, 500).expect_err("a syntax error");
    let at = errors[0].span.expect("the error has a span");
    assert!(at.start >= 500 && (at.start as usize) <= 500 + source.len(), "{at:?}");
}

#[test]
fn autotune_configs_from_host_code_are_not_decoded() {
    let f = only_function("@triton.autotune(configs=get_configs(), key=['n'])\n@triton.jit\ndef k(n):\n    pass\n");
    let autotune = f.autotune.expect("autotune present");
    assert!(autotune.configs.is_empty());
    assert_eq!(autotune.key, ["n"]);
}

#[test]
fn tutorial_file_with_host_code_parses() {
    let source = include_str!("data/tutorial.py");
    let module = parse(source).unwrap_or_else(|d| panic!("{}", tilec_diagnostics::render("tutorial.py", source, &d)));
    let names: Vec<&str> = module.functions.iter().map(|f| f.name.name.as_str()).collect();
    assert_eq!(names, ["matmul_kernel", "leaky_relu", "softmax_kernel", "_dropout", "layer_norm_fwd"]);
    let imports: Vec<String> =
        module.imports.iter().map(|i| i.module.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(".")).collect();
    assert_eq!(imports, ["math", "os", "sys", "typing", "torch", "triton", "triton.language", "triton.language.extra"]);
    let softmax = &module.functions[2];
    assert_eq!(softmax.autotune.as_ref().map(|a| a.configs.len()), Some(2));
    assert_eq!(softmax.heuristics.len(), 1);
    assert_eq!(softmax.params.last().and_then(|p| p.default.as_ref()).map(|d| &d.kind), Some(&ExprKind::Int(2)));
    assert!(module.functions[0].docstring.as_deref().is_some_and(|d| d.starts_with("Kernel for computing")));
}

#[test]
fn syntax_errors() {
    let messages = check_error(&kernel("x = (1 +)"), &["E0101"]);
    assert_eq!(messages, ["unexpected `)`: expected an expression"]);
    let messages = check_error(&kernel("x = 1 2"), &["E0101"]);
    assert!(messages[0].starts_with("unexpected number `2`"), "{messages:?}");
    check_error(&kernel("if x\n    pass"), &["E0101"]);
    check_error("@triton.jit\ndef k():\n    x = 1\n        y = 2\n", &["E0109"]);
    check_error("@triton.jit\ndef k():\nx = 1\n", &["E0109"]);
    check_error("@triton.jit\ndef k():\n    if x:\n    y = 1\n", &["E0109"]);
    check_error("@triton.jit\ndef k(", &["E0107"]);
    check_error("@triton.jit\ndef k():", &["E0109"]);
    check_error("@triton.jit\n", &["E0105"]);
    check_error("@triton.jit\ndef k(*args, *rest):\n    pass\n", &["E0110"]);
    check_error("@triton.jit\ndef k(a, *, b, *rest):\n    pass\n", &["E0110"]);
    check_error("@triton.jit\ndef k(a, **kw):\n    pass\n", &["E0110"]);
    check_error(&kernel("f(a=1, b)"), &["E0113"]);
    check_error("@triton.autotune(configs=[1], key=[])\n@triton.jit\ndef k():\n    pass\n", &["E0114"]);
    check_error("@triton.heuristics({1: 2})\n@triton.jit\ndef k():\n    pass\n", &["E0114"]);
    check_error(&kernel("x = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1"), &["E0111"]);
}

#[test]
fn errors_in_several_kernels_are_all_reported() {
    let source = "@triton.jit\ndef a():\n    x = = 1\n\nhost = 1\n\n@triton.jit\ndef b():\n    y = 'open\n";
    check_error(source, &["E0101", "E0102"]);
}

#[test]
fn lexer_errors_in_host_code_are_tolerated() {
    let source = "x = $ 'open\ny = \"\"\"\n@triton.jit\ndef k():\n    pass\n";
    // The unterminated triple-quoted string swallows the rest of the file: no kernel.
    assert_eq!(parse(source).map(|m| m.functions.len()), Ok(0));
    let source = "x = $ 'open ? `\n@triton.jit\ndef k():\n    pass\n";
    assert_eq!(parse(source).map(|m| m.functions.len()), Ok(1));
}

#[test]
fn kernel_idioms() {
    let source = "@triton.jit  # the kernel\ndef f(x, N) -> tl.tensor:\n    if x:  # comment\n        y = tl.where(x > 0, x, -float(\"inf\")) if N else 0\n    for i in tl.static_range(0, N, 1):\n        acc += tl.dot(a, b, allow_tf32=False)\n    tl.store(p, x, mask=(a < b) & (c > d))\n    return\n# end\n";
    let f = only_function(source);
    assert_eq!(f.body.len(), 4);
    assert!(matches!(f.body[3].kind, StmtKind::Return(None)));
    let StmtKind::Expr(Expr { kind: ExprKind::Call { keywords, .. }, .. }) = &f.body[2].kind else {
        panic!("a call statement")
    };
    assert!(matches!(keywords[0].value.kind, ExprKind::BinOp { op: BinOp::BitAnd, .. }));
}

#[test]
fn empty_and_host_only_files_give_empty_modules() {
    assert_eq!(parse(""), Ok(Module::default()));
    let host = parse("print(1)\nif x:\n    y = 2\n").expect("host code parses");
    assert_eq!(host, Module::default());
}

#[test]
fn module_globals_are_kept_and_host_lines_lose_their_value() {
    let source = "import triton.language as tl\nBLOCK = tl.constexpr(128)\nN: tl.constexpr = 4\ndevice = torch.device('cpu' if $ else 1)\nx = y = 2\n";
    let m = parse(source).expect("parses");
    let names: Vec<(&str, bool, bool)> =
        m.globals.iter().map(|g| (g.name.name.as_str(), g.annotation.is_some(), g.value.is_some())).collect();
    assert_eq!(names, [("BLOCK", false, true), ("N", true, true), ("device", false, false), ("x", false, false)]);
}

#[test]
fn nested_kernels_carry_their_scope() {
    let source = "def test_add(n):\n    @triton.jit\n    def kernel(x):\n        @triton.jit\n        def inner():\n            pass\n        pass\n    class C:\n        @triton.jit\n        def m(y):\n            pass\n@triton.constexpr_function\ndef twice(v):\n    return 2 * v\n";
    let m = parse(source).expect("parses");
    // A def inside a kernel is part of the kernel's body (the front end rejects it there).
    assert!(matches!(&m.functions[0].body[0].kind, StmtKind::Unsupported { .. }));
    let found: Vec<(String, FunctionKind)> =
        m.functions.iter().map(|f| (format!("{}.{}", f.scope.join("."), f.name.name), f.kind)).collect();
    assert_eq!(
        found,
        [
            ("test_add.kernel".to_string(), FunctionKind::Jit),
            ("test_add.C.m".to_string(), FunctionKind::Jit),
            (".twice".to_string(), FunctionKind::ConstexprFunction)
        ]
    );
}

#[test]
fn variadic_and_keyword_only_parameters() {
    let kinds = |source: &str| -> Vec<(String, ParamKind)> {
        only_function(source).params.into_iter().map(|p| (p.name.name, p.kind)).collect()
    };
    let named = |items: &[(&str, ParamKind)]| -> Vec<(String, ParamKind)> {
        items.iter().map(|(n, k)| (n.to_string(), *k)).collect()
    };
    use ParamKind::{KeywordOnly, Positional, VarArgs};
    assert_eq!(
        kinds("@triton.jit\ndef f(x, *args, scale=2.0):\n    pass\n"),
        named(&[("x", Positional), ("args", VarArgs), ("scale", KeywordOnly)])
    );
    assert_eq!(
        kinds("@triton.jit\ndef f(x, *, scale, shift=0):\n    pass\n"),
        named(&[("x", Positional), ("scale", KeywordOnly), ("shift", KeywordOnly)])
    );
    let printed = strip_spans(&print_module(&parse("@triton.jit\ndef f(x, *args, s=1):\n    pass\n").unwrap()));
    assert!(printed.contains("param *args") && printed.contains("keyword-only param s"), "{printed}");
}
