//! Fixture files: Triton sources whose leading comment lines say how to compile, run and
//! compare them.
//!
//! ```text
//! # tilec: -k KERNEL -s "SIGNATURE" [-c NAME=VALUE]...
//! # tilec-run: [-k KERNEL] --grid X[,Y[,Z]] NAME=VALUE...
//! # tilec-tolerance: OUTPUT[,OUTPUT]... [abs=A] [rel=R] [ulp=N] reason="WHY"
//! # triton-expect: OUTPUT VALUE...
//! # tilec-expect: OUTPUT VALUE...
//! ```
//!
//! - `# tilec:` holds the arguments of `tilec compile` that specialize a kernel; a file may
//!   have several (one per kernel or specialization).
//! - `# tilec-run:` holds the arguments of one `tilec run`; its kernel is its own `-k`, else
//!   the first `# tilec:` line's.
//! - `# tilec-tolerance:` lets the named outputs (`*`: every output) of the fixture's runs
//!   differ from the reference by the given amount (see [`Tolerance`]), for the reason
//!   given, which is required: a regrouped float sum, an approximated math function with
//!   its ULP bound. Without it outputs compare bit for bit.
//! - `# triton-expect:` states values of an output of the first run line as Triton 3.9.0
//!   computes them, `# tilec-expect:` as tilec defines what Triton leaves undefined; lines
//!   naming the same output continue each other.
//!
//! Header lines are the comment lines before the first line that is not a comment; any of
//! them that starts with `# tilec` must be one of the four `# tilec` forms. A header line is split
//! into words by [`split_words`], the one quoting rule: whitespace separates words, and
//! single or double quotes group (they have no escapes), as a POSIX shell without
//! backslashes splits it, so a header line pasted after `tilec compile` or `tilec run` in
//! a shell runs the same thing.

use std::path::{Path, PathBuf};

use tilec_diagnostics::Diagnostic;
use tilec_front::{ConstValue, SigItem};
use tilec_npy::ArraySource;

use crate::compare::Tolerance;

const COMPILE: &str = "# tilec:";
const RUN: &str = "# tilec-run:";
const TOLERANCE: &str = "# tilec-tolerance:";
const TRITON_EXPECT: &str = "# triton-expect:";
const TILEC_EXPECT: &str = "# tilec-expect:";
const PROGRAM_ORDER: &str = "# tilec-program-order:";

/// A fixture file: its name (the file stem), path, source and header lines.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub name: String,
    pub path: PathBuf,
    pub source: String,
    pub compile: Vec<CompileHeader>,
    pub runs: Vec<RunLine>,
    pub tolerances: Vec<DeclaredTolerance>,
    /// The values stated for outputs of the first run line (`# triton-expect:`,
    /// `# tilec-expect:`), one entry per output, in the order first named.
    pub expectations: Vec<StatedValues>,
    /// Why the outputs depend on the order the programs run in (`# tilec-program-order:`),
    /// as atomics' old values and compare-and-swap chains do: such a fixture is checked
    /// in grid order on one thread only.
    pub program_order: Option<String>,
}

/// The values a fixture states for one output, as written (`nan`, `-inf`, `-0.0`, integers).
#[derive(Clone, Debug, PartialEq)]
pub struct StatedValues {
    pub output: String,
    pub values: Vec<String>,
}

/// The arguments of a `# tilec:` line, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompileHeader {
    pub kernel: String,
    pub signature: String,
    pub constants: Vec<(String, String)>,
    /// `-I DIR`: where imported modules are searched (relative to the workspace root).
    pub include_dirs: Vec<PathBuf>,
}

/// One `# tilec-run:` line.
#[derive(Clone, Debug, PartialEq)]
pub struct RunLine {
    pub kernel: String,
    /// The `tilec run` arguments after the file and the kernel: `--grid ...` and the
    /// `name=VALUE` items.
    pub args: Vec<String>,
}

/// One `# tilec-tolerance:` line.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredTolerance {
    /// Output names; empty for `*`, every output.
    pub outputs: Vec<String>,
    pub tolerance: Tolerance,
}

impl Fixture {
    /// Reads and parses the fixture at `path`; the error names the file and line.
    pub fn load(path: &Path) -> Result<Fixture, String> {
        let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        Fixture::parse(&name, path, source)
    }

    /// A fixture given as text (a kernel written in a test), named `name` in messages.
    pub fn from_source(name: &str, source: &str) -> Result<Fixture, String> {
        Fixture::parse(name, Path::new(name), source.to_string())
    }

