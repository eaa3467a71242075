//! Linking riscv64 relocatable objects into a shared object in process, with the `object`
//! crate's ELF writer: no linker process, no temporary files.
//!
//! The inputs are the kernel's object and, for a kernel that calls SLEEF, the members of
//! `libsleef.a` it needs, only their sections the kernel reaches (`inputs`: archive
//! semantics and section garbage collection, as `rust-lld --gc-sections`). What the kernel
//! objects need, and all this linker does:
//! - every kept allocated section is copied to the output, at an address equal to its file
//!   offset, in three page-aligned segments: read-only (headers, dynamic symbols and strings,
//!   hash table, dynamic relocations, read-only data), executable (code, then PLT stubs),
//!   writable (`.dynamic`, the GOT, data, zero-initialized data); sections named `.text.*`,
//!   `.rodata.*`, `.srodata.*`, `.data.rel.ro.*`, `.data.*`, `.sdata.*`, `.bss.*`, `.sbss.*`
//!   go into one output section named by the prefix, in input order (the kernel's first),
//!   each at its own alignment;
//! - the kernel's defined global symbols of default or protected visibility are exported
//!   (`.dynsym`, with a SysV `.hash` table); a library member's are not (as
//!   `--exclude-libs ALL`: they are locals in `.symtab`); the kernel's undefined
//!   symbols that no member defines are imported, and `libm.so.6` is named as needed when
//!   there are any (the kernels' only imports are libm's functions);
//! - relocations are resolved at link time where their target is in an input (calls between
//!   the inputs' functions bind directly, as with `-Bsymbolic`: a kernel's launcher calls its
//!   own kernel, never an interposed one), and become eager dynamic relocations where it is
//!   not: a GOT entry (`R_RISCV_64`, or `R_RISCV_RELATIVE` for a local target) per symbol a
//!   `GOT_HI20` names, a PLT stub (through such a GOT entry) per imported function a call
//!   names, and `R_RISCV_64`/`R_RISCV_RELATIVE` for 64-bit words in writable data. No lazy
//!   binding (no `.got.plt` header), no relaxation: `R_RISCV_RELAX` is ignored, and so is
//!   `R_RISCV_ALIGN`, whose padding NOPs stay in place and run as NOPs (the code after them
//!   may then sit at a lesser alignment than its `.p2align` asked for, which costs fetch
//!   bandwidth at most: RISC-V code with the C extension needs 2-byte alignment only).
//!
//! Anything else (another machine, a relocation kind not listed in [`link`], TLS, common
//! symbols, a relocation the range of its instruction cannot hold, what `inputs` declines)
//! is [`Unsupported`]: the caller then links with `rust-lld`. Same input, same bytes.

mod inputs;

use std::collections::HashMap;

use object::elf;
use object::read::elf::{FileHeader as _, Rela as _, SectionHeader as _, Sym as _};
use object::write::elf::{FileHeader, ProgramHeader, Rel, SectionHeader, SectionIndex, Sym, Writer};
use object::write::StringId;
use object::{Endianness, LittleEndian};
use tilec_rvv::imm_fields;

pub use inputs::link_with_archive;
use inputs::{Inputs, Library, Resolved};

/// Why an object needs the external linker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn unsupported(what: impl Into<String>) -> Unsupported {
    Unsupported(what.into())
}

impl From<object::read::Error> for Unsupported {
    fn from(e: object::read::Error) -> Unsupported {
        unsupported(format!("unreadable object: {e}"))
    }
}

/// The library the object's imports come from (libm's functions).
pub const NEEDED_LIBRARY: &str = "libm.so.6";

const PAGE: u64 = 0x1000;
/// One PLT stub: `auipc t3, %pcrel_hi(got); ld t3, %pcrel_lo(got)(t3); jr t3; nop`.
const PLT_STUB_BYTES: u64 = 16;
const T3: u32 = 28;

type Header = elf::FileHeader64<LittleEndian>;

/// Where an input symbol's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// Defined in placed input section `section` (an index into the placed sections) at
    /// `offset`.
    Defined { section: usize, offset: u64 },
    /// An absolute value.
    Absolute(u64),
    /// Imported: dynamic symbol `dynsym`.
    Import { dynsym: u32 },
}

/// The segment an allocated input section goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    ReadOnly,
    Code,
    Data,
    Zero,
}

struct InputSection {
    /// (object, section index) in [`Inputs::objects`].
    key: (usize, usize),
    kind: Kind,
    /// Index into the output sections.
    output: usize,
    align: u64,
    size: u64,
    /// The bytes, relocated in place (empty for zero-initialized sections).
    bytes: Vec<u8>,
    address: u64,
}

/// An output section: consecutive input sections of one kind and output name.
struct OutputSection<'data> {
    name: &'data [u8],
    kind: Kind,
    flags: u64,
    align: u64,
    address: u64,
    size: u64,
    index: SectionIndex,
}

/// An input relocation, its symbol resolved: offset in its section, type, target, addend.
type InputReloc = (u64, u32, Target, i64);

/// A dynamic relocation to write: at `address`, of `r_type`, against dynamic symbol `sym`.
struct DynamicReloc {
    address: u64,
    r_type: u32,
    sym: u32,
    addend: i64,
}

