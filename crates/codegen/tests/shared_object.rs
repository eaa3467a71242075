//! The in-process linker (`tilec_codegen::shared_object`) on every fixture and both RISC-V
//! targets: every object links in process (no fallback to `rust-lld`), those that call SLEEF
//! with the members of `libsleef.a` they need, and the result has the structure of
//! `rust-lld`'s shared object of the same object (the same exported functions with the same
//! sizes, the same imports and needed libraries where there are imports, the same code size)
//! and loads cleanly (page-aligned, non-overlapping segments with their permissions, a
//! non-executable stack, only eager `R_RISCV_64`/`R_RISCV_RELATIVE` dynamic relocations, no
//! text relocations). That each one runs as the `rust-lld` one does is checked under qemu by
//! `tests/end_to_end.rs`.

use std::path::{Path, PathBuf};

use object::elf;
use object::read::elf::{Dyn as _, ElfFile64, FileHeader as _, ProgramHeader as _, Rela as _, SectionHeader as _};
use object::{LittleEndian, Object, ObjectSection, ObjectSymbol};
use tilec_testkit::Fixture;

/// What the loader sees of a shared object.
#[derive(Debug, PartialEq, Eq)]
struct Shape {
    /// Defined dynamic symbols: name, kind, size.
    exports: Vec<(String, object::SymbolKind, u64)>,
    /// Undefined dynamic symbols.
    imports: Vec<String>,
    needed: Vec<String>,
    text_bytes: u64,
}

fn shape(so: &[u8]) -> Shape {
    let file = ElfFile64::<LittleEndian>::parse(so).expect("a readable ELF64 file");
    let mut exports = Vec::new();
    let mut imports = Vec::new();
    for sym in file.dynamic_symbols() {
        let name = sym.name().expect("a UTF-8 name").to_string();
        if sym.is_undefined() {
            imports.push(name);
        } else {
            exports.push((name, sym.kind(), sym.size()));
        }
    }
    exports.sort_by(|a, b| a.0.cmp(&b.0));
    imports.sort();
    let endian = file.endian();
    let mut needed = Vec::new();
    for section in file.elf_section_table().iter() {
        if let Some((entries, link)) = section.dynamic(endian, so).expect("a readable .dynamic") {
            let strings = file.elf_section_table().strings(endian, so, link).expect("its string table");
            for d in entries {
                if d.d_tag(endian) == elf::DT_NEEDED {
                    needed.push(String::from_utf8(d.string(endian, strings).unwrap().to_vec()).unwrap());
                }
            }
        }
    }
    let text_bytes = file.section_by_name(".text").map_or(0, |s| s.size());
    Shape { exports, imports, needed, text_bytes }
}

