//! Programs of several files: a kernel file and the Python modules its imports name.
//!
//! Invariant: `Program::modules[0]` is the file asked for; every other module was reached
//! from it through an import line and is loaded once (by canonical path), so import cycles
//! end. A module name that no file matches (`torch`, `triton.language`, a typo) binds
//! nothing: the front end reports it when a kernel uses it.
//!
//! Search, as Python does for a script: a relative import (`from .m import f`, level n) looks
//! in the importing file's directory, n - 1 levels up; an absolute one (`from m import f`) in
//! the first file's directory, then in the include directories in order. A dotted name
//! `a.b` is `a/b.py` or the package `a/b/__init__.py`. `from pkg import m` binds the
//! submodule `pkg/m.py` when it exists, else the member `m` of `pkg/__init__.py`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tilec_diagnostics::{codes::syntax as codes, Diagnostic, SourceMap};

use crate::ast;

/// What a module-level name bound by an import line stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A loaded module (an index into [`Program::modules`]).
    Module(usize),
    /// A name defined in a loaded module (`from .rand import uniform`).
    Member(usize, String),
}

/// The names a module's import lines bind to loaded files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Links {
    pub bindings: BTreeMap<String, Binding>,
    /// Modules whose every public name `from m import *` binds, in import order.
    pub star: Vec<usize>,
    /// For a package, its loaded submodules (`pkg.m` as an attribute).
    pub submodules: BTreeMap<String, usize>,
}

/// One loaded file.
#[derive(Clone, Debug)]
pub struct LoadedModule {
    /// The module's dotted name as first imported (the first file: its file stem).
    pub name: String,
    pub path: PathBuf,
    pub module: ast::Module,
    pub links: Links,
}

/// A kernel file with the modules it imports; spans of every module are in [`Program::files`].
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub files: SourceMap,
    pub modules: Vec<LoadedModule>,
}

/// Loads `path` (whose text is `source`, named `name` in diagnostics) and, transitively,
/// every module its import lines name that a file matches. On error the source map holds
/// every file read so far, so the diagnostics can be rendered.
pub fn load(
    name: &str,
    path: &Path,
    source: &str,
    include_dirs: &[PathBuf],
) -> Result<Program, (SourceMap, Vec<Diagnostic>)> {
    let mut loader = Loader {
        program: Program::default(),
        by_path: BTreeMap::new(),
        roots: std::iter::once(parent(path)).chain(include_dirs.iter().cloned()).collect(),
        diagnostics: Vec::new(),
    };
    loader.add(name.to_string(), stem(path), path.to_path_buf(), source.to_string());
    let mut next = 0;
    while next < loader.program.modules.len() {
        loader.link(next);
        next += 1;
    }
    if loader.diagnostics.is_empty() {
        Ok(loader.program)
    } else {
        Err((loader.program.files, loader.diagnostics))
    }
}

struct Loader {
    program: Program,
    by_path: BTreeMap<PathBuf, usize>,
    /// Where absolute imports are searched.
    roots: Vec<PathBuf>,
    diagnostics: Vec<Diagnostic>,
}

impl Loader {
    /// Parses a file and appends it (an unparsable file is kept empty, its errors reported).
    fn add(&mut self, display: String, name: String, path: PathBuf, text: String) -> usize {
        let base = self.program.files.add(display, text.as_str());
        let module = crate::parse_at(&text, base).unwrap_or_else(|ds| {
            self.diagnostics.extend(ds);
            ast::Module::default()
        });
        let index = self.program.modules.len();
        self.by_path.insert(canonical(&path), index);
        self.program.modules.push(LoadedModule { name, path, module, links: Links::default() });
        index
    }

    /// The index of the module in file `path`, loading it if needed; `None` (with a
    /// diagnostic at `span`) when it cannot be read.
    fn module_at(&mut self, name: String, path: PathBuf, span: ast::Span) -> Option<usize> {
        if let Some(&index) = self.by_path.get(&canonical(&path)) {
            return Some(index);
        }
        match std::fs::read_to_string(&path) {
            Ok(text) => Some(self.add(display_path(&path), name, path, text)),
            Err(e) => {
                self.diagnostics.push(
                    Diagnostic::error(codes::IMPORT, format!("cannot read `{}`: {e}", path.display()))
                        .with_label(span, "imported here"),
                );
                None
            }
        }
    }

