//! Ahead-of-time C output, as Triton's `compile.py` / `link.py` make it: `tilec aot` and
//! `tilec aot-link`.
//!
//! [`compile`] turns one specialization of a kernel into three files for a C program:
//! - `NAME.o`, the kernel's machine code, its symbols named after `NAME` (`NAME_kernel`,
//!   `NAME_kernel_launch`, `NAME_kernel_grid`: the kernel ABI of `tilec_codegen::launch`), so
//!   that several specializations link into one program;
//! - `NAME.h`, which declares `int NAME(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
//!   int num_threads, <runtime parameters>)` and, with `--grid`, `NAME_default_grid` and
//!   `NAME_default`; its opening comment holds the `tilec-aot:` lines that describe the
//!   specialization (read back by `aot-link`);
//! - `NAME.c`, which packs the arguments into the launcher's 8-byte slots and runs the grid on
//!   pthreads: the programs in linear (z, y, x) order split statically into `num_threads`
//!   contiguous ranges, one `NAME_kernel_grid` call per range (the calling thread runs the
//!   first).
//!
//! The runtime parameters are the kernel's non-constexpr parameters in order, a parameter
//! specialized to 1 (`i32:1`) left out, as in Triton. C types: pointers are typed (`float *`,
//! `int32_t *`, ...; fp16, bf16 and fp8 data as their bits, `uint16_t *` / `uint8_t *`), ints
//! their `<stdint.h>` type, `i1` `bool`, fp32 `float`, fp64 `double`, fp16/bf16 scalars their
//! bits (`uint16_t`).
//!
//! [`link`] makes one dispatcher over several specializations of the same kernel: it takes
//! every runtime parameter (those specialized to 1 included) and calls the first
//! specialization, most conditions first, whose conditions the arguments meet (a pointer
//! `:16` 16-byte aligned, an int `:16` a multiple of 16, `:1` equal to 1).

pub mod grid;

use std::fmt::Write;

use tilec_diagnostics::Diagnostic;
use tilec_front::{ConstValue, SigItem};
use tilec_ir::{Elem, ScalarType};

use crate::error::{codes, Error};
use crate::timing::StageTimes;
use crate::{Compiler, Produce, Request, Target};

/// The suffix of the kernel's own symbols: `NAME_kernel`, `NAME_kernel_launch`,
/// `NAME_kernel_grid`.
pub const KERNEL_SUFFIX: &str = "_kernel";

/// What `tilec aot` compiles.
#[derive(Clone, Debug)]
pub struct AotRequest<'a> {
    /// The kernel and its specialization.
    pub request: Request<'a>,
    /// A machine-code target.
    pub target: Target,
    /// The C name of the entry point (`-n`), a C identifier.
    pub name: String,
    /// `--grid`: up to three expressions over the integer parameters and constants.
    pub grid: Option<String>,
    /// Run the Tile IR optimizer.
    pub optimize: bool,
    /// Directories holding `libsleef.a` (the object is not linked here; the header names
    /// the directory where the kernel needs it).
    pub library_dirs: Vec<std::path::PathBuf>,
    /// Where absolute imports are searched after the kernel file's directory (`-I DIR`).
    pub include_dirs: Vec<std::path::PathBuf>,
}

/// The three files of one specialization.
#[derive(Clone, Debug)]
pub struct AotOutput {
    /// `NAME.h`.
    pub header: String,
    /// `NAME.c`.
    pub source: String,
    /// `NAME.o`.
    pub object: Vec<u8>,
    /// The object calls SLEEF functions: the program links `libsleef.a` too.
    pub needs_sleef: bool,
    /// Wall time of the compile stages.
    pub timings: StageTimes,
}

/// How a specialization constrains a runtime parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    /// Nothing assumed.
    Any,
    /// A multiple of this many bytes (pointers) or units (ints): `:16`.
    Divisible(u32),
    /// Equal to 1 (`:1`): not a parameter of the specialization's entry point.
    One,
}

/// A runtime parameter of the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct AotParam {
    /// The Python name.
    pub name: String,
    /// Scalar or pointer element type.
    pub elem: Elem,
    /// The specialization's assumption.
    pub spec: Spec,
}