/// The output section an input section named `name` goes to: `.text.foo` into `.text`, and
/// so on (lld's rule for these prefixes, the first that matches); other names are kept.
fn output_name(name: &[u8]) -> &[u8] {
    const PREFIXES: [&[u8]; 8] =
        [b".text", b".rodata", b".srodata", b".data.rel.ro", b".data", b".sdata", b".bss", b".sbss"];
    PREFIXES.into_iter().find(|&p| name.len() > p.len() && name.starts_with(p) && name[p.len()] == b'.').unwrap_or(name)
}

/// Links `object` (an ELF64 little-endian riscv64 relocatable object) into a shared object.
///
/// Relocation kinds resolved: `R_RISCV_CALL`, `R_RISCV_CALL_PLT`, `R_RISCV_GOT_HI20`,
/// `R_RISCV_PCREL_HI20`, `R_RISCV_PCREL_LO12_I`, `R_RISCV_PCREL_LO12_S`, `R_RISCV_BRANCH`,
/// `R_RISCV_JAL`, `R_RISCV_RVC_BRANCH`, `R_RISCV_RVC_JUMP`, `R_RISCV_64` (in writable data),
/// and `R_RISCV_RELAX` and `R_RISCV_ALIGN` (ignored: code is never relaxed).
pub fn link(object: &[u8]) -> Result<Vec<u8>, Unsupported> {
    link_with_library(object, &mut |_| Ok(None))
}

