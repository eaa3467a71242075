//! The arguments of `tilec run`: `name=VALUE` items parsed, bound to the kernel's declared
//! parameters, and turned into a specialization (signature + constexpr values) the way
//! Triton's JIT specializes a call.
//!
//! Invariant: [`Binding::runtime`] lists exactly the parameters that remain in the
//! specialized kernel (no constexpr, no int specialized to 1), in declaration order — the
//! order of the kernel's argument slots and of `Function::params`.

use tilec_diagnostics::Diagnostic;
use tilec_front::{ConstValue, KernelParam, SigItem};
use tilec_ir::ScalarType;

use crate::cli_error::codes;
pub use tilec::launch::{RuntimeArg, RuntimeValue};
use tilec_npy::{ArraySource, HostArray, Number};

/// The value of one `name=VALUE` item, as written.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    Array(ArraySource),
    /// `ptrs:SOURCE,SOURCE,...`: a table of the addresses of these arrays (`*i64`).
    Pointers(Vec<ArraySource>),
    /// `desc:BLOCK:SOURCE`: a host tensor descriptor of the array, blocks of shape `BLOCK`.
    Descriptor {
        block: Vec<u32>,
        source: ArraySource,
    },
    Int(i128),
    Float(f64),
    /// Anything else (`True`, `tl.float16`, ...): only a constexpr parameter takes it.
    Other(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct NamedArg {
    pub name: String,
    /// The text after `=`.
    pub text: String,
    pub value: ArgValue,
}

/// Parses `name=VALUE`.
pub fn parse_arg(item: &str) -> Result<NamedArg, Diagnostic> {
    let bad = |why: String| Diagnostic::error(codes::BAD_ARGUMENT, format!("argument `{item}`: {why}"));
    let Some((name, text)) = item.split_once('=') else {
        return Err(bad("expected NAME=VALUE".into()).with_note(ARG_FORMS));
    };
    let (name, text) = (name.trim(), text.trim());
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(bad(format!("`{name}` is not a parameter name")));
    }
    let value = parse_value(text).map_err(|why| bad(why).with_note(ARG_FORMS))?;
    Ok(NamedArg { name: name.to_string(), text: text.to_string(), value })
}

const ARG_FORMS: &str = "an argument is one of: name=@file.npy, name=zeros:DTYPE:SHAPE, \
    name=rand:DTYPE:SHAPE[:SEED], name=arange:DTYPE:SHAPE, name=ptrs:ARRAY,ARRAY,... (a table of \
    array addresses), name=desc:BLOCK:ARRAY (a tensor descriptor, e.g. desc:64x32:@a.npy), name=INT, \
    name=FLOAT, NAME=VALUE (constexpr)";

/// How array sources start (a `,` inside `ptrs:` starts a new array only before one of these).
const ARRAY_PREFIXES: [&str; 4] = ["@", "zeros:", "rand:", "arange:"];

