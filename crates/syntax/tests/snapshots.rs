//! Snapshots of the AST printer (`--emit ast`) and of rendered syntax diagnostics.

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../../snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

fn ast_text(file: &str, source: &str) -> String {
    match tilec_syntax::parse(source) {
        Ok(module) => tilec_syntax::print_module(&module),
        Err(diagnostics) => panic!("{}", tilec_diagnostics::render(file, source, &diagnostics)),
    }
}

fn errors_text(file: &str, source: &str) -> String {
    match tilec_syntax::parse(source) {
        Ok(module) => panic!("{file} should not parse:\n{}", tilec_syntax::print_module(&module)),
        Err(diagnostics) => tilec_diagnostics::render(file, source, &diagnostics),
    }
}

#[test]
fn ast_of_vector_add() {
    let text = ast_text("vector_add.py", include_str!("data/vector_add.py"));
    settings().bind(|| insta::assert_snapshot!("syntax__ast_vector_add", text));
}

#[test]
fn ast_of_decorated_kernel() {
    let text = ast_text("decorated.py", include_str!("data/decorated.py"));
    settings().bind(|| insta::assert_snapshot!("syntax__ast_decorated", text));
}

#[test]
fn ast_of_unsupported_constructs() {
    let text = ast_text("unsupported.py", include_str!("data/unsupported.py"));
    settings().bind(|| insta::assert_snapshot!("syntax__ast_unsupported", text));
}

#[test]
fn rendered_syntax_errors() {
    let cases = [
        ("missing_colon.py", "import triton\n\n@triton.jit\ndef k(x):\n    if x > 0\n        x = 1\n"),
        ("bad_dedent.py", "@triton.jit\ndef k(x):\n    if x:\n        y = 1\n      z = 2\n"),
        ("tabs.py", "@triton.jit\ndef k(x):\n\ty = 1\n        z = 2\n"),
        ("unterminated.py", "@triton.jit\ndef k(x):\n    s = 'abc\n"),
        ("unclosed.py", "@triton.jit\ndef k(x):\n    y = tl.load(x + (1, 2)\n\ndef host():\n    pass\n"),
        ("invalid_char.py", "@triton.jit\ndef k(x):\n    y = x $ 2\n"),
        ("unexpected_indent.py", "@triton.jit\ndef k(x):\n    y = x\n        z = y\n"),
        ("star_kwargs.py", "@triton.jit\ndef k(x, **rest):\n    pass\n"),
    ];
    let text: String = cases.iter().map(|(file, source)| errors_text(file, source)).collect();
    settings().bind(|| insta::assert_snapshot!("syntax__errors", text));
}