impl AotParam {
    /// The name in C: the Python name, with `_` appended when that is a C keyword or one of
    /// the entry point's own parameter names.
    pub fn c_name(&self) -> String {
        const TAKEN: &[&str] = &[
            "grid_x",
            "grid_y",
            "grid_z",
            "num_threads",
            "grid",
            "err",
            "args",
            "auto",
            "break",
            "case",
            "char",
            "const",
            "continue",
            "default",
            "do",
            "double",
            "else",
            "enum",
            "extern",
            "float",
            "for",
            "goto",
            "if",
            "inline",
            "int",
            "long",
            "register",
            "restrict",
            "return",
            "short",
            "signed",
            "sizeof",
            "static",
            "struct",
            "switch",
            "typedef",
            "union",
            "unsigned",
            "void",
            "volatile",
            "while",
            "bool",
            "true",
            "false",
        ];
        if TAKEN.contains(&self.name.as_str()) || self.name.starts_with("tilec_aot") {
            format!("{}_", self.name)
        } else {
            self.name.clone()
        }
    }

    /// `TYPE NAME`, as the parameter is declared in C.
    pub fn c_decl(&self) -> String {
        match self.elem {
            Elem::Ptr(s) => format!("{} *{}", c_scalar(s), self.c_name()),
            Elem::Scalar(s) => format!("{} {}", c_scalar(s), self.c_name()),
        }
    }

    /// The value of the launcher's 8-byte slot (`tilec_codegen::launch`): ints sign- or
    /// zero-extended, floats as their bits in the low bytes, pointers as addresses.
    fn c_slot(&self) -> String {
        let n = self.c_name();
        match self.elem {
            Elem::Ptr(_) => format!("(uint64_t)(uintptr_t){n}"),
            Elem::Scalar(ScalarType::I1) => format!("(uint64_t)({n} ? 1 : 0)"),
            Elem::Scalar(ScalarType::F32) => format!("tilec_aot_f32_bits({n})"),
            Elem::Scalar(ScalarType::F64) => format!("tilec_aot_f64_bits({n})"),
            Elem::Scalar(s) if s.is_signed_int() => format!("(uint64_t)(int64_t){n}"),
            Elem::Scalar(_) => format!("(uint64_t){n}"),
        }
    }

    /// The dispatcher's test that the argument meets the specialization (none for `Any`).
    fn c_condition(&self) -> Option<String> {
        let n = self.c_name();
        match (self.spec, self.elem) {
            (Spec::Any, _) => None,
            (Spec::One, _) => Some(format!("{n} == 1")),
            (Spec::Divisible(d), Elem::Ptr(_)) => Some(format!("(uintptr_t){n} % {d} == 0")),
            (Spec::Divisible(d), Elem::Scalar(_)) => Some(format!("{n} % {d} == 0")),
        }
    }

    fn type_text(&self) -> String {
        match self.elem {
            Elem::Ptr(s) => format!("*{}", s.name()),
            Elem::Scalar(s) => s.name().to_string(),
        }
    }

    fn spec_text(&self) -> String {
        match self.spec {
            Spec::Any => "-".into(),
            Spec::Divisible(d) => d.to_string(),
            Spec::One => "=1".into(),
        }
    }
}

/// The C type of a scalar (fp16/bf16 and fp8 as their bits).
fn c_scalar(s: ScalarType) -> &'static str {
    use ScalarType as S;
    match s {
        S::I1 => "bool",
        S::I8 => "int8_t",
        S::I16 => "int16_t",
        S::I32 => "int32_t",
        S::I64 => "int64_t",
        S::U8 => "uint8_t",
        S::U16 => "uint16_t",
        S::U32 => "uint32_t",
        S::U64 => "uint64_t",
        S::F16 | S::BF16 => "uint16_t",
        S::F32 => "float",
        S::F64 => "double",
        S::F8E4NV | S::F8E5 | S::F8E4B15 | S::F8E4B8 | S::F8E5B16 => "uint8_t",
    }
}

/// What a header's `tilec-aot:` lines say: everything `aot-link` needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// The entry point's C name.
    pub name: String,
    /// The Triton kernel's name.
    pub kernel: String,
    /// The target name.
    pub target: String,
    /// The signature as given.
    pub signature: String,
    /// `-c` constants, as text.
    pub constants: Vec<(String, String)>,
    /// The `--grid` text.
    pub grid: Option<String>,
    /// Every runtime parameter, those specialized to 1 included.
    pub params: Vec<AotParam>,
    /// The object calls SLEEF.
    pub needs_sleef: bool,
}

const META_TAG: &str = "tilec-aot:";