fn parse_value(text: &str) -> Result<ArgValue, String> {
    if let Some(list) = text.strip_prefix("ptrs:") {
        let mut items: Vec<String> = Vec::new();
        for piece in list.split(',') {
            match items.last_mut() {
                Some(last) if !ARRAY_PREFIXES.iter().any(|p| piece.trim_start().starts_with(p)) => {
                    last.push(',');
                    last.push_str(piece);
                }
                _ => items.push(piece.to_string()),
            }
        }
        let sources = items
            .iter()
            .map(|item| match parse_value(item.trim())? {
                ArgValue::Array(source) => Ok(source),
                _ => Err(format!("`{item}` in `ptrs:` is not an array (@file.npy, zeros:, rand: or arange:)")),
            })
            .collect::<Result<Vec<_>, String>>()?;
        if sources.is_empty() || list.trim().is_empty() {
            return Err("`ptrs:` needs at least one array".into());
        }
        return Ok(ArgValue::Pointers(sources));
    }
    if let Some(rest) = text.strip_prefix("desc:") {
        let (block, source) = rest.split_once(':').ok_or("expected desc:BLOCK:ARRAY, e.g. desc:64x32:@a.npy")?;
        let block = tilec_npy::parse_shape(block)?
            .into_iter()
            .map(|d| u32::try_from(d).ok().filter(|d| d.is_power_of_two()))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| format!("the block shape `{block}` of `desc:` must have power-of-two dimensions"))?;
        let ArgValue::Array(source) = parse_value(source)? else {
            return Err(format!("`{source}` in `desc:` is not an array (@file.npy, zeros:, rand: or arange:)"));
        };
        return Ok(ArgValue::Descriptor { block, source });
    }
    if let Some(array) = ArraySource::parse(text) {
        return array.map(ArgValue::Array);
    }
    if let Ok(i) = text.parse::<i128>() {
        return Ok(ArgValue::Int(i));
    }
    let looks_numeric = text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.');
    if looks_numeric {
        if let Ok(f) = text.parse::<f64>() {
            return Ok(ArgValue::Float(f));
        }
    }
    if text.is_empty() {
        return Err("the value is empty".into());
    }
    Ok(ArgValue::Other(text.to_string()))
}

/// Arguments bound to a kernel's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// One item per non-constexpr parameter, in order.
    pub signature: Vec<SigItem>,
    pub constants: Vec<(String, ConstValue)>,
    pub runtime: Vec<RuntimeArg>,
}

