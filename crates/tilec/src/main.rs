//! The `tilec` command-line tool.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "tilec", version, about = "Compile Triton kernels to RISC-V 64 and run them")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum EmitStage {
    Ast,
    Tile,
    Vector,
    Asm,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a kernel: print a stage (--emit) or write an object / shared object (-o).
    Compile {
        /// The Triton source file.
        file: PathBuf,
        /// Name of the @triton.jit kernel.
        #[arg(short = 'k', long = "kernel")]
        kernel: String,
        /// Signature as in Triton's compile.py: "*fp32:16, *fp32:16, i32, 1024".
        #[arg(short = 's', long = "signature", default_value = "")]
        signature: String,
        /// Constexpr value: NAME=VALUE (repeatable).
        #[arg(short = 'c', long = "constant", value_name = "NAME=VALUE")]
        constants: Vec<String>,
        /// Stage to print.
        #[arg(long, value_enum)]
        emit: Option<EmitStage>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Compile { file, kernel, signature, constants, emit } => {
            let source = match std::fs::read_to_string(&file) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", file.display());
                    return ExitCode::FAILURE;
                }
            };
            let file_name = file.display().to_string();
            let render = |d: Vec<tilec::diagnostics::Diagnostic>| {
                eprint!("{}", tilec::diagnostics::render(&file_name, &source, &d));
                ExitCode::FAILURE
            };
            let signature = match tilec_front::parse_signature(&signature) {
                Ok(s) => s,
                Err(d) => return render(vec![d]),
            };
            let mut consts = Vec::new();
            for c in &constants {
                let Some((n, v)) = c.split_once('=') else {
                    eprintln!("error: constant `{c}` is not NAME=VALUE");
                    return ExitCode::FAILURE;
                };
                consts.push((n.trim().to_string(), tilec_front::parse_const_value(v.trim())));
            }
            let req = tilec::Request {
                file_name: &file_name,
                source: &source,
                kernel: &kernel,
                signature,
                constants: consts,
            };
            let compiler = tilec::Compiler::new(tilec::Target::Riscv64gc);
            match compiler.compile_tile(&req) {
                Ok(out) => {
                    match emit {
                        Some(EmitStage::Ast) => print!("{}", out.ast),
                        Some(EmitStage::Tile) | None => print!("{}", out.tile),
                        Some(EmitStage::Vector) | Some(EmitStage::Asm) => {
                            eprintln!("error: this stage is not available yet");
                            return ExitCode::FAILURE;
                        }
                    }
                    ExitCode::SUCCESS
                }
                Err(d) => render(d),
            }
        }
    }
}