impl Meta {
    /// The `tilec-aot:` lines (each starting ` * `, inside the header's opening comment).
    fn lines(&self) -> String {
        let mut out = String::new();
        let mut line = |key: &str, value: &str| {
            let _ = writeln!(out, " * {META_TAG} {key} {value}");
        };
        line("name", &self.name);
        line("kernel", &self.kernel);
        line("target", &self.target);
        line("signature", &self.signature);
        for (name, value) in &self.constants {
            line("constant", &format!("{name} {value}"));
        }
        if let Some(grid) = &self.grid {
            line("grid", grid);
        }
        for p in &self.params {
            line("param", &format!("{} {} {}", p.name, p.type_text(), p.spec_text()));
        }
        line("sleef", if self.needs_sleef { "yes" } else { "no" });
        out
    }

    /// Reads the `tilec-aot:` lines of a header `tilec aot` wrote.
    pub fn parse(header: &str) -> Result<Meta, String> {
        let mut meta = Meta {
            name: String::new(),
            kernel: String::new(),
            target: String::new(),
            signature: String::new(),
            constants: Vec::new(),
            grid: None,
            params: Vec::new(),
            needs_sleef: false,
        };
        let mut seen = false;
        for line in header.lines() {
            let Some(rest) = line.trim_start_matches([' ', '*']).strip_prefix(META_TAG) else { continue };
            seen = true;
            let rest = rest.trim();
            let (key, value) = rest.split_once(' ').unwrap_or((rest, ""));
            let bad = || format!("malformed `{META_TAG} {rest}` line");
            match key {
                "name" => meta.name = value.to_string(),
                "kernel" => meta.kernel = value.to_string(),
                "target" => meta.target = value.to_string(),
                "signature" => meta.signature = value.to_string(),
                "grid" => meta.grid = Some(value.to_string()),
                "sleef" => meta.needs_sleef = value == "yes",
                "constant" => {
                    let (n, v) = value.split_once(' ').ok_or_else(bad)?;
                    meta.constants.push((n.to_string(), v.to_string()));
                }
                "param" => {
                    let words: Vec<&str> = value.split_whitespace().collect();
                    let [name, ty, spec] = words[..] else { return Err(bad()) };
                    let elem = match ty.strip_prefix('*') {
                        Some(p) => Elem::Ptr(ScalarType::from_name(p).ok_or_else(bad)?),
                        None => Elem::Scalar(ScalarType::from_name(ty).ok_or_else(bad)?),
                    };
                    let spec = match spec {
                        "-" => Spec::Any,
                        "=1" => Spec::One,
                        d => Spec::Divisible(d.parse().map_err(|_| bad())?),
                    };
                    meta.params.push(AotParam { name: name.to_string(), elem, spec });
                }
                _ => return Err(bad()),
            }
        }
        if !seen {
            return Err(format!("no `{META_TAG}` lines: not a header written by `tilec aot`"));
        }
        if meta.name.is_empty() || meta.kernel.is_empty() {
            return Err(format!("the `{META_TAG}` lines lack the name or the kernel"));
        }
        Ok(meta)
    }

    /// The entry point's parameters (those specialized to 1 left out).
    fn entry_params(&self) -> impl Iterator<Item = &AotParam> {
        self.params.iter().filter(|p| p.spec != Spec::One)
    }

    /// `int NAME(uint32_t grid_x, ..., int num_threads, PARAMS)` without the `;`.
    fn entry_prototype(&self) -> String {
        let mut decl = format!("int {}(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, int num_threads", self.name);
        for p in self.entry_params() {
            let _ = write!(decl, ", {}", p.c_decl());
        }
        decl.push(')');
        decl
    }
}

/// A C identifier: an ASCII letter or `_`, then letters, digits and `_`.
fn is_c_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn check_name(name: &str) -> Result<(), Error> {
    if is_c_identifier(name) {
        Ok(())
    } else {
        Err(Error::new(
            codes::BAD_ARGUMENT,
            format!("`{name}` is not a C identifier (the name of the C entry point, -n)"),
        ))
    }
}

/// A constant's value as text (`1024`, `True`, `fp16`, ...).
pub(crate) fn const_text(v: &ConstValue) -> String {
    match v {
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Float(x) => format!("{x:?}"),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.into(),
        ConstValue::Str(s) => format!("{s:?}"),
        ConstValue::None => "None".into(),
        ConstValue::DType(t) => t.name().into(),
        ConstValue::Tuple(items) => format!("({})", items.iter().map(const_text).collect::<Vec<_>>().join(", ")),
    }
}

