//! Code size: the budget table `bench/code_size.tsv` (the largest `.text` each listed
//! kernel's shared object may have on riscv64gcv and riscv64gc) and the `.text` size of an
//! ELF file. `tests/code_size.rs` fails when a kernel outgrows its budget; `cargo xtask
//! bench` reports the sizes beside the budgets in `BENCHMARKS.md`.

use crate::fixture::CompileHeader;

/// The budget table, relative to the workspace root.
pub const BUDGETS: &str = "bench/code_size.tsv";

/// tilec's targets, in the order of a row's budgets.
pub const TARGETS: [&str; 2] = ["riscv64gcv", "riscv64gc"];

/// The most `.text` a tutorial kernel may have on riscv64gcv: about a core's first-level
/// instruction cache.
pub const TUTORIAL_LIMIT: u64 = 64 * 1024;

/// One kernel of the budget table.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// A benchmark's name (as in `xtask/src/bench/suite.rs`), or `tutorial NN: ...`.
    pub name: String,
    /// The kernel file, relative to the workspace root.
    pub file: String,
    /// What `tilec compile` is given: kernel, signature, constants.
    pub header: CompileHeader,
    /// The largest `.text` (bytes) allowed on each of [`TARGETS`].
    pub budgets: [u64; 2],
}

impl Case {
    /// A kernel of one of Triton's tutorials, bound by [`TUTORIAL_LIMIT`] on riscv64gcv.
    pub fn is_tutorial(&self) -> bool {
        self.name.starts_with("tutorial")
    }

    /// Whether `text` (bytes on each of [`TARGETS`]) is within the budgets (and a
    /// tutorial's within [`TUTORIAL_LIMIT`] on riscv64gcv).
    pub fn fits(&self, text: [u64; 2]) -> bool {
        let limit = if self.is_tutorial() { TUTORIAL_LIMIT } else { u64::MAX };
        text[0] <= self.budgets[0].min(limit) && text[1] <= self.budgets[1]
    }
}

/// The rows of the budget table `text`: tab-separated name, file, kernel, signature,
/// constants (`NAME=VALUE`, space-separated), budget riscv64gcv, budget riscv64gc; `#` lines
/// are comments.
pub fn parse(text: &str) -> Result<Vec<Case>, String> {
    let rows = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    rows.map(|line| {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, file, kernel, signature, constants, gcv, gc] = fields[..] else {
            return Err(format!("{BUDGETS}: not 7 tab-separated fields: {line}"));
        };
        let budget = |b: &str| b.parse::<u64>().map_err(|_| format!("{BUDGETS}: `{b}` is not a byte count: {line}"));
        let constants = constants
            .split_whitespace()
            .map(|c| {
                let (k, v) = c.split_once('=').ok_or_else(|| format!("{BUDGETS}: `{c}` is not NAME=VALUE: {line}"))?;
                Ok((k.to_string(), v.to_string()))
            })
            .collect::<Result<_, String>>()?;
        Ok(Case {
            name: name.to_string(),
            file: file.to_string(),
            header: CompileHeader {
                kernel: kernel.to_string(),
                signature: signature.to_string(),
                constants,
                include_dirs: Vec::new(),
            },
            budgets: [budget(gcv)?, budget(gc)?],
        })
    })
    .collect()
}

/// The budget table of the workspace.
pub fn cases() -> Result<Vec<Case>, String> {
    let path = crate::workspace_root().join(BUDGETS);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&text)
}