/// Checks what the loader relies on; an error says what is wrong.
fn check_loadable(so: &[u8]) -> Result<(), String> {
    let file = ElfFile64::<LittleEndian>::parse(so).map_err(|e| e.to_string())?;
    let endian = file.endian();
    let header = file.elf_header();
    if header.e_type(endian) != elf::ET_DYN || header.e_machine(endian) != elf::EM_RISCV {
        return Err("not a riscv64 shared object".into());
    }
    let mut loads: Vec<(u64, u64, u32)> = Vec::new();
    let mut stack = None;
    let mut dynamic = false;
    for ph in file.elf_program_headers() {
        let (offset, vaddr, flags) = (ph.p_offset(endian), ph.p_vaddr(endian), ph.p_flags(endian));
        match ph.p_type(endian) {
            elf::PT_LOAD => {
                let align = ph.p_align(endian);
                if align != 0x1000 || offset % align != vaddr % align {
                    return Err(format!("segment at {vaddr:#x}: offset {offset:#x}, alignment {align:#x}"));
                }
                if ph.p_filesz(endian) > ph.p_memsz(endian) || offset + ph.p_filesz(endian) > so.len() as u64 {
                    return Err(format!("segment at {vaddr:#x} runs past its memory or the file"));
                }
                loads.push((vaddr, vaddr + ph.p_memsz(endian), flags));
            }
            elf::PT_GNU_STACK => stack = Some(flags),
            elf::PT_DYNAMIC => dynamic = true,
            _ => {}
        }
    }
    if stack != Some(elf::PF_R | elf::PF_W) {
        return Err(format!("stack flags {stack:?}, expected a non-executable stack"));
    }
    if !dynamic {
        return Err("no PT_DYNAMIC".into());
    }
    loads.sort();
    for pair in loads.windows(2) {
        if pair[0].1 > pair[1].0 {
            return Err(format!("segments {pair:x?} overlap"));
        }
    }
    if loads.iter().any(|&(_, _, f)| f & elf::PF_W != 0 && f & elf::PF_X != 0) {
        return Err("a writable and executable segment".into());
    }
    // Every allocated section lies in a segment with its permissions.
    for section in file.elf_section_table().iter() {
        let flags = section.sh_flags(endian);
        if flags & u64::from(elf::SHF_ALLOC) == 0 || section.sh_size(endian) == 0 {
            continue;
        }
        let (start, end) = (section.sh_addr(endian), section.sh_addr(endian) + section.sh_size(endian));
        let segment = loads.iter().find(|&&(s, e, _)| s <= start && end <= e);
        let Some(&(_, _, seg_flags)) = segment else {
            return Err(format!("section at {start:#x} is in no segment"));
        };
        let wants_x = flags & u64::from(elf::SHF_EXECINSTR) != 0;
        let wants_w = flags & u64::from(elf::SHF_WRITE) != 0;
        if wants_x != (seg_flags & elf::PF_X != 0) || wants_w != (seg_flags & elf::PF_W != 0) {
            return Err(format!("section at {start:#x} is in a segment with flags {seg_flags:#x}"));
        }
        if let Some((relas, _)) = section.rela(endian, so).map_err(|e| e.to_string())? {
            for r in relas {
                let kind = r.r_type(endian, false);
                if kind != elf::R_RISCV_64 && kind != elf::R_RISCV_RELATIVE {
                    return Err(format!("dynamic relocation of type {kind}"));
                }
                let at = r.r_offset(endian);
                if !loads.iter().any(|&(s, e, f)| s <= at && at + 8 <= e && f & elf::PF_W != 0) {
                    return Err(format!("dynamic relocation at {at:#x} outside writable memory"));
                }
            }
        }
    }
    Ok(())
}

/// `libsleef.a` of the set-up cache.
fn sleef_archive() -> PathBuf {
    let layout = tilec_toolchain::Layout::from_env().unwrap_or_else(|e| panic!("{e} (run `cargo xtask setup`)"));
    let path = layout.sleef_lib_dir().join(tilec_codegen::SLEEF_ARCHIVE);
    assert!(path.is_file(), "{} is missing: run `cargo xtask setup`", path.display());
    path
}

/// How much larger the in-process `.text` of a kernel calling SLEEF may be than rust-lld's:
/// the calls between SLEEF functions it relaxes (a kernel's SLEEF functions make one or two).
const SLEEF_RELAXED_BYTES: u64 = 16;