    /// The directories a module path at `level` from module `from` is searched in.
    fn search_dirs(&self, from: usize, level: u32) -> Vec<PathBuf> {
        if level == 0 {
            return self.roots.clone();
        }
        let mut dir = parent(&self.program.modules[from].path);
        for _ in 1..level {
            dir = parent(&dir);
        }
        vec![dir]
    }

    /// Resolves the dotted module `parts` at `level` from module `from`: its file and dotted
    /// name.
    fn find(&self, from: usize, level: u32, parts: &[String]) -> Option<(PathBuf, String)> {
        self.search_dirs(from, level).into_iter().find_map(|mut path| {
            path.extend(parts);
            let file = path.with_extension("py");
            let found = if !parts.is_empty() && file.is_file() { file } else { path.join("__init__.py") };
            found.is_file().then(|| (found, parts.join(".")))
        })
    }

    /// The directory of package `parts` at `level` from module `from` (with or without an
    /// `__init__.py`).
    fn package_dir(&self, from: usize, level: u32, parts: &[String]) -> Option<PathBuf> {
        self.search_dirs(from, level)
            .into_iter()
            .map(|mut path| {
                path.extend(parts);
                path
            })
            .find(|path| path.is_dir())
    }

    /// Binds the names of module `index`'s import lines.
    fn link(&mut self, index: usize) {
        let imports = self.program.modules[index].module.imports.clone();
        let mut links = Links::default();
        for import in &imports {
            let parts: Vec<String> = import.module.iter().map(|i| i.name.clone()).collect();
            if import.level == 0 && parts.first().is_some_and(|p| p == "triton") {
                continue;
            }
            if !import.is_from {
                // `import a.b as m` binds `m` to `a.b`; `import a.b` binds `a` (with `b` a
                // submodule attribute of it).
                let Some((path, name)) = self.find(index, 0, &parts) else { continue };
                let Some(target) = self.module_at(name, path, import.span) else { continue };
                match &import.alias {
                    Some(alias) => {
                        links.bindings.insert(alias.name.clone(), Binding::Module(target));
                    }
                    None => {
                        let top = self.package_chain(index, &parts, target, import.span);
                        if let Some(top) = top {
                            links.bindings.insert(parts[0].clone(), Binding::Module(top));
                        }
                    }
                }
                continue;
            }
            let from = self.find(index, import.level, &parts);
            let package_dir = self.package_dir(index, import.level, &parts);
            let owner = match from {
                Some((path, name)) => self.module_at(name, path, import.span),
                None => None,
            };
            for (name, alias) in &import.names {
                let bound = alias.as_ref().unwrap_or(name).name.clone();
                let submodule =
                    package_dir.as_ref().map(|d| d.join(format!("{}.py", name.name))).filter(|p| p.is_file());
                if let Some(path) = submodule {
                    let dotted =
                        if parts.is_empty() { name.name.clone() } else { format!("{}.{}", parts.join("."), name.name) };
                    if let Some(target) = self.module_at(dotted, path, name.span) {
                        links.bindings.insert(bound, Binding::Module(target));
                    }
                } else if let Some(owner) = owner {
                    if name.name == "*" {
                        links.star.push(owner);
                    } else {
                        links.bindings.insert(bound, Binding::Member(owner, name.name.clone()));
                    }
                }
            }
        }
        let module = &mut self.program.modules[index];
        module.links.bindings = links.bindings;
        module.links.star = links.star;
    }

    /// For `import a.b.c` (module `target`): loads the packages `a` and `a.b` and records
    /// each one's submodule, returning `a`.
    fn package_chain(&mut self, from: usize, parts: &[String], target: usize, span: ast::Span) -> Option<usize> {
        let mut child = target;
        for depth in (1..parts.len()).rev() {
            let (path, name) = self.find(from, 0, &parts[..depth])?;
            let package = self.module_at(name, path, span)?;
            self.program.modules[package].links.submodules.insert(parts[depth].clone(), child);
            child = package;
        }
        Some(child)
    }
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A path as diagnostics show it: relative to the working directory when it is inside it.
fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let relative = cwd.as_deref().and_then(|cwd| canonical(path).strip_prefix(cwd).ok().map(Path::to_path_buf));
    relative.unwrap_or_else(|| path.to_path_buf()).display().to_string()
}
