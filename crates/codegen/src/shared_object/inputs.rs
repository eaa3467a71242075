//! The linker's inputs: the kernel's object, the static-library members it pulls in, how
//! their symbols resolve, and which of their sections are kept.
//!
//! - Archive semantics: a member is loaded when it defines (per the archive's symbol index) a
//!   global a loaded object leaves undefined, and its own undefined globals are looked up in
//!   turn; weak undefined globals load nothing. Two strong definitions of one name are
//!   [`Unsupported`].
//! - Section garbage collection (as `--gc-sections`): every allocated section of the kernel
//!   object is kept, and a member's section only when a relocation of a kept section reaches
//!   it. SLEEF is built with one section per function and per constant table, so a member
//!   holding all fp32 functions contributes only those the kernel calls and their tables.
//!   A member's `.eh_frame` is never reached and is dropped: nothing unwinds through SLEEF
//!   (kernels are called from C, raise no exceptions, and fault reports read no frames).
//! - A member that would need more than this is [`Unsupported`]: constructors
//!   (`.init_array`, `.ctors`, sections marked retained), section groups, or a symbol a kept
//!   section names that no loaded object defines (members import nothing).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use object::elf;
use object::read::archive::ArchiveFile;
use object::read::elf::{FileHeader as _, SectionHeader as _, SectionTable, Sym as _, SymbolTable};
use object::{LittleEndian, ReadCache, SectionIndex, SymbolIndex};

use super::{unsupported, Header, Unsupported};

/// One relocatable object: the kernel's (index 0) or a library member.
pub(super) struct Object<'data> {
    pub data: &'data [u8],
    pub header: &'data Header,
    pub sections: SectionTable<'data, Header>,
    pub symbols: SymbolTable<'data, Header>,
    /// The `SHT_RELA` section of each section that has one, by section index.
    pub relocations: HashMap<usize, usize>,
}

impl<'data> Object<'data> {
    /// Parses an ELF64 little-endian riscv64 relocatable object.
    pub fn parse(data: &'data [u8]) -> Result<Object<'data>, Unsupported> {
        let header = Header::parse(data)?;
        let endian = header.endian()?;
        if header.e_machine(endian) != elf::EM_RISCV || header.e_type(endian) != elf::ET_REL {
            return Err(unsupported("not a riscv64 relocatable object"));
        }
        let sections = header.sections(endian, data)?;
        let symbols = sections.symbols(endian, data, elf::SHT_SYMTAB)?;
        let relocations = sections
            .enumerate()
            .filter(|(_, s)| s.sh_type(endian) == elf::SHT_RELA)
            .map(|(index, s)| (s.sh_info(endian) as usize, index.0))
            .collect();
        Ok(Object { data, header, sections, symbols, relocations })
    }

    /// The relocations of section `index` (none when it has no `SHT_RELA` section).
    pub fn relocations_of(&self, index: usize) -> Result<&'data [elf::Rela64<LittleEndian>], Unsupported> {
        let Some(&rela) = self.relocations.get(&index) else { return Ok(&[]) };
        let section = self.sections.section(SectionIndex(rela))?;
        Ok(section.rela(LittleEndian, self.data)?.map_or(&[][..], |(relas, _)| relas))
    }

    fn is_allocated(&self, index: usize) -> bool {
        self.sections
            .section(SectionIndex(index))
            .is_ok_and(|s| s.sh_flags(LittleEndian) & u64::from(elf::SHF_ALLOC) != 0)
    }
}

/// What a symbol of an input object stands for, before layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Resolved {
    /// At `offset` in section `section` of object `object`.
    Section {
        object: usize,
        section: usize,
        offset: u64,
    },
    Absolute(u64),
    /// Defined by no loaded object.
    Undefined,
}

/// The loaded objects and where each global name is defined.
pub(super) struct Inputs<'data> {
    pub objects: Vec<Object<'data>>,
    /// Global name → (object, symbol index) of its definition.
    definitions: HashMap<&'data [u8], (usize, usize)>,
}