/// Compiles one specialization into its header, C source and object.
///
/// ```
/// let source = "import triton\nimport triton.language as tl\n@triton.jit\n\
///     def fill(out_ptr, n, BLOCK: tl.constexpr):\n\
///     \x20   offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n\
///     \x20   tl.store(out_ptr + offs, offs, mask=offs < n)\n";
/// let request = tilec::aot::AotRequest {
///     request: tilec::Request {
///         file_name: "fill.py",
///         source,
///         kernel: "fill",
///         signature: tilec::parse_signature("*i32:16, i32")?,
///         constants: vec![("BLOCK".into(), tilec::ConstValue::Int(64))],
///     },
///     target: tilec::Target::Riscv64gc,
///     name: "fill".into(),
///     grid: Some("cdiv(n, BLOCK)".into()),
///     optimize: true,
///     library_dirs: Vec::new(),
///     include_dirs: Vec::new(),
/// };
/// let out = tilec::aot::compile(&request)?;
/// assert!(out.header.contains(
///     "int fill(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, int num_threads, int32_t *out_ptr, int32_t n);"
/// ));
/// assert!(out.header.contains("int fill_default(int num_threads, int32_t *out_ptr, int32_t n);"));
/// assert!(out.source.contains("fill_kernel_grid"));
/// assert_eq!(&out.object[..4], b"\x7fELF");
/// // A dispatcher over it: the call is taken when out_ptr is 16-byte aligned, else -2.
/// let dispatcher = tilec::aot::link(&[("fill.h".into(), out.header)], "fill_any")?;
/// assert!(dispatcher.source.contains("if ((uintptr_t)out_ptr % 16 == 0)"));
/// assert!(dispatcher.source.contains("return -2;"));
/// # Ok::<(), tilec::Error>(())
/// ```
pub fn compile(aot: &AotRequest<'_>) -> Result<AotOutput, Error> {
    check_name(&aot.name)?;
    let req = &aot.request;
    let in_source =
        |d: Vec<Diagnostic>| Error::in_files(d, crate::source_files(req.file_name, req.source, &aot.include_dirs));
    if !aot.target.has_machine_code() {
        return Err(Error::new(
            codes::NO_MACHINE_CODE,
            "`tilec aot` needs a machine-code target: riscv64gc or riscv64gcv",
        ));
    }
    let compiler = Compiler::new(aot.target)
        .with_include_dirs(aot.include_dirs.clone())
        .with_produce(Produce::Object)
        .with_optimize(aot.optimize)
        .with_texts(false)
        .with_symbol(format!("{}{KERNEL_SUFFIX}", aot.name));
    let output = compiler.compile(req).map_err(in_source)?;
    let specialized = output.function.as_ref().map(|f| f.params.clone()).unwrap_or_default();
    // The parameters specialized to 1 are gone from the kernel: the same signature without
    // those specializations names them all.
    let all = if req.signature.iter().any(|s| matches!(s, SigItem::Scalar { equal_to_one: true, .. })) {
        let general: Vec<SigItem> = req
            .signature
            .iter()
            .map(|s| match s {
                SigItem::Scalar { ty, equal_to_one: true, .. } => {
                    SigItem::Scalar { ty: *ty, divisibility: 1, equal_to_one: false }
                }
                other => other.clone(),
            })
            .collect();
        let general = Request { signature: general, ..req.clone() };
        let tile = compiler.compile_tile(&general).map_err(in_source)?;
        tile.function.map(|f| f.params).unwrap_or_default()
    } else {
        specialized.clone()
    };
    let params: Vec<AotParam> = all
        .iter()
        .map(|p| {
            let spec = match specialized.iter().find(|s| s.name == p.name) {
                None => Spec::One,
                Some(s) if s.divisibility > 1 => Spec::Divisible(s.divisibility),
                Some(_) => Spec::Any,
            };
            AotParam { name: p.name.clone(), elem: p.ty.elem, spec }
        })
        .collect();
    let constants: Vec<(String, String)> = req.constants.iter().map(|(n, v)| (n.clone(), const_text(v))).collect();
    let meta = Meta {
        name: aot.name.clone(),
        kernel: req.kernel.to_string(),
        target: aot.target.name().to_string(),
        signature: req.signature.iter().map(sig_item_text).collect::<Vec<_>>().join(", "),
        constants,
        grid: aot.grid.as_ref().map(|g| g.trim().to_string()),
        params,
        needs_sleef: tilec_codegen::link::references_sleef(&output.object),
    };
    let default_grid = match &meta.grid {
        Some(text) => Some(resolve_grid(text, &meta, true).map_err(|d| Error::in_source(vec![d], "--grid", text))?),
        None => None,
    };
    let sleef_dir = aot.library_dirs.first().map(|d| d.display().to_string());
    Ok(AotOutput {
        header: specialization_header(&meta, req.file_name, sleef_dir.as_deref()),
        source: specialization_source(&meta, default_grid.as_ref()),
        object: output.object,
        needs_sleef: meta.needs_sleef,
        timings: output.timings,
    })
}

