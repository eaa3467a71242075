//! The AST of a Triton source file: the kernel-relevant subset of Python.
//!
//! Invariants: every node carries the byte [`Span`] of its source text; the AST knows
//! nothing of the parser generator (the grammar builds these types, nothing else does);
//! host code outside `@triton.jit` functions and imports never reaches the AST.
//! Unsupported Python constructs that can appear inside a kernel (lambda, comprehensions,
//! `with`, `try`, nested `def`, ...) are still represented (as [`ExprKind::Unsupported`] /
//! [`StmtKind::Unsupported`]) so that the front end can reject them with a precise span.

pub use tilec_diagnostics::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole source file after top-level filtering.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub imports: Vec<Import>,
    pub functions: Vec<FunctionDef>,
    /// Top-level assignments to one name, in source order (a later one rebinds the name).
    pub globals: Vec<Global>,
    /// The names of the top-level functions without `@triton.jit` (host Python, not parsed).
    pub host_functions: Vec<Ident>,
}

/// A module-level `NAME = value` or `NAME: annotation = value`. Kernels may read it only
/// when it is a constexpr (`tl.constexpr(...)` or annotated `tl.constexpr`); the front end
/// decides.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: Ident,
    pub annotation: Option<Expr>,
    /// The assigned value; `None` when the line is host Python this grammar does not parse.
    pub value: Option<Expr>,
    pub span: Span,
}

/// What a decorated function is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FunctionKind {
    /// `@triton.jit`: a kernel or a helper inlined into kernels.
    #[default]
    Jit,
    /// `@triton.constexpr_function`: plain Python run at compile time on constexpr values.
    ConstexprFunction,
}

/// `import a.b as c` or `from a.b import c as d, e`.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// Dotted module path (`triton.language`); for `from` imports, the module imported from.
    pub module: Vec<Ident>,
    /// For `from m import x as y`: the imported names and their aliases. Empty for `import m`.
    pub names: Vec<(Ident, Option<Ident>)>,
    /// For `import m as a`: the alias.
    pub alias: Option<Ident>,
    pub is_from: bool,
    /// The leading dots of a relative import (`from ..m import x`: 2); 0 for absolute ones.
    pub level: u32,
    pub span: Span,
}

/// A function decorated with `@triton.jit` (possibly below autotune/heuristics decorators)
/// or `@triton.constexpr_function`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub name: Ident,
    /// The names of the `def`s and `class`es this function is defined in, outermost first
    /// (empty at module level).
    pub scope: Vec<String>,
    pub kind: FunctionKind,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    /// All decorators, outermost first, as written.
    pub decorators: Vec<Expr>,
    /// Decoded `@triton.autotune(configs=[...], key=[...])`, if present.
    pub autotune: Option<Autotune>,
    /// Decoded `@triton.heuristics({...})`: parameter name → expression (a lambda over `args`).
    pub heuristics: Vec<(Ident, Expr)>,
    /// The span of a `@triton.heuristics(...)` table that is not a dict literal (host code
    /// such as `get_heuristic_config("softmax")`, not decoded: the parameters it sets must
    /// be given as constants).
    pub heuristics_from_host: Option<Span>,
    /// `@triton.jit(...)` keyword arguments (`do_not_specialize`, `noinline`, ...).
    pub jit_kwargs: Vec<Keyword>,
    pub docstring: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub annotation: Option<Expr>,
    pub default: Option<Expr>,
    pub kind: ParamKind,
    pub span: Span,
}

/// How a parameter receives its argument, as in Python.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ParamKind {
    /// By position or by keyword.
    #[default]
    Positional,
    /// `*name`: the positional arguments left over, as a tuple.
    VarArgs,
    /// After `*name` or a bare `*`: by keyword only.
    KeywordOnly,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Autotune {
    pub configs: Vec<AutotuneConfig>,
    /// The span of a `configs=` expression that is not a list literal (host code such as
    /// `get_autotune_config()`, not decoded: `configs` is then empty).
    pub configs_from_host: Option<Span>,
    /// `key=[...]` parameter names.
    pub key: Vec<String>,
    /// The span of the `key` list (the decorator's when there is none).
    pub key_span: Span,
    /// `reset_to_zero=[...]` parameter names.
    pub reset_to_zero: Vec<String>,
    /// `restore_value=[...]` parameter names.
    pub restore_value: Vec<String>,
    /// Every other keyword argument (`prune_configs_by`, `warmup`, `pre_hook`, ...), in
    /// source order.
    pub options: Vec<Keyword>,
    pub span: Span,
}

/// One `triton.Config({...}, num_warps=.., num_stages=..)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AutotuneConfig {
    /// The constexpr values of the config dict, in source order.
    pub kwargs: Vec<(String, Expr)>,
    /// Other keyword arguments (`num_warps`, `num_stages`, ...).
    pub options: Vec<Keyword>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its effect (`tl.store(...)`, a docstring).
    Expr(Expr),
    /// `a = b = value`; each target may be a name, tuple, attribute or subscript.
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    /// `target op= value`.
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    /// `target: annotation = value`.
    AnnAssign {
        target: Expr,
        annotation: Expr,
        value: Option<Expr>,
    },
    /// `if`/`elif`/`else`: an `elif` is an `If` alone in `orelse`.
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    Return(Option<Expr>),
    Pass,
    Break,
    Continue,
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    /// A statement the grammar recognizes but kernels may not use; `what` names it
    /// (`"with statement"`, `"nested function definition"`, ...).
    Unsupported {
        what: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    /// Integer literal; Python ints are unbounded, kernels use at most 64 bits (+ sign).
    Int(i128),
    Float(f64),
    /// String literal (prefixes and escapes already resolved; f-strings are `Unsupported`).
    Str(String),
    Bool(bool),
    None,
    /// `...`
    Ellipsis,
    Attribute {
        value: Box<Expr>,
        attr: Ident,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        keywords: Vec<Keyword>,
    },
    /// `value[i]`, `value[:, None]`, `value[a, b]`: one entry per comma-separated index.
    Subscript {
        value: Box<Expr>,
        index: Vec<Expr>,
    },
    /// `lower:upper:step` inside a subscript.
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    BinOp {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// `a and b and c` / `a or b`.
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    /// `a < b <= c`: chained comparisons.
    Compare {
        left: Box<Expr>,
        ops: Vec<CmpOp>,
        comparators: Vec<Expr>,
    },
    /// `body if test else orelse`
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    /// `lambda args: body` (accepted in decorators such as heuristics; rejected in kernels).
    Lambda {
        params: Vec<Ident>,
        body: Box<Expr>,
    },
    /// `*x` in a call or tuple.
    Starred(Box<Expr>),
    /// A construct parsed only to be rejected: `what` names it (`"list comprehension"`,
    /// `"f-string"`, `"walrus operator"`, ...).
    Unsupported {
        what: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    /// `None` for `**kwargs`.
    pub name: Option<Ident>,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`
    Div,
    /// `//`
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    LShift,
    RShift,
    BitAnd,
    BitOr,
    BitXor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `~x`
    Invert,
    /// `not x`
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

impl BinOp {
    /// The Python spelling of the operator.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
        }
    }
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}
