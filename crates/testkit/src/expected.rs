//! The outputs the real Triton computed for a conformance fixture, as committed text.
//!
//! `cargo xtask oracle --bless` writes `fixtures/conformance/expected/NAME.txt` for
//! `fixtures/conformance/NAME.py`; `tests/conformance.rs` reads it. Per
//! `# tilec-run:` line, in order, either every output array (the arrays the line creates with
//! `zeros:`) or the error with which Triton rejected the kernel:
//!
//! ```text
//! run --grid 1 x_ptr=rand:i8:64 out_ptr=zeros:i8:64
//!   out_ptr i8 64
//!     1 -2 3 ...
//! run --grid 1 x_ptr=rand:u8:64 out_ptr=zeros:u8:64
//!   rejected: ValueError: ...
//! ```
//!
//! Invariant: values are exact — integers in decimal, floats as the shortest decimal that
//! reads back to the same `f64` (every fp16/bf16/fp32 value is one), `NaN`, `inf`, `-inf`,
//! `-0.0` — so parsing what [`Expected::render`] wrote gives the same elements.

use tilec_npy::{HostArray, Number};

/// One output array.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectedArray {
    pub name: String,
    /// The short dtype name (`fp32`, `u8`, ...).
    pub dtype: String,
    pub shape: Vec<u64>,
    pub values: Vec<Number>,
}

/// What Triton did with one run line.
#[derive(Clone, Debug, PartialEq)]
pub enum RunOutcome {
    Outputs(Vec<ExpectedArray>),
    /// Triton rejected the kernel (its error's first line).
    Rejected(String),
}

/// One run line and its outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct RunExpectation {
    /// The words of the `# tilec-run:` line, joined by single spaces.
    pub run: String,
    pub outcome: RunOutcome,
}

/// Everything Triton computed for one fixture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expected {
    pub runs: Vec<RunExpectation>,
}

/// The first line of the expectation files.
pub const HEADER: &str =
    "# Outputs of the real Triton (3.9.0's interpreter, see docs/oracle.md); written by `cargo xtask oracle --bless`.";

const VALUES_PER_LINE: usize = 16;

impl ExpectedArray {
    /// The array's elements, read from `array`.
    pub fn of(name: &str, array: &HostArray) -> ExpectedArray {
        ExpectedArray {
            name: name.to_string(),
            dtype: array.dtype.name().to_string(),
            shape: array.shape.clone(),
            values: (0..array.len()).map(|i| array.get(i)).collect(),
        }
    }
}

impl Expected {
    pub fn render(&self) -> String {
        let mut text = format!("{HEADER}\n");
        for run in &self.runs {
            text.push_str(&format!("run {}\n", run.run));
            match &run.outcome {
                RunOutcome::Rejected(error) => text.push_str(&format!("  rejected: {error}\n")),
                RunOutcome::Outputs(arrays) => {
                    for array in arrays {
                        let shape: Vec<String> = array.shape.iter().map(u64::to_string).collect();
                        text.push_str(&format!("  {} {} {}\n", array.name, array.dtype, shape.join("x")));
                        for chunk in array.values.chunks(VALUES_PER_LINE) {
                            let words: Vec<String> = chunk.iter().map(|v| number_text(*v)).collect();
                            text.push_str(&format!("    {}\n", words.join(" ")));
                        }
                    }
                }
            }
        }
        text
    }

    pub fn parse(text: &str) -> Result<Expected, String> {
        let mut expected = Expected::default();
        for (i, line) in text.lines().enumerate() {
            let bad = |why: &str| format!("line {}: {why}: `{line}`", i + 1);
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if let Some(run) = line.strip_prefix("run ") {
                expected.runs.push(RunExpectation { run: run.to_string(), outcome: RunOutcome::Outputs(Vec::new()) });
                continue;
            }
            let Some(current) = expected.runs.last_mut() else { return Err(bad("no `run` line before this")) };
            if let Some(error) = line.strip_prefix("  rejected: ") {
                current.outcome = RunOutcome::Rejected(error.to_string());
            } else if let Some(values) = line.strip_prefix("    ") {
                let RunOutcome::Outputs(arrays) = &mut current.outcome else {
                    return Err(bad("values after rejected"));
                };
                let Some(array) = arrays.last_mut() else { return Err(bad("values before an array line")) };
                let float = matches!(array.dtype.as_str(), "fp16" | "bf16" | "fp32" | "fp64");
                for word in values.split_whitespace() {
                    array.values.push(parse_number(word, float).ok_or_else(|| bad("not a number"))?);
                }
            } else if let Some(head) = line.strip_prefix("  ") {
                let RunOutcome::Outputs(arrays) = &mut current.outcome else { return Err(bad("array after rejected")) };
                let words: Vec<&str> = head.split_whitespace().collect();
                let [name, dtype, shape] = words[..] else { return Err(bad("expected `NAME DTYPE SHAPE`")) };
                let shape =
                    shape.split('x').map(str::parse).collect::<Result<Vec<u64>, _>>().map_err(|_| bad("shape"))?;
                arrays.push(ExpectedArray { name: name.into(), dtype: dtype.into(), shape, values: Vec::new() });
            } else {
                return Err(bad("unexpected line"));
            }
        }
        for run in &expected.runs {
            if let RunOutcome::Outputs(arrays) = &run.outcome {
                for a in arrays {
                    if a.values.len() as u64 != a.shape.iter().product::<u64>() {
                        return Err(format!(
                            "run `{}`: `{}` has {} values for shape {:?}",
                            run.run,
                            a.name,
                            a.values.len(),
                            a.shape
                        ));
                    }
                }
            }
        }
        Ok(expected)
    }
}

fn number_text(value: Number) -> String {
    match value {
        Number::Int(i) => i.to_string(),
        Number::UInt(u) => u.to_string(),
        // `{:?}` is the shortest text that reads back to the same f64 (`NaN`, `inf`, `-0.0`)
        Number::Float(x) => format!("{x:?}"),
    }
}

fn parse_number(word: &str, float: bool) -> Option<Number> {
    if float {
        return word.parse::<f64>().ok().map(Number::Float);
    }
    match word.parse::<i64>() {
        Ok(i) => Some(Number::Int(i)),
        Err(_) => word.parse::<u64>().ok().map(Number::UInt),
    }
}