/// A signature item as `compile.py` spells it.
fn sig_item_text(item: &SigItem) -> String {
    match item {
        SigItem::Ptr { pointee, divisibility } if *divisibility > 1 => format!("*{}:{divisibility}", pointee.name()),
        SigItem::Ptr { pointee, .. } => format!("*{}", pointee.name()),
        SigItem::Scalar { ty, equal_to_one: true, .. } => format!("{}:1", ty.name()),
        SigItem::Scalar { ty, divisibility, .. } if *divisibility > 1 => format!("{}:{divisibility}", ty.name()),
        SigItem::Scalar { ty, .. } => ty.name().to_string(),
        SigItem::TensorDesc { elem, block } => {
            let dims: Vec<String> = block.iter().map(u32::to_string).collect();
            format!("tensordesc<{}[{}]>", elem.name(), dims.join(", "))
        }
        SigItem::Constexpr(v) => const_text(v),
    }
}

/// The three C expressions of `text` for `meta`'s entry point (`specialized`: parameters
/// specialized to 1 are the value 1) or its dispatcher (all parameters are arguments).
fn resolve_grid(text: &str, meta: &Meta, specialized: bool) -> Result<[String; 3], Diagnostic> {
    let exprs = grid::parse(text)?;
    let ints: Vec<&str> = meta
        .params
        .iter()
        .filter(|p| matches!(p.elem, Elem::Scalar(s) if s.is_int()))
        .map(|p| p.name.as_str())
        .collect();
    let constant = |name: &str| {
        meta.constants.iter().find(|(n, _)| n == name).map(|(_, v)| match v.as_str() {
            "True" => Some(1),
            "False" => Some(0),
            v => v.parse::<i64>().ok(),
        })
    };
    for (name, span) in exprs.iter().flat_map(|e| e.names()) {
        let error = |message: String| Diagnostic::error(codes::AOT_GRID, message).with_span(span);
        if let Some(p) = meta.params.iter().find(|p| p.name == name) {
            if !ints.contains(&name) {
                let kind = if matches!(p.elem, Elem::Ptr(_)) { "a pointer" } else { "not an integer" };
                return Err(error(format!("`{name}` is {kind}; a grid expression uses integer parameters")));
            }
        } else {
            match constant(name) {
                Some(Some(_)) => {}
                Some(None) => {
                    return Err(error(format!("constant `{name}` is not an integer; a grid expression needs one")))
                }
                None => {
                    let known = if ints.is_empty() { "none".to_string() } else { ints.join(", ") };
                    return Err(error(format!("unknown parameter `{name}` in the grid"))
                        .with_note(format!("the kernel's integer parameters: {known}; or a constant given with -c")));
                }
            }
        }
    }
    let resolve = |name: &str| match meta.params.iter().find(|p| p.name == name) {
        Some(p) if specialized && p.spec == Spec::One => grid::Operand::Value(1),
        Some(p) => grid::Operand::Param(p.c_name()),
        None => grid::Operand::Value(constant(name).flatten().unwrap_or_default()),
    };
    Ok(exprs.map(|e| e.to_c(&resolve)))
}

/// The opening comment of a header: what it is, how to link it, the `tilec-aot:` lines.
fn opening_comment(meta: &Meta, what: &str, link: &str) -> String {
    format!("/* {}.h: {what}\n *\n{link} *\n{} */\n", meta.name, meta.lines())
}