/// [`link`], with the members of a static library `library` finds for the names the objects
/// leave undefined ([`link_with_archive`] reads them from an archive file).
fn link_with_library<'data>(object: &'data [u8], library: &mut Library<'_, 'data>) -> Result<Vec<u8>, Unsupported> {
    let loaded = Inputs::load(object, library)?;
    let live = loaded.live_sections()?;
    let kernel = &loaded.objects[0];
    let header = kernel.header;
    let endian = LittleEndian;
    let mut e_flags = header.e_flags(endian);
    for member in &loaded.objects[1..] {
        let flags = member.header.e_flags(endian);
        if flags & !elf::EF_RISCV_RVC != e_flags & !elf::EF_RISCV_RVC {
            return Err(unsupported(format!("a library member with ELF flags {flags:#x}, the kernel's {e_flags:#x}")));
        }
        e_flags |= flags & elf::EF_RISCV_RVC;
    }

    // Kept allocated input sections, by segment, in input order within each.
    let mut inputs: Vec<InputSection> = Vec::new();
    let mut output_names: Vec<&[u8]> = Vec::new();
    let mut flags_of: Vec<u64> = Vec::new();
    for (o, input) in loaded.objects.iter().enumerate() {
        for (index, section) in input.sections.enumerate() {
            if !live.contains(&(o, index.0)) || section.sh_size(endian) == 0 {
                continue;
            }
            let flags = section.sh_flags(endian);
            if flags & u64::from(elf::SHF_TLS) != 0 {
                return Err(unsupported("thread-local data"));
            }
            let sh_type = section.sh_type(endian);
            let writable = flags & u64::from(elf::SHF_WRITE) != 0;
            let kind = match sh_type {
                elf::SHT_NOBITS if writable => Kind::Zero,
                elf::SHT_PROGBITS if flags & u64::from(elf::SHF_EXECINSTR) != 0 => Kind::Code,
                elf::SHT_PROGBITS if writable => Kind::Data,
                elf::SHT_PROGBITS => Kind::ReadOnly,
                _ => return Err(unsupported(format!("allocated section of type {sh_type}"))),
            };
            let bytes = if kind == Kind::Zero { Vec::new() } else { section.data(endian, input.data)?.to_vec() };
            output_names.push(output_name(input.sections.section_name(endian, section)?));
            flags_of.push(flags & u64::from(elf::SHF_ALLOC | elf::SHF_WRITE | elf::SHF_EXECINSTR));
            inputs.push(InputSection {
                key: (o, index.0),
                kind,
                output: inputs.len(),
                align: section.sh_addralign(endian).max(1),
                size: section.sh_size(endian),
                bytes,
                address: 0,
            });
        }
    }
    // Output sections in segment order, each named once; its inputs in input order.
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| inputs[i].kind);
    let mut outputs: Vec<OutputSection> = Vec::new();
    for &i in &order {
        let (kind, name) = (inputs[i].kind, output_names[i]);
        let output = match outputs.iter().position(|s| s.kind == kind && s.name == name) {
            Some(output) => output,
            None => {
                outputs.push(OutputSection {
                    name,
                    kind,
                    flags: flags_of[i],
                    align: 1,
                    address: 0,
                    size: 0,
                    index: SectionIndex(0),
                });
                outputs.len() - 1
            }
        };
        outputs[output].align = outputs[output].align.max(inputs[i].align);
        inputs[i].output = output;
    }
    inputs.sort_by_key(|s| s.output);

    let placed: HashMap<(usize, usize), usize> = inputs.iter().enumerate().map(|(i, s)| (s.key, i)).collect();

    // Symbols: where each comes from; the kernel's imports and exports in symbol-table order.
    let mut targets: Vec<Vec<Option<Target>>> = Vec::with_capacity(loaded.objects.len());
    let mut imports: Vec<&[u8]> = Vec::new();
    let mut exports: Vec<(usize, &[u8])> = Vec::new();
    for (o, input) in loaded.objects.iter().enumerate() {
        let mut list = Vec::with_capacity(input.symbols.len());
        for (index, sym) in input.symbols.enumerate() {
            if index.0 == 0 {
                list.push(None);
                continue;
            }
            let target = match loaded.resolve(o, index.0)? {
                Resolved::Section { object, section, offset } => {
                    let target = placed.get(&(object, section)).map(|&section| Target::Defined { section, offset });
                    // The kernel's own definitions, not its references resolved to a member's.
                    if o == 0
                        && object == 0
                        && target.is_some()
                        && sym.st_bind() != elf::STB_LOCAL
                        && sym.st_visibility() != elf::STV_HIDDEN
                    {
                        exports.push((index.0, input.symbols.symbol_name(endian, sym)?));
                    }
                    target
                }
                Resolved::Absolute(value) => Some(Target::Absolute(value)),
                Resolved::Undefined if o == 0 => {
                    imports.push(input.symbols.symbol_name(endian, sym)?);
                    Some(Target::Import { dynsym: imports.len() as u32 })
                }
                // A member's symbol no object defines: no kept section names it.
                Resolved::Undefined => None,
            };
            list.push(target);
        }
        targets.push(list);
    }
    let symbol_target = |object: usize, index: u32| -> Result<Target, Unsupported> {
        targets[object]
            .get(index as usize)
            .copied()
            .flatten()
            .ok_or_else(|| unsupported(format!("relocation against symbol {index}")))
    };

    // The relocations of each placed section, and the GOT entries and PLT stubs they need.
    let mut relocations: Vec<(usize, Vec<InputReloc>)> = Vec::new();
    let mut got: Vec<Target> = Vec::new();
    let mut plt: Vec<u32> = Vec::new();
    for (input, section) in inputs.iter().enumerate() {
        let (o, index) = section.key;
        let relas = loaded.objects[o].relocations_of(index)?;
        if relas.is_empty() {
            continue;
        }
        let mut list = Vec::with_capacity(relas.len());
        for rela in relas {
            let (r_type, r_sym) = (rela.r_type(endian, false), rela.r_sym(endian, false));
            let offset = rela.r_offset(endian);
            if r_type == elf::R_RISCV_RELAX || r_type == elf::R_RISCV_ALIGN {
                continue;
            }
            let target = symbol_target(o, r_sym)?;
            match r_type {
                elf::R_RISCV_CALL | elf::R_RISCV_CALL_PLT => {
                    if let Target::Import { dynsym } = target {
                        if !plt.contains(&dynsym) {
                            plt.push(dynsym);
                        }
                        if !got.contains(&target) {
                            got.push(target);
                        }
                    }
                }
                elf::R_RISCV_GOT_HI20 => {
                    if !got.contains(&target) {
                        got.push(target);
                    }
                }
                elf::R_RISCV_PCREL_HI20
                | elf::R_RISCV_PCREL_LO12_I
                | elf::R_RISCV_PCREL_LO12_S
                | elf::R_RISCV_BRANCH
                | elf::R_RISCV_JAL
                | elf::R_RISCV_RVC_BRANCH
                | elf::R_RISCV_RVC_JUMP => {}
                elf::R_RISCV_64 if section.kind == Kind::Data => {}
                other => return Err(unsupported(format!("relocation type {other} in {:?}", section.kind))),
            }
            list.push((offset, r_type, target, rela.r_addend(endian)));
        }
        relocations.push((input, list));
    }

    // Dynamic relocations: one per GOT entry, one per 64-bit data word.
    let data_words: usize = relocations
        .iter()
        .flat_map(|(_, list)| list.iter())
        .filter(|&&(_, r_type, _, _)| r_type == elf::R_RISCV_64)
        .count();
    let dynamic_relocs = got.len() + data_words;

    // Layout: reserve everything in file order; addresses equal file offsets.
    let mut buffer = Vec::new();
    let mut w = Writer::new(Endianness::Little, true, &mut buffer);
    w.reserve_null_section_index();
    let dynsym_index = w.reserve_dynsym_section_index();
    let dynstr_index = w.reserve_dynstr_section_index();
    let hash_index = w.reserve_hash_section_index();
    let rela_section = (dynamic_relocs > 0).then(|| (w.add_section_name(b".rela.dyn"), w.reserve_section_index()));
    for output in outputs.iter_mut().filter(|s| s.kind == Kind::ReadOnly || s.kind == Kind::Code) {
        output.index = w.reserve_section_index();
    }
    let plt_section = (!plt.is_empty()).then(|| (w.add_section_name(b".plt"), w.reserve_section_index()));
    let dynamic_index = w.reserve_dynamic_section_index();
    let got_section = (!got.is_empty()).then(|| (w.add_section_name(b".got"), w.reserve_section_index()));
    for output in outputs.iter_mut().filter(|s| s.kind == Kind::Data || s.kind == Kind::Zero) {
        output.index = w.reserve_section_index();
    }
    let section_names: Vec<StringId> = outputs.iter().map(|s| w.add_section_name(s.name)).collect();
    w.reserve_symtab_section_index();
    w.reserve_strtab_section_index();
    w.reserve_shstrtab_section_index();

    // Dynamic symbols: null, imports, exports.
    let needed = (!imports.is_empty()).then(|| w.add_dynamic_string(NEEDED_LIBRARY.as_bytes()));
    let import_names: Vec<StringId> = imports.iter().map(|n| w.add_dynamic_string(n)).collect();
    let export_names: Vec<StringId> = exports.iter().map(|(_, n)| w.add_dynamic_string(n)).collect();
    w.reserve_null_dynamic_symbol_index();
    for _ in 0..imports.len() + exports.len() {
        w.reserve_dynamic_symbol_index();
    }
    let dynsym_count = 1 + imports.len() + exports.len();
    let buckets = (exports.len() as u32).max(1);

    // Static symbols: functions and objects of the kernel's object, locals first, and the
    // global ones of library members as locals.
    let mut static_symbols: Vec<(usize, usize, StringId)> = Vec::new();
    let mut static_locals = 0;
    for local_pass in [true, false] {
        for (o, input) in loaded.objects.iter().enumerate() {
            if !local_pass && o != 0 {
                continue;
            }
            for (index, sym) in input.symbols.enumerate() {
                let kind = sym.st_type();
                let local = sym.st_bind() == elf::STB_LOCAL;
                let wanted = if o == 0 {
                    local == local_pass
                        && (kind == elf::STT_FUNC || kind == elf::STT_OBJECT || (kind == elf::STT_NOTYPE && !local))
                } else {
                    let defined = sym.st_shndx(endian) != elf::SHN_UNDEF;
                    !local && defined && (kind == elf::STT_FUNC || kind == elf::STT_OBJECT)
                };
                if index.0 == 0 || !wanted || targets[o][index.0].is_none() {
                    continue;
                }
                let name = input.symbols.symbol_name(endian, sym)?;
                static_symbols.push((o, index.0, w.add_string(name)));
                static_locals += u32::from(local_pass);
            }
        }
    }
    w.reserve_null_symbol_index();
    for _ in &static_symbols {
        w.reserve_symbol_index(None);
    }

    let program_headers = 5;
    w.reserve_file_header();
    w.reserve_program_headers(program_headers);
    let dynsym_offset = w.reserve_dynsym() as u64;
    let dynstr_offset = w.reserve_dynstr() as u64;
    let dynstr_size = w.dynstr_len() as u64;
    let hash_offset = w.reserve_hash(buckets, dynsym_count as u32) as u64;
    let rela_offset = w.reserve_relocations(dynamic_relocs, true) as u64;
    for i in 0..inputs.len() {
        if inputs[i].kind == Kind::ReadOnly {
            let align = if starts_output(&inputs, i) { outputs[inputs[i].output].align } else { inputs[i].align };
            inputs[i].address = w.reserve(inputs[i].size as usize, align as usize) as u64;
        }
    }
    let read_only_end = w.reserved_len() as u64;

    let code_start = align_up(read_only_end, PAGE);
    w.reserve_until(code_start as usize);
    for i in 0..inputs.len() {
        if inputs[i].kind == Kind::Code {
            let align = if starts_output(&inputs, i) { outputs[inputs[i].output].align } else { inputs[i].align };
            inputs[i].address = w.reserve(inputs[i].size as usize, align as usize) as u64;
        }
    }
    let plt_offset = w.reserve(plt.len() * PLT_STUB_BYTES as usize, 16) as u64;
    let code_end = w.reserved_len() as u64;

    let data_start = align_up(code_end, PAGE);
    w.reserve_until(data_start as usize);
    let dynamic_count = 5 + usize::from(needed.is_some()) + if dynamic_relocs > 0 { 3 } else { 0 } + 1;
    let dynamic_offset = w.reserve_dynamic(dynamic_count) as u64;
    let got_offset = w.reserve(got.len() * 8, 8) as u64;
    for i in 0..inputs.len() {
        if inputs[i].kind == Kind::Data {
            let align = if starts_output(&inputs, i) { outputs[inputs[i].output].align } else { inputs[i].align };
            inputs[i].address = w.reserve(inputs[i].size as usize, align as usize) as u64;
        }
    }
    let data_file_end = w.reserved_len() as u64;
    let mut data_end = data_file_end;
    for i in 0..inputs.len() {
        if inputs[i].kind == Kind::Zero {
            let align = if starts_output(&inputs, i) { outputs[inputs[i].output].align } else { inputs[i].align };
            inputs[i].address = align_up(data_end, align);
            data_end = inputs[i].address + inputs[i].size;
        }
    }
    for input in &inputs {
        let output = &mut outputs[input.output];
        if output.size == 0 {
            output.address = input.address;
        }
        output.size = input.address + input.size - output.address;
    }
    w.reserve_symtab();
    w.reserve_strtab();
    w.reserve_shstrtab();
    w.reserve_section_headers();

    // Symbol values, GOT entries and dynamic relocations.
    let addresses: Vec<u64> = inputs.iter().map(|s| s.address).collect();
    let address_of = |target: Target| -> u64 {
        match target {
            Target::Defined { section, offset } => addresses[section] + offset,
            Target::Absolute(value) => value,
            Target::Import { .. } => 0,
        }
    };
    let got_address = |target: Target| got_offset + 8 * got.iter().position(|&t| t == target).unwrap_or(0) as u64;
    let plt_address =
        |dynsym: u32| plt_offset + PLT_STUB_BYTES * plt.iter().position(|&d| d == dynsym).unwrap_or(0) as u64;
    let mut dynamic: Vec<DynamicReloc> = Vec::with_capacity(dynamic_relocs);
    let mut got_words = Vec::with_capacity(got.len() * 8);
    for (i, &target) in got.iter().enumerate() {
        let address = got_offset + 8 * i as u64;
        let value = address_of(target);
        got_words.extend_from_slice(&value.to_le_bytes());
        dynamic.push(match target {
            Target::Import { dynsym } => DynamicReloc { address, r_type: elf::R_RISCV_64, sym: dynsym, addend: 0 },
            _ => DynamicReloc { address, r_type: elf::R_RISCV_RELATIVE, sym: 0, addend: value as i64 },
        });
    }

    // Resolve the relocations of each section.
    for (input, list) in &relocations {
        let input = *input;
        let base = inputs[input].address;
        // The value of each HI20 relocation by its offset, for the LO12 ones that name it.
        let mut high: HashMap<u64, i64> = HashMap::new();
        for &(offset, r_type, target, addend) in list {
            let place = base + offset;
            let value = match r_type {
                elf::R_RISCV_GOT_HI20 => got_address(target) as i64 + addend - place as i64,
                elf::R_RISCV_PCREL_HI20 => address_of(target) as i64 + addend - place as i64,
                _ => continue,
            };
            high.insert(offset, value);
        }
        let bytes = &mut inputs[input].bytes;
        for &(offset, r_type, target, addend) in list {
            let place = base + offset;
            let destination = match target {
                Target::Import { dynsym } if r_type == elf::R_RISCV_CALL || r_type == elf::R_RISCV_CALL_PLT => {
                    plt_address(dynsym)
                }
                _ => address_of(target),
            };
            let pc_relative = destination as i64 + addend - place as i64;
            let at = offset as usize;
            match r_type {
                elf::R_RISCV_CALL | elf::R_RISCV_CALL_PLT => {
                    let (hi, lo) = split(pc_relative)?;
                    patch(bytes, at, |i| set_u_imm(i, hi))?;
                    patch(bytes, at + 4, |i| set_i_imm(i, lo))?;
                }
                elf::R_RISCV_GOT_HI20 | elf::R_RISCV_PCREL_HI20 => {
                    let (hi, _) = split(high[&offset])?;
                    patch(bytes, at, |i| set_u_imm(i, hi))?;
                }
                elf::R_RISCV_PCREL_LO12_I | elf::R_RISCV_PCREL_LO12_S => {
                    let Target::Defined { section, offset: hi_offset } = target else {
                        return Err(unsupported("a PCREL_LO12 relocation not naming a label"));
                    };
                    if section != input {
                        return Err(unsupported("a PCREL_LO12 relocation naming another section"));
                    }
                    let Some(&value) = high.get(&hi_offset) else {
                        return Err(unsupported("a PCREL_LO12 relocation without its HI20"));
                    };
                    let (_, lo) = split(value)?;
                    if r_type == elf::R_RISCV_PCREL_LO12_I {
                        patch(bytes, at, |i| set_i_imm(i, lo))?;
                    } else {
                        patch(bytes, at, |i| set_s_imm(i, lo))?;
                    }
                }
                elf::R_RISCV_BRANCH => {
                    check_range(pc_relative, 13, "branch")?;
                    patch(bytes, at, |i| set_b_imm(i, pc_relative))?;
                }
                elf::R_RISCV_JAL => {
                    check_range(pc_relative, 21, "jump")?;
                    patch(bytes, at, |i| set_j_imm(i, pc_relative))?;
                }
                elf::R_RISCV_RVC_BRANCH => {
                    check_range(pc_relative, 9, "compressed branch")?;
                    patch16(bytes, at, |i| set_cb_imm(i, pc_relative))?;
                }
                elf::R_RISCV_RVC_JUMP => {
                    check_range(pc_relative, 12, "compressed jump")?;
                    patch16(bytes, at, |i| set_cj_imm(i, pc_relative))?;
                }
                elf::R_RISCV_64 => {
                    let value = destination as i64 + addend;
                    let word =
                        bytes.get_mut(at..at + 8).ok_or_else(|| unsupported("a relocation outside its section"))?;
                    word.copy_from_slice(&(value as u64).to_le_bytes());
                    dynamic.push(match target {
                        Target::Import { dynsym } => {
                            DynamicReloc { address: place, r_type: elf::R_RISCV_64, sym: dynsym, addend }
                        }
                        _ => DynamicReloc { address: place, r_type: elf::R_RISCV_RELATIVE, sym: 0, addend: value },
                    });
                }
                _ => unreachable!("relocation kinds are checked when collected"),
            }
        }
    }

    // PLT stubs: load the import's GOT entry and jump to it.
    let mut stubs = Vec::with_capacity(plt.len() * PLT_STUB_BYTES as usize);
    for (i, &dynsym) in plt.iter().enumerate() {
        let place = plt_offset + PLT_STUB_BYTES * i as u64;
        let (hi, lo) = split(got_address(Target::Import { dynsym }) as i64 - place as i64)?;
        for insn in [
            set_u_imm(0x17 | T3 << 7, hi),                      // auipc t3, hi
            set_i_imm(0x03 | T3 << 7 | 3 << 12 | T3 << 15, lo), // ld t3, lo(t3)
            0x67 | T3 << 15,                                    // jalr x0, 0(t3)
            0x13,                                               // nop
        ] {
            stubs.extend_from_slice(&insn.to_le_bytes());
        }
    }

    // Write everything in the order reserved.
    w.write_file_header(&FileHeader {
        os_abi: header.e_ident().os_abi,
        abi_version: 0,
        e_type: elf::ET_DYN,
        e_machine: elf::EM_RISCV,
        e_entry: 0,
        e_flags,
    })
    .map_err(|e| unsupported(e.to_string()))?;
    w.write_align_program_headers();
    let segment = |p_type, p_flags, start: u64, file_end: u64, mem_end: u64, p_align| ProgramHeader {
        p_type,
        p_flags,
        p_offset: start,
        p_vaddr: start,
        p_paddr: start,
        p_filesz: file_end - start,
        p_memsz: mem_end - start,
        p_align,
    };
    w.write_program_header(&segment(elf::PT_LOAD, elf::PF_R, 0, read_only_end, read_only_end, PAGE));
    w.write_program_header(&segment(elf::PT_LOAD, elf::PF_R | elf::PF_X, code_start, code_end, code_end, PAGE));
    w.write_program_header(&segment(elf::PT_LOAD, elf::PF_R | elf::PF_W, data_start, data_file_end, data_end, PAGE));
    let dynamic_end = dynamic_offset + (dynamic_count * 16) as u64;
    w.write_program_header(&segment(
        elf::PT_DYNAMIC,
        elf::PF_R | elf::PF_W,
        dynamic_offset,
        dynamic_end,
        dynamic_end,
        8,
    ));
    w.write_program_header(&segment(elf::PT_GNU_STACK, elf::PF_R | elf::PF_W, 0, 0, 0, 16));

    let section_of = |target: Target| match target {
        Target::Defined { section, .. } => Some(outputs[inputs[section].output].index),
        _ => None,
    };
    w.write_null_dynamic_symbol();
    for &name in &import_names {
        w.write_dynamic_symbol(&Sym {
            name: Some(name),
            section: None,
            st_info: (elf::STB_GLOBAL << 4) | elf::STT_NOTYPE,
            st_other: elf::STV_DEFAULT,
            st_shndx: elf::SHN_UNDEF,
            st_value: 0,
            st_size: 0,
        });
    }
    for (&(index, _), &name) in exports.iter().zip(&export_names) {
        let sym = kernel.symbols.symbol(object::SymbolIndex(index))?;
        let target = targets[0][index].expect("exports are defined");
        w.write_dynamic_symbol(&Sym {
            name: Some(name),
            section: section_of(target),
            st_info: sym.st_info(),
            st_other: sym.st_other(),
            st_shndx: 0,
            st_value: address_of(target),
            st_size: sym.st_size(endian),
        });
    }
    w.write_dynstr();
    let hashes: Vec<Option<u32>> = std::iter::once(None)
        .chain(imports.iter().map(|_| None))
        .chain(exports.iter().map(|(_, name)| Some(elf::hash(name))))
        .collect();
    w.write_hash(buckets, dynsym_count as u32, |i| hashes[i as usize]);
    if dynamic_relocs > 0 {
        w.write_align_relocation();
        for r in &dynamic {
            w.write_relocation(true, &Rel { r_offset: r.address, r_sym: r.sym, r_type: r.r_type, r_addend: r.addend });
        }
    }
    for kind in [Kind::ReadOnly, Kind::Code] {
        for input in inputs.iter().filter(|s| s.kind == kind) {
            w.pad_until(input.address as usize);
            w.write(&input.bytes);
        }
        if kind == Kind::ReadOnly {
            w.pad_until(code_start as usize);
        }
    }
    w.pad_until(plt_offset as usize);
    w.write(&stubs);
    w.pad_until(data_start as usize);
    w.write_align_dynamic();
    if let Some(needed) = needed {
        w.write_dynamic_string(elf::DT_NEEDED, needed).map_err(|e| unsupported(e.to_string()))?;
    }
    let entries: Vec<(i64, u64)> = [
        (elf::DT_HASH, hash_offset),
        (elf::DT_STRTAB, dynstr_offset),
        (elf::DT_SYMTAB, dynsym_offset),
        (elf::DT_STRSZ, dynstr_size),
        (elf::DT_SYMENT, 24),
    ]
    .into_iter()
    .chain(
        (dynamic_relocs > 0)
            .then_some([
                (elf::DT_RELA, rela_offset),
                (elf::DT_RELASZ, 24 * dynamic_relocs as u64),
                (elf::DT_RELAENT, 24),
            ])
            .into_iter()
            .flatten(),
    )
    .chain(std::iter::once((elf::DT_NULL, 0)))
    .collect();
    for (tag, value) in entries {
        w.write_dynamic(tag, value).map_err(|e| unsupported(e.to_string()))?;
    }
    w.pad_until(got_offset as usize);
    w.write(&got_words);
    for input in inputs.iter().filter(|s| s.kind == Kind::Data) {
        w.pad_until(input.address as usize);
        w.write(&input.bytes);
    }

    w.write_null_symbol();
    for &(o, index, name) in &static_symbols {
        let sym = loaded.objects[o].symbols.symbol(object::SymbolIndex(index))?;
        let target = targets[o][index].ok_or_else(|| unsupported("a symbol without a value"))?;
        let st_info = if o == 0 { sym.st_info() } else { (elf::STB_LOCAL << 4) | sym.st_type() };
        w.write_symbol(&Sym {
            name: Some(name),
            section: section_of(target),
            st_info,
            st_other: sym.st_other(),
            st_shndx: if matches!(target, Target::Import { .. }) { elf::SHN_UNDEF } else { 0 },
            st_value: address_of(target),
            st_size: sym.st_size(endian),
        });
    }
    w.write_strtab();
    w.write_shstrtab();

    w.write_null_section_header();
    w.write_dynsym_section_header(dynsym_offset, 1);
    w.write_dynstr_section_header(dynstr_offset);
    w.write_hash_section_header(hash_offset);
    if let Some((rela_name, index)) = rela_section {
        debug_assert!(index.0 > hash_index.0);
        w.write_section_header(&SectionHeader {
            name: Some(rela_name),
            sh_type: elf::SHT_RELA,
            sh_flags: elf::SHF_ALLOC.into(),
            sh_addr: rela_offset,
            sh_offset: rela_offset,
            sh_size: 24 * dynamic_relocs as u64,
            sh_link: dynsym_index.0,
            sh_info: 0,
            sh_addralign: 8,
            sh_entsize: 24,
        });
    }
    let output_header = |output: &OutputSection, name: StringId| SectionHeader {
        name: Some(name),
        sh_type: if output.kind == Kind::Zero { elf::SHT_NOBITS } else { elf::SHT_PROGBITS },
        sh_flags: output.flags,
        sh_addr: output.address,
        sh_offset: if output.kind == Kind::Zero { data_file_end } else { output.address },
        sh_size: output.size,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: output.align,
        sh_entsize: 0,
    };
    for kind in [Kind::ReadOnly, Kind::Code] {
        for (output, &name) in outputs.iter().zip(&section_names).filter(|(s, _)| s.kind == kind) {
            w.write_section_header(&output_header(output, name));
        }
    }
    if let Some((name, _)) = plt_section {
        let flags = elf::SHF_ALLOC | elf::SHF_EXECINSTR;
        w.write_section_header(&linker_section(name, flags, plt_offset, stubs.len() as u64, 16, 0));
    }
    debug_assert!(dynamic_index.0 > dynstr_index.0);
    w.write_dynamic_section_header(dynamic_offset);
    if let Some((name, _)) = got_section {
        let flags = elf::SHF_ALLOC | elf::SHF_WRITE;
        w.write_section_header(&linker_section(name, flags, got_offset, got_words.len() as u64, 8, 8));
    }
    for kind in [Kind::Data, Kind::Zero] {
        for (output, &name) in outputs.iter().zip(&section_names).filter(|(s, _)| s.kind == kind) {
            w.write_section_header(&output_header(output, name));
        }
    }
    w.write_symtab_section_header(1 + static_locals);
    w.write_strtab_section_header();
    w.write_shstrtab_section_header();
    debug_assert_eq!(w.reserved_len(), w.len());
    Ok(buffer)
}

