//! Prints the encoder's test cases as an assembly file (canonical syntax, one
//! instruction per line, `#` section comments). `tests/data/gen.sh` feeds the output to
//! `llvm-mc` to record the expected encodings.

#[path = "../tests/common/cases.rs"]
mod cases;

fn main() {
    for section in cases::sections() {
        println!("# {}", section.title);
        for inst in &section.insts {
            println!("{}", inst.canonical());
        }
    }
}