impl Binding {
    /// The signature as Triton prints it (`*fp32:16, i32, ...`), for messages.
    pub fn signature_text(&self) -> String {
        self.signature
            .iter()
            .filter_map(|item| match item {
                SigItem::Ptr { pointee, divisibility } => {
                    Some(with_divisibility(format!("*{}", pointee.name()), *divisibility))
                }
                SigItem::Scalar { equal_to_one: true, .. } => Some("1".to_string()),
                SigItem::Scalar { ty, divisibility, .. } => {
                    Some(with_divisibility(ty.name().to_string(), *divisibility))
                }
                SigItem::Constexpr(_) => None,
                SigItem::TensorDesc { elem, block } => {
                    let dims: Vec<String> = block.iter().map(|d| d.to_string()).collect();
                    Some(format!("tensordesc<{}[{}]>", elem.name(), dims.join(", ")))
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn with_divisibility(text: String, divisibility: u32) -> String {
    if divisibility > 1 {
        format!("{text}:{divisibility}")
    } else {
        text
    }
}

/// Divisibility Triton assumes for pointers and ints that are multiples of 16 (runner
/// buffers are 16-byte aligned, so every array qualifies).
const DIVISIBILITY: u32 = 16;

/// Binds `args` to `params` (declaration order), loading or generating the arrays.
pub fn bind(kernel: &str, params: &[KernelParam], args: &[NamedArg]) -> Result<Binding, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        if args[..i].iter().any(|earlier| earlier.name == arg.name) {
            errors.push(Diagnostic::error(codes::BAD_ARGUMENT, format!("argument `{}` is given twice", arg.name)));
        }
        if !params.iter().any(|p| p.name == arg.name) {
            let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            errors.push(
                Diagnostic::error(codes::EXTRA_ARGUMENT, format!("kernel `{kernel}` has no parameter `{}`", arg.name))
                    .with_note(format!("its parameters are: {}", names.join(", "))),
            );
        }
    }
    let mut binding = Binding { signature: Vec::new(), constants: Vec::new(), runtime: Vec::new() };
    for param in params {
        let Some(arg) = args.iter().find(|a| a.name == param.name) else {
            if param.has_heuristic {
                // The front end computes it from the other arguments.
            } else if !param.has_default {
                let kind = if param.constexpr { "constexpr parameter" } else { "argument" };
                errors.push(Diagnostic::error(
                    codes::MISSING_ARGUMENT,
                    format!("missing {kind} `{}` of kernel `{kernel}`", param.name),
                ));
            } else if !param.constexpr {
                // As Triton's launcher: a left-out argument takes its default, specialized
                // like a value passed in the call.
                let result = match &param.default {
                    Some(ConstValue::Int(i)) => {
                        bind_runtime(&default_arg(param, ArgValue::Int(*i), i.to_string()), &mut binding)
                    }
                    Some(ConstValue::Float(x)) => {
                        bind_runtime(&default_arg(param, ArgValue::Float(*x), x.to_string()), &mut binding)
                    }
                    Some(ConstValue::Bool(b)) => {
                        let text = if *b { "True" } else { "False" }.to_string();
                        bind_runtime(&default_arg(param, ArgValue::Other(text.clone()), text), &mut binding)
                    }
                    Some(other) => {
                        binding.constants.push((param.name.clone(), other.clone()));
                        Ok(())
                    }
                    None => Err(Diagnostic::error(
                        codes::MISSING_ARGUMENT,
                        format!("missing argument `{}` of kernel `{kernel}`", param.name),
                    )
                    .with_note("its default is not a literal; `tilec run` takes only literal defaults")),
                };
                if let Err(e) = result {
                    errors.push(e);
                }
            }
            continue;
        };
        let result =
            if param.constexpr { bind_constexpr(param, arg, &mut binding) } else { bind_runtime(arg, &mut binding) };
        if let Err(e) = result {
            errors.push(e);
        }
    }
    if errors.is_empty() {
        Ok(binding)
    } else {
        Err(errors)
    }
}

/// The argument a parameter's literal default stands for.
fn default_arg(param: &KernelParam, value: ArgValue, text: String) -> NamedArg {
    NamedArg { name: param.name.clone(), text, value }
}

fn bind_constexpr(param: &KernelParam, arg: &NamedArg, binding: &mut Binding) -> Result<(), Diagnostic> {
    if let ArgValue::Array(_) | ArgValue::Pointers(_) | ArgValue::Descriptor { .. } = arg.value {
        return Err(Diagnostic::error(
            codes::CONSTEXPR_RUNTIME_VALUE,
            format!(
                "`{}` is a tl.constexpr parameter: it takes a compile-time value, not the array `{}`",
                param.name, arg.text
            ),
        ));
    }
    binding.constants.push((param.name.clone(), tilec_front::parse_const_value(&arg.text)));
    Ok(())
}

fn bind_runtime(arg: &NamedArg, binding: &mut Binding) -> Result<(), Diagnostic> {
    let (item, value) = match &arg.value {
        ArgValue::Array(source) => {
            let array = load_array(&arg.name, source)?;
            let item = SigItem::Ptr { pointee: array.dtype, divisibility: DIVISIBILITY };
            (item, Some(RuntimeValue::Array(array)))
        }
        ArgValue::Pointers(sources) => {
            let arrays = sources
                .iter()
                .enumerate()
                .map(|(k, source)| load_array(&format!("{}.{k}", arg.name), source))
                .collect::<Result<Vec<_>, _>>()?;
            let item = SigItem::Ptr { pointee: ScalarType::I64, divisibility: DIVISIBILITY };
            (item, Some(RuntimeValue::Pointers(arrays)))
        }
        ArgValue::Descriptor { block, source } => return bind_descriptor(arg, block, source, binding),
        ArgValue::Int(1) => (SigItem::Scalar { ty: ScalarType::I32, divisibility: 1, equal_to_one: true }, None),
        ArgValue::Int(i) => {
            let ty = if i32::try_from(*i).is_ok() {
                ScalarType::I32
            } else if i64::try_from(*i).is_ok() {
                ScalarType::I64
            } else if u64::try_from(*i).is_ok() {
                ScalarType::U64
            } else {
                return Err(Diagnostic::error(
                    codes::BAD_ARGUMENT,
                    format!("argument `{}`: {i} does not fit in 64 bits", arg.name),
                ));
            };
            let divisibility = if i % i128::from(DIVISIBILITY) == 0 { DIVISIBILITY } else { 1 };
            let value = if ty == ScalarType::U64 { Number::UInt(*i as u64) } else { Number::Int(*i as i64) };
            (SigItem::Scalar { ty, divisibility, equal_to_one: false }, Some(RuntimeValue::Scalar { ty, value }))
        }
        ArgValue::Float(f) => (
            SigItem::Scalar { ty: ScalarType::F32, divisibility: 1, equal_to_one: false },
            Some(RuntimeValue::Scalar { ty: ScalarType::F32, value: Number::Float(*f) }),
        ),
        ArgValue::Other(text) if text == "True" || text == "False" => (
            SigItem::Scalar { ty: ScalarType::I1, divisibility: 1, equal_to_one: false },
            Some(RuntimeValue::Scalar { ty: ScalarType::I1, value: Number::Int(i64::from(text == "True")) }),
        ),
        ArgValue::Other(text) => {
            return Err(Diagnostic::error(
                codes::BAD_ARGUMENT,
                format!("argument `{}`: `{text}` is neither an array nor a number", arg.name),
            )
            .with_note(ARG_FORMS))
        }
    };
    binding.signature.push(item);
    if let Some(value) = value {
        binding.runtime.push(RuntimeArg { name: arg.name.clone(), value });
    }
    Ok(())
}

/// A host tensor descriptor of a C-ordered array (Triton's `TensorDescriptor.from_tensor`):
/// the array, then its shape (`i32`) and its strides but the last (`i64`, in elements), in
/// the order of the kernel's parameters (`tilec_front::signature::descriptor_params`).
fn bind_descriptor(
    arg: &NamedArg,
    block: &[u32],
    source: &ArraySource,
    binding: &mut Binding,
) -> Result<(), Diagnostic> {
    let bad = |why: String| Diagnostic::error(codes::BAD_ARGUMENT, format!("argument `{}`: {why}", arg.name));
    let array = load_array(&arg.name, source)?;
    let shape = array.shape.clone();
    if shape.len() != block.len() {
        return Err(bad(format!(
            "the block shape {block:?} has {} dimensions but the array has {}",
            block.len(),
            shape.len()
        )));
    }
    let bytes = u64::from(array.dtype.bytes());
    if u64::from(block[block.len() - 1]) * bytes < 16 {
        return Err(bad("the last block dimension must cover at least 16 bytes".into()));
    }
    let strides: Vec<u64> = (0..shape.len()).map(|d| shape[d + 1..].iter().product()).collect();
    if let Some(s) = strides[..strides.len() - 1].iter().find(|&&s| (s * bytes) % 16 != 0) {
        return Err(bad(format!(
            "a stride of {s} elements is {} bytes; tensor descriptor strides must be multiples of 16 bytes",
            s * bytes
        )));
    }
    if let Some(d) = shape.iter().find(|&&d| i32::try_from(d).is_err()) {
        return Err(bad(format!("dimension {d} does not fit in int32")));
    }
    binding.signature.push(SigItem::TensorDesc { elem: array.dtype, block: block.to_vec() });
    binding.runtime.push(RuntimeArg { name: arg.name.clone(), value: RuntimeValue::Array(array) });
    for (d, &n) in shape.iter().enumerate() {
        let value = RuntimeValue::Scalar { ty: ScalarType::I32, value: Number::Int(n as i64) };
        binding.runtime.push(RuntimeArg { name: format!("{}_shape_{d}", arg.name), value });
    }
    for (d, &s) in strides[..strides.len() - 1].iter().enumerate() {
        let value = RuntimeValue::Scalar { ty: ScalarType::I64, value: Number::Int(s as i64) };
        binding.runtime.push(RuntimeArg { name: format!("{}_stride_{d}", arg.name), value });
    }
    Ok(())
}

fn load_array(name: &str, source: &ArraySource) -> Result<HostArray, Diagnostic> {
    let result = match source {
        ArraySource::File(path) => HostArray::read_npy(path).map_err(|e| (codes::BAD_NPY, e)),
        ArraySource::Fp8File { path, dtype } => HostArray::read_npy_fp8(path, *dtype).map_err(|e| (codes::BAD_NPY, e)),
        ArraySource::Zeros { dtype, shape } => HostArray::zeros(*dtype, shape).map_err(|e| (codes::BAD_ARGUMENT, e)),
        ArraySource::Arange { dtype, shape } => HostArray::arange(*dtype, shape).map_err(|e| (codes::BAD_ARGUMENT, e)),
        ArraySource::Random { dtype, shape, seed } => {
            let seed = seed.unwrap_or_else(|| name_seed(name));
            HostArray::random(*dtype, shape, seed).map_err(|e| (codes::BAD_ARGUMENT, e))
        }
    };
    result.map_err(|(code, message)| Diagnostic::error(code, format!("argument `{name}`: {message}")))
}

/// The default seed of `rand:` is derived from the argument's name, so `x` and `y` differ.
fn name_seed(name: &str) -> u64 {
    name.bytes().fold(0x5eed, |h: u64, b| h.rotate_left(8) ^ u64::from(b).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use tilec_diagnostics::Span;

    fn param(name: &str, constexpr: bool) -> KernelParam {
        KernelParam {
            name: name.into(),
            constexpr,
            has_default: false,
            has_heuristic: false,
            default: None,
            span: Span::DUMMY,
        }
    }

    #[test]
    fn left_out_arguments_take_their_literal_defaults() {
        let with_default = |name: &str, constexpr: bool, d: Option<ConstValue>| KernelParam {
            name: name.into(),
            constexpr,
            has_default: true,
            has_heuristic: false,
            default: d,
            span: Span::DUMMY,
        };
        let params = [
            param("x", false),
            with_default("eps", false, Some(ConstValue::Float(1e-5))),
            with_default("n", false, Some(ConstValue::Int(64))),
            with_default("one", false, Some(ConstValue::Int(1))),
            with_default("flag", false, Some(ConstValue::Bool(true))),
            with_default("act", false, Some(ConstValue::Str("relu".into()))),
            with_default("B", true, Some(ConstValue::Int(128))),
        ];
        let b = bind("k", &params, &args(&["x=zeros:fp32:8"])).unwrap();
        assert_eq!(b.signature_text(), "*fp32:16, fp32, i32:16, 1, i1");
        assert_eq!(b.constants, vec![("act".to_string(), ConstValue::Str("relu".into()))]);
        let names: Vec<&str> = b.runtime.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["x", "eps", "n", "flag"]);
        let computed = with_default("m", false, None);
        let errs = bind("k", &[computed], &[]).unwrap_err();
        assert_eq!(errs[0].code, codes::MISSING_ARGUMENT);
    }

    fn args(items: &[&str]) -> Vec<NamedArg> {
        items.iter().map(|i| parse_arg(i).unwrap()).collect()
    }

    #[test]
    fn values_parse_into_their_forms() {
        assert_eq!(parse_arg("n=4000").unwrap().value, ArgValue::Int(4000));
        assert_eq!(
            parse_arg("t=ptrs:zeros:fp16:64,32,@a.npy,rand:i32:4:7").unwrap().value,
            ArgValue::Pointers(vec![
                ArraySource::Zeros { dtype: ScalarType::F16, shape: vec![64, 32] },
                ArraySource::File(PathBuf::from("a.npy")),
                ArraySource::Random { dtype: ScalarType::I32, shape: vec![4], seed: Some(7) },
            ])
        );
        assert_eq!(parse_arg("s=0.5").unwrap().value, ArgValue::Float(0.5));
        assert_eq!(
            parse_arg("x=rand:fp16:64x32:3").unwrap().value,
            ArgValue::Array(ArraySource::Random { dtype: ScalarType::F16, shape: vec![64, 32], seed: Some(3) })
        );
        assert_eq!(parse_arg("D=tl.float16").unwrap().value, ArgValue::Other("tl.float16".into()));
        assert_eq!(
            parse_arg("d=desc:64x32:rand:fp16:256x128").unwrap().value,
            ArgValue::Descriptor {
                block: vec![64, 32],
                source: ArraySource::Random { dtype: ScalarType::F16, shape: vec![256, 128], seed: None }
            }
        );
        for bad in [
            "x",
            "x=zeros:fp32",
            "x=zeros:f99:4",
            "x=zeros:fp32:0",
            "x=rand:i32:4:s",
            "=3",
            "t=ptrs:",
            "t=ptrs:3",
            "d=desc:64x3:zeros:fp32:64x64",
            "d=desc:64x32",
            "d=desc:64:5",
        ] {
            assert_eq!(parse_arg(bad).unwrap_err().code, codes::BAD_ARGUMENT, "{bad}");
        }
    }

    #[test]
    fn binding_specializes_like_triton() {
        let params = [
            param("x", false),
            param("n", false),
            param("one", false),
            param("big", false),
            param("flag", false),
            param("B", true),
        ];
        let b = bind(
            "k",
            &params,
            &args(&["x=zeros:fp32:100", "n=4000", "one=1", "big=3000000001", "flag=True", "B=1024"]),
        )
        .unwrap();
        assert_eq!(b.signature_text(), "*fp32:16, i32:16, 1, i64, i1");
        assert_eq!(b.constants, vec![("B".to_string(), tilec_front::parse_const_value("1024"))]);
        let names: Vec<&str> = b.runtime.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["x", "n", "big", "flag"]);
    }

    #[test]
    fn descriptors_expand_to_base_shape_and_strides() {
        let params = [param("d", false), param("B", true)];
        let b = bind("k", &params, &args(&["d=desc:16x8:zeros:fp32:64x24", "B=4"])).unwrap();
        assert_eq!(b.signature_text(), "tensordesc<fp32[16, 8]>");
        let names: Vec<&str> = b.runtime.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["d", "d_shape_0", "d_shape_1", "d_stride_0"]);
        assert_eq!(b.runtime[3].value, RuntimeValue::Scalar { ty: ScalarType::I64, value: Number::Int(24) });
        let errs = bind("k", &params, &args(&["d=desc:16x8:zeros:fp32:64x25", "B=4"])).unwrap_err();
        assert!(errs[0].message.contains("multiples of 16 bytes"), "{}", errs[0].message);
    }

    #[test]
    fn scalar_slots_follow_the_abi() {
        let neg = RuntimeValue::Scalar { ty: ScalarType::I32, value: Number::Int(-2) };
        assert_eq!(neg.scalar_slot(), Some(u64::MAX - 1));
        let half = RuntimeValue::Scalar { ty: ScalarType::F32, value: Number::Float(0.5) };
        assert_eq!(half.scalar_slot(), Some(u64::from(0.5f32.to_bits())));
    }

    #[test]
    fn binding_errors_name_the_argument() {
        let params = [param("x", false), param("B", true)];
        let errs = bind("k", &params, &args(&["B=zeros:i32:4", "y=3"])).unwrap_err();
        let codes_seen: Vec<_> = errs.iter().map(|d| d.code).collect();
        assert_eq!(codes_seen, [codes::EXTRA_ARGUMENT, codes::MISSING_ARGUMENT, codes::CONSTEXPR_RUNTIME_VALUE]);
        assert!(errs[0].message.contains("`y`"));
        assert!(errs[1].message.contains("`x`"));
    }
}