/// The header of a section the linker makes (`.plt`, `.got`): loaded at its file offset.
fn linker_section(name: StringId, flags: u32, offset: u64, size: u64, align: u64, entsize: u64) -> SectionHeader {
    SectionHeader {
        name: Some(name),
        sh_type: elf::SHT_PROGBITS,
        sh_flags: flags.into(),
        sh_addr: offset,
        sh_offset: offset,
        sh_size: size,
        sh_link: 0,
        sh_info: 0,
        sh_addralign: align,
        sh_entsize: entsize,
    }
}

/// Whether placed input `i` is the first of its output section.
fn starts_output(inputs: &[InputSection], i: usize) -> bool {
    i == 0 || inputs[i - 1].output != inputs[i].output
}

fn align_up(value: u64, align: u64) -> u64 {
    value.div_ceil(align) * align
}

/// `value` as the `auipc` high part and the signed low 12 bits added to it.
fn split(value: i64) -> Result<(i64, i64), Unsupported> {
    if value < i64::from(i32::MIN) || value > i64::from(i32::MAX) - 0x800 {
        return Err(unsupported("a PC-relative offset beyond ±2 GiB"));
    }
    let hi = (value + 0x800) >> 12;
    Ok((hi, value - (hi << 12)))
}

fn check_range(value: i64, bits: u32, what: &str) -> Result<(), Unsupported> {
    let limit = 1i64 << (bits - 1);
    if value & 1 != 0 || value < -limit || value >= limit {
        return Err(unsupported(format!("a {what} offset of {value} bytes")));
    }
    Ok(())
}