/// The declarations common to specialization and dispatcher headers.
fn header_body(meta: &Meta, returns: &str) -> String {
    let guard = format!("TILEC_AOT_{}_H", meta.name.to_ascii_uppercase());
    let params: Vec<String> = meta.entry_params().map(AotParam::c_decl).collect();
    let assumed: Vec<String> =
        meta.params.iter().filter_map(|p| p.c_condition().filter(|_| p.spec != Spec::One)).collect();
    let mut out = format!("#ifndef {guard}\n#define {guard}\n\n#include <stdbool.h>\n#include <stdint.h>\n\n");
    out.push_str("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    let _ = writeln!(
        out,
        "/* Runs the grid_x * grid_y * grid_z programs of `{}` on num_threads threads (the calling\n \
         * thread and num_threads - 1 new ones; the programs in (z, y, x) order, split statically).\n \
         * Returns 0 when the grid ran; -1 when num_threads < 1 or a grid size exceeds 2^31 - 1{returns}.{} */",
        meta.kernel,
        if assumed.is_empty() { String::new() } else { format!("\n * Assumes {}.", assumed.join(", ")) }
    );
    let _ = writeln!(out, "{};\n", meta.entry_prototype());
    if let Some(grid) = &meta.grid {
        let all = if params.is_empty() { String::new() } else { format!(", {}", params.join(", ")) };
        let _ = writeln!(
            out,
            "/* The grid of `--grid {grid}` (C arithmetic on int64_t): returns 0, or -1 when it divides\n \
             * by zero or a size is outside [0, 2^31 - 1]. */\nint {}_default_grid(uint32_t grid[3]{all});\n",
            meta.name
        );
        let _ = writeln!(
            out,
            "/* {} on the grid {}_default_grid computes; returns what either returns. */\nint {}_default(int num_threads{all});\n",
            meta.name, meta.name, meta.name
        );
    }
    out.push_str("#ifdef __cplusplus\n}\n#endif\n\n");
    let _ = writeln!(out, "#endif /* {guard} */");
    out
}

fn specialization_header(meta: &Meta, file_name: &str, sleef_dir: Option<&str>) -> String {
    let what = format!(
        "kernel `{}` of {file_name} for {}, signature \"{}\", compiled ahead of time by tilec {}.",
        meta.kernel,
        meta.target,
        meta.signature,
        env!("CARGO_PKG_VERSION")
    );
    let mut link = format!(
        " * Build: compile {name}.c with the program and link {name}.o, -lpthread and -lm.\n",
        name = meta.name
    );
    if meta.needs_sleef {
        let dir = sleef_dir.unwrap_or("$TILEC_CACHE/toolchain/sleef-*/lib");
        let _ = writeln!(link, " * The kernel calls SLEEF: link libsleef.a too (-L{dir} -lsleef).");
    }
    format!("{}\n{}", opening_comment(meta, &what, &link), header_body(meta, ""))
}

/// The helpers and the grid runner every generated source holds (static, so that several
/// link into one program).
const C_RUNTIME: &str = r#"
typedef void (*tilec_aot_grid_fn)(const uint64_t *args, uint64_t first, uint64_t end,
                                  uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, int64_t *program);

struct tilec_aot_work {
    tilec_aot_grid_fn run;
    const uint64_t *args;
    uint64_t first, end;
    uint32_t grid[3];
};

static void *tilec_aot_worker(void *data) {
    struct tilec_aot_work *w = data;
    int64_t program[3] = {-1, -1, -1};
    if (w->first < w->end) w->run(w->args, w->first, w->end, w->grid[0], w->grid[1], w->grid[2], program);
    return NULL;
}

/* Runs the programs of the grid in linear (z, y, x) order, split into num_threads contiguous
 * ranges; the calling thread runs the first, and the ranges of threads that cannot be
 * created. */
static int tilec_aot_run(tilec_aot_grid_fn run, const uint64_t *args, uint32_t grid_x, uint32_t grid_y,
                         uint32_t grid_z, int num_threads) {
    if (num_threads < 1 || grid_x > INT32_MAX || grid_y > INT32_MAX || grid_z > INT32_MAX) return -1;
    uint64_t plane = (uint64_t)grid_x * grid_y;
    if (grid_z != 0 && plane > UINT64_MAX / grid_z) return -1;
    uint64_t programs = plane * grid_z;
    if (programs == 0) return 0;
    uint64_t threads = (uint64_t)num_threads < programs ? (uint64_t)num_threads : programs;
    struct tilec_aot_work *work = calloc(threads, sizeof *work);
    pthread_t *ids = calloc(threads, sizeof *ids);
    unsigned char *started = calloc(threads, 1);
    if (!work || !ids || !started) {
        free(work);
        free(ids);
        free(started);
        return ENOMEM;
    }
    uint64_t base = programs / threads, extra = programs % threads;
    for (uint64_t t = 0; t < threads; t++) {
        uint64_t first = t * base + (t < extra ? t : extra);
        work[t] = (struct tilec_aot_work){run, args, first, first + base + (t < extra), {grid_x, grid_y, grid_z}};
    }
    for (uint64_t t = 1; t < threads; t++) started[t] = pthread_create(&ids[t], NULL, tilec_aot_worker, &work[t]) == 0;
    tilec_aot_worker(&work[0]);
    for (uint64_t t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        else tilec_aot_worker(&work[t]);
    }
    free(work);
    free(ids);
    free(started);
    return 0;
}

