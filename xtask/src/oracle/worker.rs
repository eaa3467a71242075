//! A long-lived Python process running `run_triton.py`: one JSON job per line in, one JSON
//! answer per line out (the protocol is described in that script). A job that takes longer
//! than its timeout, or a process that dies (a fault in Triton's native code), is an answer
//! too; the process is then restarted for the next job.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{json, Value};

/// How a kernel argument reaches Python.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// An array, from this `.npy` file.
    Array(PathBuf),
    Int(String),
    Float(String),
    Bool(String),
    /// Python text evaluated with `tl` and `triton` in scope (`tl.float16`).
    Expr(String),
}

/// One kernel launch in Triton.
#[derive(Clone, Debug)]
pub struct Job {
    pub file: PathBuf,
    pub kernel: String,
    pub grid: [u64; 3],
    /// Where every array argument is saved as NAME.npy after the run.
    pub out: PathBuf,
    pub args: Vec<(String, ArgValue)>,
}

/// What Triton did with a job.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// The kernel ran; its arrays are in the job's `out` directory.
    Ran,
    /// Triton rejected the kernel or failed running it (its message).
    Rejected(String),
    /// No answer within the timeout.
    TimedOut,
    /// The Python process died (its last stderr lines).
    Crashed(String),
}

pub struct Worker {
    python: PathBuf,
    script: PathBuf,
    process: Option<Process>,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
}

impl Worker {
    pub fn new(python: &Path, script: &Path) -> Worker {
        Worker { python: python.to_path_buf(), script: script.to_path_buf(), process: None }
    }

    fn start(&self) -> Result<Process, String> {
        let mut child = Command::new(&self.python)
            .arg(&self.script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.python.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (send, answers) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let lines: Vec<String> = BufReader::new(stderr).lines().map_while(|l| l.ok()).collect();
            lines[lines.len().saturating_sub(12)..].join("\n")
        });
        Ok(Process { child, stdin, answers, stderr })
    }

    /// Runs `job`, waiting at most `timeout` for its answer.
    pub fn run(&mut self, job: &Job, timeout: Duration) -> Result<Answer, String> {
        if self.process.is_none() {
            self.process = Some(self.start()?);
        }
        let process = self.process.as_mut().ok_or("no process")?;
        let line = job_json(job).to_string() + "\n";
        let sent = process.stdin.write_all(line.as_bytes()).and_then(|_| process.stdin.flush());
        let answer = match sent
            .map_err(|_| RecvTimeoutError::Disconnected)
            .and_then(|_| process.answers.recv_timeout(timeout))
        {
            Ok(text) => return parse_answer(&text),
            Err(RecvTimeoutError::Timeout) => Answer::TimedOut,
            Err(RecvTimeoutError::Disconnected) => Answer::Crashed(String::new()),
        };
        let mut dead = self.process.take().ok_or("no process")?;
        let _ = dead.child.kill();
        let _ = dead.child.wait();
        Ok(match answer {
            Answer::Crashed(_) => Answer::Crashed(dead.stderr.join().unwrap_or_default()),
            other => other,
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut process) = self.process.take() {
            drop(process.stdin);
            let _ = process.child.wait();
        }
    }
}

fn job_json(job: &Job) -> Value {
    let args: Vec<Value> = job
        .args
        .iter()
        .map(|(name, value)| {
            let (kind, text) = match value {
                ArgValue::Array(path) => ("array", path.display().to_string()),
                ArgValue::Int(t) => ("int", t.clone()),
                ArgValue::Float(t) => ("float", t.clone()),
                ArgValue::Bool(t) => ("bool", t.clone()),
                ArgValue::Expr(t) => ("expr", t.clone()),
            };
            json!([name, kind, text])
        })
        .collect();
    json!({
        "file": job.file.display().to_string(),
        "kernel": job.kernel,
        "grid": job.grid,
        "out": job.out.display().to_string(),
        "args": args,
    })
}

fn parse_answer(text: &str) -> Result<Answer, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("the oracle answered `{text}`: {e}"))?;
    if value["ok"] == Value::Bool(true) {
        return Ok(Answer::Ran);
    }
    let error = value["error"].as_str().unwrap_or("an error without a message");
    Ok(Answer::Rejected(error.to_string()))
}

/// The job for a kernel launched as `tilec run` would with the words `run_args` (`--grid
/// X,Y,Z` and `name=VALUE` items), reading every array from `inputs/NAME.npy` (as `tilec
/// run --save-inputs` wrote them).
pub fn job_for(file: &Path, kernel: &str, run_args: &[String], inputs: &Path, out: &Path) -> Result<Job, String> {
    let mut grid = [1u64; 3];
    let mut args = Vec::new();
    let mut words = run_args.iter();
    while let Some(word) = words.next() {
        if word == "--grid" {
            let text = words.next().ok_or("`--grid` needs a value")?;
            for (slot, d) in grid.iter_mut().zip(text.split([',', 'x'])) {
                *slot = d.trim().parse().map_err(|_| format!("bad grid `{text}`"))?;
            }
            continue;
        }
        let (name, value) = word.split_once('=').ok_or_else(|| format!("`{word}` is not NAME=VALUE"))?;
        let is_array = tilec_testkit::ArraySource::parse(value).is_some();
        let value = if is_array {
            ArgValue::Array(inputs.join(format!("{name}.npy")))
        } else if value.parse::<i128>().is_ok() {
            ArgValue::Int(value.to_string())
        } else if value.parse::<f64>().is_ok() && value.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c)) {
            ArgValue::Float(value.to_string())
        } else if value == "True" || value == "False" {
            ArgValue::Bool(value.to_string())
        } else {
            ArgValue::Expr(value.to_string())
        };
        args.push((name.to_string(), value));
    }
    Ok(Job { file: file.to_path_buf(), kernel: kernel.to_string(), grid, out: out.to_path_buf(), args })
}