/// Rewrites the 32-bit instruction at `at` (little-endian, 2-byte aligned at least).
fn patch(bytes: &mut [u8], at: usize, f: impl FnOnce(u32) -> u32) -> Result<(), Unsupported> {
    let word = bytes.get_mut(at..at + 4).ok_or_else(|| unsupported("a relocation outside its section"))?;
    let insn = f(u32::from_le_bytes([word[0], word[1], word[2], word[3]]));
    word.copy_from_slice(&insn.to_le_bytes());
    Ok(())
}

/// Rewrites the 16-bit (compressed) instruction at `at`.
fn patch16(bytes: &mut [u8], at: usize, f: impl FnOnce(u16) -> u16) -> Result<(), Unsupported> {
    let half = bytes.get_mut(at..at + 2).ok_or_else(|| unsupported("a relocation outside its section"))?;
    let insn = f(u16::from_le_bytes([half[0], half[1]]));
    half.copy_from_slice(&insn.to_le_bytes());
    Ok(())
}

/// `insn` with its format's immediate field replaced (the masks keep every other field).
fn set_u_imm(insn: u32, hi: i64) -> u32 {
    (insn & 0xfff) | imm_fields::u(hi)
}

fn set_i_imm(insn: u32, lo: i64) -> u32 {
    (insn & 0x000f_ffff) | imm_fields::i(lo)
}