/// Bytes of the `.text` section of an ELF64 little-endian file; `None` when `elf` is not
/// one (or is cut short) or has no `.text`.
pub fn text_bytes(elf: &[u8]) -> Option<u64> {
    let bytes = |at: usize, n: usize| elf.get(at..at.checked_add(n)?);
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes(at, 2)?.try_into().ok()?) as usize);
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes(at, 4)?.try_into().ok()?) as usize);
    let u64_at = |at: usize| Some(u64::from_le_bytes(bytes(at, 8)?.try_into().ok()?));
    if bytes(0, 6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    // Section headers: table offset, entry size, count, index of the section names.
    let table = usize::try_from(u64_at(0x28)?).ok()?;
    let (entry, count, names) = (u16_at(0x3a)?, u16_at(0x3c)?, u16_at(0x3e)?);
    let header = |i: usize| table.checked_add(i.checked_mul(entry)?);
    let strings = usize::try_from(u64_at(header(names)?.checked_add(0x18)?)?).ok()?;
    (0..count).find_map(|i| {
        let name = strings.checked_add(u32_at(header(i)?)?)?;
        (bytes(name, 6)? == b".text\0").then(|| u64_at(header(i)?.checked_add(0x20)?)).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_and_bad_rows_are_errors() {
        let text = "# comment\nadd\tk.py\tadd\t*fp32, i32\tB=4 C=x\t100\t200\n\n";
        let cases = parse(text).unwrap();
        assert_eq!(cases.len(), 1);
        let constants = vec![("B".to_string(), "4".to_string()), ("C".to_string(), "x".to_string())];
        assert_eq!(cases[0].header.constants, constants);
        assert_eq!(cases[0].budgets, [100, 200]);
        assert!(cases[0].fits([100, 200]) && !cases[0].fits([101, 200]) && !cases[0].fits([100, 201]));
        assert!(parse("a\tb\tc\n").is_err());
        assert!(parse("a\tb\tc\td\tB=4\tlots\t1\n").is_err());
        assert!(parse("a\tb\tc\td\tB\t1\t1\n").is_err());
    }

    #[test]
    fn tutorials_are_bound_by_the_instruction_cache() {
        let case = parse("tutorial 01: add\tk.py\tadd\t*fp32\t\t999999\t999999\n").unwrap().remove(0);
        assert!(case.fits([TUTORIAL_LIMIT, 1]) && !case.fits([TUTORIAL_LIMIT + 1, 1]));
    }

    /// A minimal ELF64 file: the header, the section names, then the section headers of
    /// `sections` (name, size) and of the names.
    fn elf(sections: &[(&str, u64)]) -> Vec<u8> {
        let mut names = vec![0u8];
        let mut offsets = Vec::new();
        for (name, _) in sections.iter().chain([&(".shstrtab", 0)]) {
            offsets.push(names.len() as u32);
            names.extend(name.bytes().chain([0]));
        }
        let table = 64 + names.len() as u64;
        let mut out = vec![0u8; 64];
        out[..6].copy_from_slice(b"\x7fELF\x02\x01");
        out[0x28..0x30].copy_from_slice(&table.to_le_bytes());
        out[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        out[0x3c..0x3e].copy_from_slice(&(sections.len() as u16 + 1).to_le_bytes());
        out[0x3e..0x40].copy_from_slice(&(sections.len() as u16).to_le_bytes());
        out.extend(&names);
        for (i, offset) in offsets.iter().enumerate() {
            let mut header = [0u8; 64];
            header[..4].copy_from_slice(&offset.to_le_bytes());
            let (file_offset, size) = match sections.get(i) {
                Some(&(_, size)) => (0u64, size),
                None => (64, names.len() as u64),
            };
            header[0x18..0x20].copy_from_slice(&file_offset.to_le_bytes());
            header[0x20..0x28].copy_from_slice(&size.to_le_bytes());
            out.extend(header);
        }
        out
    }

    #[test]
    fn text_bytes_reads_the_text_section() {
        let file = elf(&[(".data", 8), (".text", 1234), (".bss", 16)]);
        assert_eq!(text_bytes(&file), Some(1234));
        assert_eq!(text_bytes(&elf(&[(".data", 8)])), None, "no .text");
        assert_eq!(text_bytes(&elf(&[(".texts", 8)])), None, "a longer name is another section");
        for cut in 0..file.len() {
            let got = text_bytes(&file[..cut]);
            assert!(got.is_none() || (cut > 64 && got == Some(1234)), "cut to {cut} bytes: {got:?}");
        }
        let mut elf32 = file.clone();
        elf32[4] = 1;
        assert_eq!(text_bytes(&elf32), None, "ELF32 is not read");
    }
}