/// Finds the library member that defines a name: its identity (an offset in the archive)
/// and its bytes.
pub(super) type Library<'a, 'data> = dyn FnMut(&[u8]) -> Result<Option<(u64, &'data [u8])>, Unsupported> + 'a;

impl<'data> Inputs<'data> {
    /// The kernel's object and, by archive semantics, the members of `library` it needs.
    pub fn load(kernel: &'data [u8], library: &mut Library<'_, 'data>) -> Result<Inputs<'data>, Unsupported> {
        let mut inputs = Inputs { objects: vec![Object::parse(kernel)?], definitions: HashMap::new() };
        let mut members: Vec<u64> = Vec::new();
        let mut next = 0;
        while next < inputs.objects.len() {
            inputs.define_globals(next)?;
            let object = &inputs.objects[next];
            let mut fetched = Vec::new();
            for sym in object.symbols.iter().skip(1) {
                if sym.st_shndx(LittleEndian) != elf::SHN_UNDEF || sym.st_bind() != elf::STB_GLOBAL {
                    continue;
                }
                let name = object.symbols.symbol_name(LittleEndian, sym)?;
                if name.starts_with(b"__start_") || name.starts_with(b"__stop_") {
                    return Err(unsupported("a section start or stop symbol"));
                }
                if inputs.definitions.contains_key(name) {
                    continue;
                }
                if let Some((member, data)) = library(name)? {
                    if !members.contains(&member) {
                        members.push(member);
                        fetched.push(data);
                    }
                }
            }
            for data in fetched {
                let member = Object::parse(data)?;
                check_member(&member)?;
                inputs.objects.push(member);
            }
            next += 1;
        }
        Ok(inputs)
    }

    /// Records the global definitions of object `index`; a strong one replaces a weak one.
    fn define_globals(&mut self, index: usize) -> Result<(), Unsupported> {
        let object = &self.objects[index];
        for (sym_index, sym) in object.symbols.enumerate() {
            let shndx = sym.st_shndx(LittleEndian);
            if sym.st_bind() == elf::STB_LOCAL || shndx == elf::SHN_UNDEF || shndx == elf::SHN_COMMON {
                continue;
            }
            let name = object.symbols.symbol_name(LittleEndian, sym)?;
            match self.definitions.get(name) {
                None => {}
                Some(&(o, s)) => {
                    let existing = self.objects[o].symbols.symbol(SymbolIndex(s))?;
                    match (existing.st_bind() == elf::STB_WEAK, sym.st_bind() == elf::STB_WEAK) {
                        (false, false) => {
                            return Err(unsupported(format!("two definitions of `{}`", String::from_utf8_lossy(name))))
                        }
                        (true, false) => {}
                        _ => continue,
                    }
                }
            }
            self.definitions.insert(name, (index, sym_index.0));
        }
        Ok(())
    }

    /// What symbol `symbol` of object `object` stands for: an undefined global resolves to
    /// its definition in another object.
    pub fn resolve(&self, object: usize, symbol: usize) -> Result<Resolved, Unsupported> {
        let input = &self.objects[object];
        let sym = input.symbols.symbol(SymbolIndex(symbol))?;
        let shndx = sym.st_shndx(LittleEndian);
        if symbol == 0 {
            return Err(unsupported("a relocation against the null symbol"));
        }
        match shndx {
            elf::SHN_UNDEF => {
                if sym.st_bind() == elf::STB_LOCAL {
                    return Err(unsupported("an undefined local symbol"));
                }
                let name = input.symbols.symbol_name(LittleEndian, sym)?;
                match self.definitions.get(name) {
                    Some(&(o, s)) => self.resolve(o, s),
                    None => Ok(Resolved::Undefined),
                }
            }
            elf::SHN_ABS => Ok(Resolved::Absolute(sym.st_value(LittleEndian))),
            elf::SHN_COMMON => Err(unsupported("a common symbol")),
            _ if shndx >= elf::SHN_LORESERVE => Err(unsupported(format!("symbol section index {shndx:#x}"))),
            _ => Ok(Resolved::Section { object, section: usize::from(shndx), offset: sym.st_value(LittleEndian) }),
        }
    }

    /// The sections kept, as (object, section index): the kernel's allocated non-empty
    /// sections and whatever their relocations reach, transitively.
    pub fn live_sections(&self) -> Result<HashSet<(usize, usize)>, Unsupported> {
        let kernel = &self.objects[0];
        let mut work: Vec<(usize, usize)> = kernel
            .sections
            .enumerate()
            .filter(|(_, s)| s.sh_flags(LittleEndian) & u64::from(elf::SHF_ALLOC) != 0 && s.sh_size(LittleEndian) != 0)
            .map(|(index, _)| (0, index.0))
            .collect();
        let mut live: HashSet<(usize, usize)> = work.iter().copied().collect();
        while let Some((object, section)) = work.pop() {
            for rela in self.objects[object].relocations_of(section)? {
                let symbol = rela.r_sym(LittleEndian, false) as usize;
                if symbol == 0 {
                    continue; // R_RISCV_RELAX, R_RISCV_ALIGN
                }
                let reached = match self.resolve(object, symbol)? {
                    Resolved::Section { object: o, section: s, .. } => (o, s),
                    Resolved::Undefined if object != 0 => {
                        let sym = self.objects[object].symbols.symbol(SymbolIndex(symbol))?;
                        let name = self.objects[object].symbols.symbol_name(LittleEndian, sym)?;
                        return Err(unsupported(format!(
                            "a library member needs `{}`, which nothing defines",
                            String::from_utf8_lossy(name)
                        )));
                    }
                    _ => continue,
                };
                if self.objects[reached.0].is_allocated(reached.1) && live.insert(reached) {
                    work.push(reached);
                }
            }
        }
        Ok(live)
    }
}

/// A member is linked only when nothing of it runs unless called: no constructors, no
/// retained sections, no section groups; and it has the kernel's machine.
fn check_member(member: &Object) -> Result<(), Unsupported> {
    for section in member.sections.iter() {
        let sh_type = section.sh_type(LittleEndian);
        let name = member.sections.section_name(LittleEndian, section)?;
        let retained = section.sh_flags(LittleEndian) & u64::from(elf::SHF_GNU_RETAIN) != 0;
        let constructors = matches!(sh_type, elf::SHT_INIT_ARRAY | elf::SHT_FINI_ARRAY | elf::SHT_PREINIT_ARRAY)
            || name.starts_with(b".ctors")
            || name.starts_with(b".dtors");
        if retained || constructors || sh_type == elf::SHT_GROUP {
            return Err(unsupported(format!("a library member with section `{}`", String::from_utf8_lossy(name))));
        }
    }
    Ok(())
}

/// Links `object` with the members of the static library at `archive` it needs (see
/// `super::link_with_library`). The archive is read through its symbol index: only the
/// index and the members loaded are read from the file.
pub fn link_with_archive(object: &[u8], archive: &Path) -> Result<Vec<u8>, Unsupported> {
    let file =
        std::fs::File::open(archive).map_err(|e| unsupported(format!("cannot open {}: {e}", archive.display())))?;
    let cache = ReadCache::new(file);
    let archive = ArchiveFile::parse(&cache)?;
    let mut index: HashMap<&[u8], u64> = HashMap::new();
    for symbol in archive.symbols()?.ok_or_else(|| unsupported("an archive without a symbol index"))? {
        let symbol = symbol?;
        index.entry(symbol.name()).or_insert(symbol.offset().0);
    }
    super::link_with_library(object, &mut |name: &[u8]| {
        let Some(&offset) = index.get(name) else { return Ok(None) };
        let member = archive.member(object::read::archive::ArchiveOffset(offset))?;
        Ok(Some((offset, member.data(&cache)?)))
    })
}