fn set_s_imm(insn: u32, lo: i64) -> u32 {
    (insn & 0x01ff_f07f) | imm_fields::s(lo)
}

fn set_b_imm(insn: u32, offset: i64) -> u32 {
    (insn & 0x01ff_f07f) | imm_fields::b(offset)
}

fn set_j_imm(insn: u32, offset: i64) -> u32 {
    (insn & 0xfff) | imm_fields::j(offset)
}

fn set_cb_imm(insn: u16, offset: i64) -> u16 {
    (insn & 0xe383) | imm_fields::cb(offset)
}

fn set_cj_imm(insn: u16, offset: i64) -> u16 {
    (insn & 0xe003) | imm_fields::cj(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_split_into_auipc_and_signed_low_parts() {
        for value in [0i64, 1, 0x7ff, 0x800, 0xfff, 0x1000, -1, -0x800, -0x801, 0x1234_5678, -0x7654_3210] {
            let (hi, lo) = split(value).unwrap();
            assert!((-0x800..0x800).contains(&lo), "{value:#x}: lo {lo}");
            assert_eq!((hi << 12) + lo, value);
        }
        assert!(split(1 << 31).is_err());
    }

    #[test]
    fn immediates_land_in_their_instruction_fields() {
        // beq x0, x0, -4 is 0xfe000ee3; jal x0, -4 is 0xffdff06f (from the ISA manual's encodings).
        assert_eq!(set_b_imm(0x0000_0063, -4), 0xfe00_0ee3);
        assert_eq!(set_j_imm(0x0000_006f, -4), 0xffdf_f06f);
        // sd a0, -8(sp): 0xfea13c23
        assert_eq!(set_s_imm(0x00a1_3023, -8), 0xfea1_3c23);
        // addi a0, a0, -1: 0xfff50513
        assert_eq!(set_i_imm(0x0005_0513, -1), 0xfff5_0513);
        // auipc t3, 0x12345
        assert_eq!(set_u_imm(0x17 | T3 << 7, 0x12345), 0x1234_5e17);
        // c.beqz a0, +0x86 is 0xc159, c.bnez a5, -0x100 is 0xf381; c.j -0x402 is 0xbefd,
        // c.j +0x7fe is 0xaffd (as GNU as encodes them), from their offset-0 forms.
        assert_eq!(set_cb_imm(0xc101, 0x86), 0xc159);
        assert_eq!(set_cb_imm(0xe381, -0x100), 0xf381);
        assert_eq!(set_cj_imm(0xa001, -0x402), 0xbefd);
        assert_eq!(set_cj_imm(0xa001, 0x7fe), 0xaffd);
        assert_eq!(set_cj_imm(0xbefd, 0), 0xa001);
    }

    #[test]
    fn function_and_data_sections_go_to_their_output_sections() {
        let cases: [(&[u8], &[u8]); 7] = [
            (b".text.Sleef_expfx_u10rvvm2", b".text"),
            (b".text", b".text"),
            (b".rodata.cst4", b".rodata"),
            (b".srodata.cst8", b".srodata"),
            (b".data.rel.ro.table", b".data.rel.ro"),
            (b".textual", b".textual"),
            (b".eh_frame", b".eh_frame"),
        ];
        for (input, output) in cases {
            assert_eq!(output_name(input), output, "{}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn other_machines_are_left_to_the_external_linker() {
        let mut object = cranelift_object_x86();
        object[18] = 0x3e; // EM_X86_64
        assert!(link(&object).is_err());
        assert!(link(b"not an object").is_err());
    }

    /// A minimal ELF64 relocatable header (no sections).
    fn cranelift_object_x86() -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[6] = 1;
        h[16] = 1; // ET_REL
        h[20] = 1;
        h[52] = 64;
        h[58] = 64;
        h
    }
}