    /// Parses the header lines of `source`.
    pub fn parse(name: &str, path: &Path, source: String) -> Result<Fixture, String> {
        let mut compile = Vec::new();
        let mut run_lines = Vec::new();
        let mut tolerances = Vec::new();
        let mut expectations: Vec<StatedValues> = Vec::new();
        let mut program_order = None;
        for (number, line) in source.lines().enumerate().take_while(|(_, l)| l.starts_with('#')) {
            let at = |e: String| format!("{}:{}: {e}", path.display(), number + 1);
            if let Some(rest) = line.strip_prefix(COMPILE) {
                compile.push(CompileHeader::parse(&split_words(rest)).map_err(at)?);
            } else if let Some(rest) = line.strip_prefix(RUN) {
                run_lines.push(split_words(rest));
            } else if let Some(rest) = line.strip_prefix(TOLERANCE) {
                tolerances.push(DeclaredTolerance::parse(&split_words(rest)).map_err(at)?);
            } else if let Some(rest) = line.strip_prefix(TRITON_EXPECT).or_else(|| line.strip_prefix(TILEC_EXPECT)) {
                let mut words = rest.split_whitespace().map(str::to_string);
                let output = words.next().ok_or_else(|| at("an expectation without an output name".to_string()))?;
                match expectations.iter_mut().find(|e| e.output == output) {
                    Some(e) => e.values.extend(words),
                    None => expectations.push(StatedValues { output, values: words.collect() }),
                }
            } else if let Some(rest) = line.strip_prefix(PROGRAM_ORDER) {
                let reason = rest.trim();
                if reason.is_empty() {
                    return Err(at(format!("`{PROGRAM_ORDER}` needs the reason the outputs depend on program order")));
                }
                program_order = Some(reason.to_string());
            } else if line.starts_with("# tilec") {
                let form = line.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
                return Err(at(format!(
                    "unknown header line `{form}`: the header lines are `{COMPILE}`, `{RUN}`, `{TOLERANCE}`, `{TILEC_EXPECT}` and `{PROGRAM_ORDER}`"
                )));
            }
        }
        let default_kernel = compile.first().map(|h: &CompileHeader| h.kernel.clone());
        let runs = run_lines
            .into_iter()
            .map(|words| RunLine::from_words(words, default_kernel.as_deref()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Fixture {
            name: name.to_string(),
            path: path.to_path_buf(),
            source,
            compile,
            runs,
            tolerances,
            expectations,
            program_order,
        })
    }

    /// Every `*.py` file directly in `dir` (relative to the workspace root), sorted by name;
    /// panics naming the file whose header lines do not parse.
    pub fn all_in(dir: &str) -> Vec<Fixture> {
        let dir = crate::workspace_root().join(dir);
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "py"))
            .collect();
        paths.sort();
        paths.iter().map(|p| Fixture::load(p).unwrap_or_else(|e| panic!("{e}"))).collect()
    }

    /// `DIR/NAME.py` (relative to the workspace root); panics when missing or malformed.
    pub fn named(dir: &str, name: &str) -> Fixture {
        let path = crate::workspace_root().join(dir).join(format!("{name}.py"));
        Fixture::load(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The `# tilec:` line of `kernel`.
    pub fn compile_header(&self, kernel: &str) -> Option<&CompileHeader> {
        self.compile.iter().find(|h| h.kernel == kernel)
    }

    /// How output `name` of this fixture's runs compares: the declared tolerance naming it
    /// (or `*`), else bit for bit.
    pub fn tolerance(&self, output: &str) -> Tolerance {
        self.tolerances
            .iter()
            .find(|d| d.outputs.is_empty() || d.outputs.iter().any(|o| o == output))
            .map_or_else(Tolerance::exact, |d| d.tolerance.clone())
    }

    /// Parses this fixture and specializes `header`'s kernel to Tile IR; the error is the
    /// rendered diagnostics.
    pub fn specialize(&self, header: &CompileHeader) -> Result<tilec_ir::Function, String> {
        let root = crate::workspace_root();
        let include: Vec<PathBuf> = header.include_dirs.iter().map(|d| root.join(d)).collect();
        let program = tilec_syntax::load(&self.name, &self.path, &self.source, &include)
            .map_err(|(files, ds)| files.render(&ds))?;
        let signature = header.signature_items().map_err(|ds| program.files.render(&ds))?;
        tilec_front::specialize_program(&program, &header.kernel, &signature, &header.constant_values())
            .map_err(|ds| program.files.render(&ds))
    }
}

impl CompileHeader {
    fn parse(words: &[String]) -> Result<CompileHeader, String> {
        let mut header = CompileHeader::default();
        let mut it = words.iter();
        while let Some(word) = it.next() {
            let mut value = || it.next().cloned().ok_or_else(|| format!("`{word}` needs a value"));
            match word.as_str() {
                "-k" => header.kernel = value()?,
                "-s" => header.signature = value()?,
                "-c" => {
                    let item = value()?;
                    let (name, v) =
                        item.split_once('=').ok_or_else(|| format!("constant `{item}` is not NAME=VALUE"))?;
                    header.constants.push((name.trim().to_string(), v.trim().to_string()));
                }
                "-I" => header.include_dirs.push(PathBuf::from(value()?)),
                other => return Err(format!("unknown word `{other}` (a `{COMPILE}` line takes -k, -s, -c and -I)")),
            }
        }
        if header.kernel.is_empty() {
            return Err(format!("a `{COMPILE}` line needs `-k KERNEL`"));
        }
        Ok(header)
    }

    /// The signature, parsed as `tilec compile -s` parses it.
    pub fn signature_items(&self) -> Result<Vec<SigItem>, Vec<Diagnostic>> {
        tilec_front::parse_signature(&self.signature)
    }

    /// The constexpr values, parsed as `tilec compile -c` parses them.
    pub fn constant_values(&self) -> Vec<(String, ConstValue)> {
        self.constants.iter().map(|(k, v)| (k.clone(), tilec_front::parse_const_value(v))).collect()
    }
}

impl RunLine {
    fn from_words(mut args: Vec<String>, default_kernel: Option<&str>) -> Result<RunLine, String> {
        let own = match args.iter().position(|a| a == "-k") {
            Some(i) if i + 1 < args.len() => {
                let name = args.remove(i + 1);
                args.remove(i);
                Some(name)
            }
            Some(_) => return Err(format!("`{RUN}` ends with `-k` and no kernel")),
            None => None,
        };
        let kernel = own
            .or_else(|| default_kernel.map(str::to_string))
            .ok_or_else(|| format!("`{RUN}` names no kernel and there is no `{COMPILE} -k KERNEL` line"))?;
        Ok(RunLine { kernel, args })
    }

    /// The names of the array arguments (`name=zeros:...`, `name=@file.npy`, ...), which
    /// `tilec run --out DIR` saves as `DIR/name.npy`: a `desc:BLOCK:ARRAY` descriptor's
    /// array is `name`, the arrays of a `ptrs:ARRAY,...` table `name.0`, `name.1`, ...
    pub fn array_names(&self) -> Vec<String> {
        let is_array = |v: &str| ArraySource::parse(v).is_some();
        let mut names = Vec::new();
        for (name, value) in self.args.iter().filter_map(|a| a.split_once('=')) {
            if let Some(table) = value.strip_prefix("ptrs:") {
                let count = table.split(',').filter(|item| is_array(item)).count();
                names.extend((0..count).map(|i| format!("{name}.{i}")));
            } else if is_array(value) || value.starts_with("desc:") {
                names.push(name.to_string());
            }
        }
        names
    }

    /// The names of the output arrays: those the line creates with `zeros:`.
    pub fn output_names(&self) -> Vec<String> {
        output_names(&self.args)
    }

    /// The arguments as one line (for messages).
    pub fn text(&self) -> String {
        format!("-k {} {}", self.kernel, self.args.join(" "))
    }
}

impl DeclaredTolerance {
    fn parse(words: &[String]) -> Result<DeclaredTolerance, String> {
        let usage = format!("expected `{TOLERANCE} OUTPUT[,OUTPUT]... [abs=A] [rel=R] [ulp=N] reason=\"WHY\"`");
        let (first, rest) = words.split_first().ok_or_else(|| usage.clone())?;
        let outputs = if first == "*" { Vec::new() } else { first.split(',').map(str::to_string).collect() };
        let mut tolerance = Tolerance::exact();
        for word in rest {
            let (key, value) = word.split_once('=').ok_or_else(|| format!("`{word}`: {usage}"))?;
            let float = || value.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
            let bad = || format!("`{word}`: not a non-negative number");
            match key {
                "abs" => tolerance.abs = float().ok_or_else(bad)?,
                "rel" => tolerance.rel = float().ok_or_else(bad)?,
                "ulp" => tolerance.ulp = value.parse().map_err(|_| bad())?,
                "reason" if !value.trim().is_empty() => tolerance.reason = Some(value.trim().to_string()),
                _ => return Err(format!("`{word}`: {usage}")),
            }
        }
        if tolerance.is_exact() {
            return Err(format!("no amount given: {usage}"));
        }
        if tolerance.reason.is_none() {
            return Err(format!("a tolerance needs its reason: {usage}"));
        }
        Ok(DeclaredTolerance { outputs, tolerance })
    }
}

/// The names of the arrays `tilec run` arguments `args` create with `zeros:`: a kernel's
/// outputs, by the convention of the fixtures and the generator.
pub fn output_names(args: &[String]) -> Vec<String> {
    args.iter()
        .filter_map(|a| a.split_once('='))
        .filter(|(_, v)| matches!(ArraySource::parse(v), Some(Ok(ArraySource::Zeros { .. }))))
        .map(|(n, _)| n.to_string())
        .collect()
}

/// Splits a header line into words: whitespace separates words; single or double quotes
/// group, without escapes (`-s "*fp32:16, i32"` is two words; `''` is an empty word).
pub fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(source: &str) -> Result<Fixture, String> {
        Fixture::parse("k", Path::new("k.py"), source.to_string())
    }

    #[test]
    fn words_split_like_a_shell_without_escapes() {
        assert_eq!(
            split_words(r#" -k add -s "*fp32:16, i32" -c 'A=x y' -c B=1"#),
            ["-k", "add", "-s", "*fp32:16, i32", "-c", "A=x y", "-c", "B=1"]
        );
        assert_eq!(split_words(r#"a"b c"d '' "it's""#), ["ab cd", "", "it's"]);
    }

    #[test]
    fn headers_parse_into_compile_run_and_tolerance_lines() {
        let f = parse(
            "# tilec: -k add -s \"*fp32:16, i32\" -c BLOCK=64 -c D=tl.float16\n\
             # tilec: -k other -s \"i32\"\n\
             # a comment\n\
             # tilec-run: --grid 4 x=rand:fp32:256 y=zeros:fp32:256 n=256 BLOCK=64\n\
             # tilec-run: -k other --grid 1 n=3\n\
             # tilec-tolerance: y,z ulp=1 abs=1e-6 reason=\"exp: SLEEF's on RVV, libm's in the interpreter\"\n\
             import triton\n\
             # tilec: not a header\n",
        )
        .unwrap();
        assert_eq!(f.compile.len(), 2);
        assert_eq!(f.compile[0].signature, "*fp32:16, i32");
        assert_eq!(
            f.compile[0].constants,
            [("BLOCK".to_string(), "64".to_string()), ("D".into(), "tl.float16".into())]
        );
        assert_eq!(f.runs[0].kernel, "add");
        assert_eq!(f.runs[0].array_names(), ["x", "y"]);
        assert_eq!(
            f.runs[1],
            RunLine { kernel: "other".into(), args: vec!["--grid".into(), "1".into(), "n=3".into()] }
        );
        let y = f.tolerance("y");
        assert_eq!((y.ulp, y.abs, y.rel), (1, 1e-6, 0.0));
        assert_eq!(y.reason.as_deref(), Some("exp: SLEEF's on RVV, libm's in the interpreter"));
        assert!(f.tolerance("x").is_exact());
        assert!(!parse("# tilec-tolerance: * rel=1e-3 reason=sums\n").unwrap().tolerance("q").is_exact());
        assert_eq!(f.program_order, None);
        let ordered = parse("# tilec-program-order: old values follow the grid\n").unwrap();
        assert_eq!(ordered.program_order.as_deref(), Some("old values follow the grid"));
    }

    #[test]
    fn malformed_headers_are_errors_naming_the_line() {
        for (source, needle) in [
            ("# tilec: -k a -z 3\n", "k.py:1: unknown word `-z`"),
            ("# tilec: -s \"i32\"\n", "needs `-k KERNEL`"),
            ("# tilec: -k a -c N\n", "constant `N` is not NAME=VALUE"),
            ("#\n# tilec-rn: -k a\n", "k.py:2: unknown header line `# tilec-rn:`"),
            ("# tilec-run: --grid 1\n", "names no kernel"),
            ("# tilec: -k a\n# tilec-tolerance: y ulp=2\n", "needs its reason"),
            ("# tilec: -k a\n# tilec-tolerance: y reason=why\n", "no amount given"),
            ("# tilec: -k a\n# tilec-tolerance: y abs=-1 reason=why\n", "not a non-negative number"),
            ("# tilec-program-order:\n", "needs the reason"),
        ] {
            let err = parse(source).unwrap_err();
            assert!(err.contains(needle), "{source:?}: {err}");
        }
    }

    /// The generator writes header lines; they read back as what it generated.
    #[test]
    fn generated_kernels_headers_read_back() {
        for seed in 0..200 {
            let k = tilec_kernelgen::generate(seed);
            let f = Fixture::from_source("kernel.py", &k.source).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert_eq!(f.compile.len(), 1, "seed {seed}");
            assert_eq!(
                (f.compile[0].kernel.as_str(), f.compile[0].signature.as_str()),
                (k.name.as_str(), k.signature.as_str())
            );
            let constants: Vec<(String, String)> =
                k.constants.iter().map(|(n, v)| (n.clone(), v.to_string())).collect();
            assert_eq!(f.compile[0].constants, constants, "seed {seed}");
            assert_eq!(f.runs, [RunLine { kernel: k.name.clone(), args: k.run_args.clone() }], "seed {seed}");
        }
    }
}