static inline uint64_t tilec_aot_f32_bits(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static inline uint64_t tilec_aot_f64_bits(double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}
"#;

/// `NAME_default_grid` and `NAME_default` over `entry`'s parameters, `grid` the C
/// expressions.
fn default_functions(meta: &Meta, grid: &[String; 3]) -> String {
    let params: Vec<&AotParam> = meta.entry_params().collect();
    let decls: String = params.iter().map(|p| format!(", {}", p.c_decl())).collect();
    let names: String = params.iter().map(|p| format!(", {}", p.c_name())).collect();
    let unused: String = params.iter().map(|p| format!("    (void){};\n", p.c_name())).collect();
    let name = &meta.name;
    format!(
        "\nint {name}_default_grid(uint32_t grid[3]{decls}) {{\n{unused}    int err = 0;\n    int64_t sizes[3] = {{\n        \
         {},\n        {},\n        {},\n    }};\n    if (err) return -1;\n    for (int d = 0; d < 3; d++) {{\n        \
         if (sizes[d] < 0 || sizes[d] > INT32_MAX) return -1;\n        grid[d] = (uint32_t)sizes[d];\n    }}\n    \
         return 0;\n}}\n\nint {name}_default(int num_threads{decls}) {{\n    uint32_t grid[3];\n    \
         int result = {name}_default_grid(grid{names});\n    if (result != 0) return result;\n    \
         return {name}(grid[0], grid[1], grid[2], num_threads{names});\n}}\n",
        grid[0], grid[1], grid[2]
    )
}

fn source_prelude(meta: &Meta) -> String {
    format!(
        "/* {name}.c: generated by tilec aot-link or tilec aot; see {name}.h. */\n#include \"{name}.h\"\n\n\
         #include <errno.h>\n#include <pthread.h>\n#include <stdlib.h>\n#include <string.h>\n",
        name = meta.name
    )
}

fn specialization_source(meta: &Meta, grid: Option<&[String; 3]>) -> String {
    let mut out = source_prelude(meta);
    let symbol = format!("{}{KERNEL_SUFFIX}_grid", meta.name);
    let _ = writeln!(
        out,
        "\n/* The kernel's grid entry, in {}.o. */\nvoid {symbol}(const uint64_t *args, uint64_t first, uint64_t end, uint32_t grid_x,\n    \
         uint32_t grid_y, uint32_t grid_z, int64_t *program);",
        meta.name
    );
    out.push_str(C_RUNTIME);
    let slots: Vec<String> = meta.entry_params().map(AotParam::c_slot).collect();
    let slots = if slots.is_empty() { "0".to_string() } else { slots.join(",\n        ") };
    let _ = write!(
        out,
        "\n{} {{\n    const uint64_t args[] = {{\n        {slots},\n    }};\n    \
         return tilec_aot_run({symbol}, args, grid_x, grid_y, grid_z, num_threads);\n}}\n",
        meta.entry_prototype()
    );
    if let Some(grid) = grid {
        out.push_str(grid::C_HELPERS);
        out.push_str(&default_functions(meta, grid));
    }
    out
}

/// The header and source of a dispatcher.
#[derive(Clone, Debug)]
pub struct LinkOutput {
    /// `NAME.h`.
    pub header: String,
    /// `NAME.c`.
    pub source: String,
}

fn link_error(message: String) -> Error {
    Error::new(codes::AOT_LINK, message)
}

/// A dispatcher `name` over the specializations whose headers are `headers` (`(file name,
/// text)`): every one of the same kernel, target, constants and runtime parameters.
pub fn link(headers: &[(String, String)], name: &str) -> Result<LinkOutput, Error> {
    check_name(name)?;
    if headers.is_empty() {
        return Err(link_error("`tilec aot-link` needs the headers of one or more specializations".into()));
    }
    let mut metas = Vec::new();
    for (file, text) in headers {
        let meta = Meta::parse(text).map_err(|e| link_error(format!("{file}: {e}")))?;
        if meta.name == name {
            return Err(link_error(format!(
                "{file}: the specialization is named `{name}` already; give the dispatcher another name"
            )));
        }
        metas.push((file, meta));
    }
    let (first_file, first) = &metas[0];
    let shape = |m: &Meta| m.params.iter().map(|p| (p.name.clone(), p.elem)).collect::<Vec<_>>();
    for (file, m) in &metas[1..] {
        let differs = if m.kernel != first.kernel {
            Some(format!("kernel `{}`, not `{}`", m.kernel, first.kernel))
        } else if m.target != first.target {
            Some(format!("target {}, not {}", m.target, first.target))
        } else if m.constants != first.constants {
            Some("other constants (a dispatcher picks by the runtime arguments only)".to_string())
        } else if shape(m) != shape(first) {
            Some("other runtime parameters".to_string())
        } else {
            None
        };
        if let Some(why) = differs {
            return Err(link_error(format!("{file} does not fit {first_file}: {why}")));
        }
        if let Some((other, _)) = metas.iter().find(|(_, o)| o.name == m.name && !std::ptr::eq(o, m)) {
            return Err(link_error(format!("{file} and {other} both define `{}`", m.name)));
        }
    }
    // The most specialized first; among equals, the order given.
    let mut order: Vec<&Meta> = metas.iter().map(|(_, m)| m).collect();
    order.sort_by_key(|m| std::cmp::Reverse(m.params.iter().filter(|p| p.spec != Spec::Any).count()));
    let dispatcher = Meta {
        name: name.to_string(),
        params: first.params.iter().map(|p| AotParam { spec: Spec::Any, ..p.clone() }).collect(),
        signature: String::new(),
        grid: metas.iter().all(|(_, m)| m.grid == first.grid).then(|| first.grid.clone()).flatten(),
        needs_sleef: metas.iter().any(|(_, m)| m.needs_sleef),
        ..first.clone()
    };
    let names: Vec<&str> = order.iter().map(|m| m.name.as_str()).collect();
    let what = format!(
        "dispatcher of kernel `{}` for {} over the specializations {}, made by tilec aot-link {}.",
        dispatcher.kernel,
        dispatcher.target,
        names.join(", "),
        env!("CARGO_PKG_VERSION")
    );
    let objects: Vec<String> = names.iter().map(|n| format!("{n}.o {n}.c")).collect();
    let mut build =
        format!(" * Build: compile {name}.c with the program and link {}, -lpthread and -lm.\n", objects.join(", "));
    if dispatcher.needs_sleef {
        build.push_str(" * A specialization calls SLEEF: link libsleef.a too (see its header).\n");
    }
    let header = format!(
        "{}\n{}",
        opening_comment(&dispatcher, &what, &build),
        header_body(&dispatcher, "; -2 when no specialization fits the arguments")
    );
    let mut source = source_prelude(&dispatcher);
    source.push('\n');
    for m in &order {
        let _ = writeln!(source, "{};", m.entry_prototype());
    }
    let _ = write!(source, "\n{} {{\n", dispatcher.entry_prototype());
    for m in &order {
        let conditions: Vec<String> = m.params.iter().filter_map(AotParam::c_condition).collect();
        let args: String = m.entry_params().map(|p| format!(", {}", p.c_name())).collect();
        let call = format!("return {}(grid_x, grid_y, grid_z, num_threads{args});", m.name);
        if conditions.is_empty() {
            // Every call fits this one: the ones after it are never taken.
            let _ = writeln!(source, "    {call}\n}}");
            break;
        }
        let _ = writeln!(source, "    if ({})\n        {call}", conditions.join(" && "));
    }
    if order.iter().all(|m| m.params.iter().any(|p| p.c_condition().is_some())) {
        let _ = writeln!(source, "    return -2;\n}}");
    }
    if let Some(text) = &dispatcher.grid {
        let grid = resolve_grid(text, &dispatcher, false).map_err(|d| Error::in_source(vec![d], "--grid", text))?;
        source.push_str(grid::C_HELPERS);
        source.push_str(&default_functions(&dispatcher, &grid));
    }
    Ok(LinkOutput { header, source })
}