/// Links every fixture's object for both RISC-V targets whose SLEEF references are `sleef`,
/// in process (with `archive`) and with `rust-lld`, and compares the two; returns how many
/// objects were compared.
fn compare_fixture_links(sleef: bool, archive: Option<&Path>, failures: &mut Vec<String>) -> usize {
    let mut linked = 0;
    let library_dirs: Vec<PathBuf> = archive.iter().filter_map(|a| a.parent()).map(Path::to_path_buf).collect();
    let link = |object: &[u8]| match archive {
        Some(archive) => tilec_codegen::shared_object::link_with_archive(object, archive),
        None => tilec_codegen::shared_object::link(object),
    };
    for dir in ["fixtures", "fixtures/math", "fixtures/regressions", "fixtures/limits"] {
        for f in Fixture::all_in(dir) {
            for header in &f.compile {
                let function = f.specialize(header).unwrap_or_else(|e| panic!("{e}"));
                let function = tilec_opt::optimize(&function, &tilec_opt::Options::default()).0;
                let Ok(lowered) = tilec_vector::lower(&function) else { continue };
                for target in [tilec_codegen::Target::Riscv64gc, tilec_codegen::Target::Riscv64gcv] {
                    let label = format!("{dir}/{}.py ({}, {target:?})", f.name, header.kernel);
                    let Ok(compiled) = tilec_codegen::compile(&lowered, target) else { continue };
                    if tilec_codegen::link::references_sleef(&compiled.object) != sleef {
                        continue;
                    }
                    let ours = match link(&compiled.object) {
                        Ok(so) => so,
                        Err(e) => {
                            failures.push(format!("{label}: not linked in process: {e}"));
                            continue;
                        }
                    };
                    let theirs = tilec_codegen::link_shared_with_lld(&compiled.object, &library_dirs)
                        .unwrap_or_else(|d| panic!("{label}: {d}"));
                    if let Err(e) = check_loadable(&ours) {
                        failures.push(format!("{label}: {e}"));
                    }
                    // rust-lld names libm.so.6 always (its stand-in libm is on the command
                    // line); the in-process linker only when the object imports anything.
                    let (mut a, mut b) = (shape(&ours), shape(&theirs));
                    if b.imports.is_empty() && b.needed == ["libm.so.6"] {
                        b.needed.clear();
                    }
                    // rust-lld relaxes the calls inside SLEEF (`call` to `jal`, 4 bytes less
                    // each); the in-process linker relaxes nothing.
                    if sleef && (b.text_bytes..=b.text_bytes + SLEEF_RELAXED_BYTES).contains(&a.text_bytes) {
                        a.text_bytes = b.text_bytes;
                    }
                    if a != b {
                        failures.push(format!("{label}: in process {a:?}\n  rust-lld {b:?}"));
                    }
                    if link(&compiled.object).as_ref() != Ok(&ours) {
                        failures.push(format!("{label}: a second link gives other bytes"));
                    }
                    linked += 1;
                }
            }
        }
    }
    linked
}

#[test]
fn every_fixture_links_in_process_like_rust_lld() {
    let mut failures = Vec::new();
    let linked = compare_fixture_links(false, None, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(linked >= 150, "only {linked} objects linked");
}

/// SLEEF's members come in through the archive's symbol index, only the sections reached
/// are kept (the `.text` equals `rust-lld --gc-sections`'), and none of their symbols is
/// exported.
#[test]
fn every_fixture_calling_sleef_links_in_process_like_rust_lld() {
    let archive = sleef_archive();
    let mut failures = Vec::new();
    let linked = compare_fixture_links(true, Some(&archive), &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(linked >= 20, "only {linked} objects calling SLEEF linked");
}

#[test]
fn imports_are_bound_eagerly_through_the_got() {
    // A kernel calling libm's logf on riscv64gc: one GOT entry with an R_RISCV_64
    // relocation against logf, and libm.so.6 needed.
    let f = Fixture::named("fixtures/math", "log");
    let header = f.compile.first().expect("the fp32 header");
    let function = tilec_opt::optimize(&f.specialize(header).unwrap(), &tilec_opt::Options::default()).0;
    let lowered = tilec_vector::lower(&function).unwrap();
    let compiled = tilec_codegen::compile(&lowered, tilec_codegen::Target::Riscv64gc).unwrap();
    let so = tilec_codegen::shared_object::link(&compiled.object).unwrap();
    check_loadable(&so).unwrap();
    let s = shape(&so);
    assert_eq!(s.imports, ["logf"]);
    assert_eq!(s.needed, ["libm.so.6"]);
    let file = ElfFile64::<LittleEndian>::parse(&*so).unwrap();
    let got = file.section_by_name(".got").expect("a GOT");
    assert_eq!(got.size(), 8);
    let relocations: Vec<_> = file.dynamic_relocations().expect("dynamic relocations").collect();
    assert_eq!(relocations.len(), 1);
    assert_eq!(relocations[0].0, got.address());
    assert_eq!(relocations[0].1.flags(), object::RelocationFlags::Elf { r_type: elf::R_RISCV_64 });
}
