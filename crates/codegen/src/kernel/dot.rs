//! `tl.dot` on the scalar path.
//!
//! Register blocks of C (up to 2×4 elements, each an accumulator register) run their k
//! steps on one pointer per operand row (A) and column (B), or one pointer per operand for
//! a scratch buffer, whose rows and columns lie at constant distances: each element loaded
//! feeds a whole row or column of the block. Operands in global memory qualify when their
//! pointers along k are evenly spaced at run time ([`Translator::pointer_spacing`]; the
//! lowering proves the tile separable); otherwise, and for batched dots, the dot runs
//! element by element through the pointer tiles. Every C element adds its products in k
//! order, one fused multiply-add each, whichever way it runs.

use super::*;

/// How a block reads one operand along k: element `k` of block row (A) or column (B) `r`
/// is at `pointers[lanes[r].0] + lanes[r].1 + k · step`.
struct KWalk {
    /// Per block row or column: its pointer (an index into `pointers`) and byte offset.
    lanes: Vec<(usize, i32)>,
    pointers: Vec<Variable>,
    step: Value,
    /// The operand's element type, and for a global operand the span of its load.
    elem: Elem,
    global: Option<tilec_diagnostics::Span>,
}

/// Where a blocked dot reads an operand: a scratch buffer, or global memory with the
/// byte step along k that the run-time check found even.
#[derive(Clone, Copy)]
enum Source<'d> {
    Scratch(Buf),
    Global(&'d GlobalTile, Value),
}

impl Source<'_> {
    fn is_global(self) -> bool {
        matches!(self, Source::Global(..))
    }
}

impl Translator<'_, '_> {
    /// The dot as scalar loops: register blocks ([`Self::dot_blocked`]) when the operands
    /// allow (for global ones: at run time), else element by element.
    pub(super) fn dot(&mut self, d: &Dot) {
        let two_dims = |o: &DotOperand| match o {
            DotOperand::Global(g) => g.index.strides.len() == 2,
            DotOperand::Scratch(_) => true,
        };
        if d.batch != 1 || !two_dims(&d.a) || !two_dims(&d.b) {
            self.dot_elementwise(d);
            return;
        }
        let mut even = None;
        let a = self.dot_source(&d.a, d.k, false, &mut even);
        let b = self.dot_source(&d.b, d.k, true, &mut even);
        let Some(even) = even else {
            self.dot_blocked(d, a, b);
            return;
        };
        let blocked = self.b.create_block();
        let elementwise = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(even, blocked, &[], elementwise, &[]);
        self.b.switch_to_block(blocked);
        self.dot_blocked(d, a, b);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(elementwise);
        self.dot_elementwise(d);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// Where a blocked dot reads operand `o`; for a global one, `even` is and-ed with the
    /// run-time check that its `k` pointers along k (along its rows for B) are evenly
    /// spaced.
    fn dot_source<'d>(&mut self, o: &'d DotOperand, k: u32, along_rows: bool, even: &mut Option<Value>) -> Source<'d> {
        match o {
            DotOperand::Scratch(buf) => Source::Scratch(*buf),
            DotOperand::Global(g) => {
                let (step, ok) = self.pointer_spacing(g, k, along_rows);
                *even = Some(match *even {
                    Some(e) => self.b.ins().band(e, ok),
                    None => ok,
                });
                Source::Global(g, step)
            }
        }
    }

    /// The walk of `source` for the block rows (`!is_b`: of A, starting at row `first`) or
    /// columns (`is_b`: of B, starting at column `first`) of a `size`-wide block.
    fn k_walk(&mut self, d: &Dot, source: Source<'_>, is_b: bool, first: Value, size: u32) -> KWalk {
        let operand = if is_b { &d.b } else { &d.a };
        let elem = operand.elem(self.f);
        match source {
            Source::Scratch(buf) => {
                // Row-major: A is m × k, B is k × n.
                let bytes = scratch::elem_bytes(elem) as i64;
                let (lane_bytes, step) = if is_b { (bytes, d.n as i64 * bytes) } else { (d.k as i64 * bytes, bytes) };
                let base = self.buf_addr(buf);
                let offset = self.b.ins().imul_imm_s(first, lane_bytes);
                let start = self.b.ins().iadd(base, offset);
                let pointer = self.b.declare_var(types::I64);
                self.b.def_var(pointer, start);
                let step = self.b.ins().iconst(types::I64, step);
                let lanes = (0..size as i64).map(|r| (0, (r * lane_bytes) as i32)).collect();
                KWalk { lanes, pointers: vec![pointer], step, elem, global: None }
            }
            Source::Global(g, step) => {
                let zero = self.b.ins().iconst(types::I64, 0);
                let pointers = (0..size as i64)
                    .map(|r| {
                        let lane = self.b.ins().iadd_imm_s(first, r);
                        let p = if is_b {
                            self.operand_pointer(g, zero, lane)
                        } else {
                            self.operand_pointer(g, lane, zero)
                        };
                        let var = self.b.declare_var(types::I64);
                        self.b.def_var(var, p);
                        var
                    })
                    .collect();
                let lanes = (0..size as usize).map(|r| (r, 0)).collect();
                KWalk { lanes, pointers, step, elem, global: Some(g.span) }
            }
        }
    }

    /// The elements of a walk's lanes at its current position, in C's element type.
    fn k_walk_values(&mut self, w: &KWalk, c_elem: Elem) -> Vec<Value> {
        let pointers: Vec<Value> = w.pointers.iter().map(|&p| self.b.use_var(p)).collect();
        w.lanes
            .iter()
            .map(|&(p, offset)| {
                let v = match w.global {
                    Some(span) => {
                        self.span = Some(span);
                        let addr = self.b.ins().iadd_imm_s(pointers[p], i64::from(offset));
                        self.load_global(scalar(w.elem), addr)
                    }
                    None => self.b.ins().load(reg_type(w.elem), MemFlagsData::trusted(), pointers[p], offset),
                };
                self.convert(v, w.elem, c_elem)
            })
            .collect()
    }

    /// The dot in register blocks of C (2 rows by up to 4 columns, fewer where m or n is
    /// not a multiple), each block's k steps on walks of its A rows and B columns.
    fn dot_blocked(&mut self, d: &Dot, a: Source<'_>, b: Source<'_>) {
        let c_elem = self.f.bufs[d.c].elem;
        let c_base = self.buf_addr(d.c);
        let c_bytes = scratch::elem_bytes(c_elem) as i64;
        let k = d.k as i64;
        let steps = match d.k_limit {
            Some(l) => {
                let e = self.ty(l);
                let v = self.get(l);
                let v = self.int_resize(v, reg_type(e), is_signed(e), types::I64);
                let zero = self.b.ins().iconst(types::I64, 0);
                let kc = self.b.ins().iconst(types::I64, k);
                let v = self.b.ins().smin(v, kc);
                self.b.ins().smax(v, zero)
            }
            None => self.b.ins().iconst(types::I64, k),
        };
        // 2×4 for scratch operands (one pointer each), 2×2 for global ones (a pointer per
        // row and column): larger blocks cost more compile time (register allocation) than
        // they save at run time.
        let widest_cols = match (a, b) {
            (Source::Scratch(_), Source::Scratch(_)) => 4,
            _ => 2,
        };
        let fit =
            |widest: u32, len: u32| [widest, 2, 1].into_iter().find(|&s| len.is_multiple_of(s)).expect("1 divides");
        let (rows, cols) = (fit(2, d.m), fit(widest_cols, d.n));
        self.counted(d.m / rows, &mut |t, mb| {
            let first_row = t.b.ins().imul_imm_s(mb, rows as i64);
            t.counted(d.n / cols, &mut |t, nb| {
                let first_col = t.b.ins().imul_imm_s(nb, cols as i64);
                let a_walk = t.k_walk(d, a, false, first_row, rows);
                let b_walk = t.k_walk(d, b, true, first_col, cols);
                // C elements of the block, row-major: address, byte offset from it and
                // accumulator. The cells share the block's first element's address (one
                // value live across the k loop), except beside checked global operands:
                // there the arrays' extents fill the registers through the k loop, and one
                // more value live across it pushes a walk's step to the stack, while
                // addresses of their own are spilled around the loop.
                let c_pos = t.b.ins().imul_imm_s(first_row, d.n as i64);
                let c_pos = t.b.ins().iadd(c_pos, first_col);
                let own_addresses = t.bounds.is_some() && (a.is_global() || b.is_global());
                let mut cells = Vec::new();
                let mut block_addr = None;
                for r in 0..rows as i64 {
                    for c in 0..cols as i64 {
                        let cell = r * d.n as i64 + c;
                        let (c_addr, offset) = match block_addr {
                            // Inside C's buffer, which is smaller than 2 GiB (`stack_slots`).
                            Some(addr) => (addr, i32::try_from(cell * c_bytes).expect("an offset inside C")),
                            None => {
                                let pos = if cell == 0 { c_pos } else { t.b.ins().iadd_imm_s(c_pos, cell) };
                                let c_off = t.b.ins().imul_imm_s(pos, c_bytes);
                                let addr = t.b.ins().iadd(c_base, c_off);
                                block_addr = (!own_addresses).then_some(addr);
                                (addr, 0)
                            }
                        };
                        let init = t.b.ins().load(reg_type(c_elem), MemFlagsData::trusted(), c_addr, offset);
                        let acc = t.b.declare_var(reg_type(c_elem));
                        t.b.def_var(acc, init);
                        cells.push((c_addr, offset, acc));
                    }
                }
                let left_var = t.b.declare_var(types::I64);
                t.b.def_var(left_var, steps);
                let body = t.b.create_block();
                let exit = t.b.create_block();
                t.b.ins().brif(steps, body, &[], exit, &[]);
                t.b.switch_to_block(body);
                let avs = t.k_walk_values(&a_walk, c_elem);
                let bvs = t.k_walk_values(&b_walk, c_elem);
                for (i, &(_, _, acc_var)) in cells.iter().enumerate() {
                    let (av, bv) = (avs[i / cols as usize], bvs[i % cols as usize]);
                    let acc = t.b.use_var(acc_var);
                    let new = t.multiply_add(c_elem, av, bv, acc);
                    t.b.def_var(acc_var, new);
                }
                for w in [&a_walk, &b_walk] {
                    for &var in &w.pointers {
                        let p = t.b.use_var(var);
                        let p = t.b.ins().iadd(p, w.step);
                        t.b.def_var(var, p);
                    }
                }
                let left = t.b.use_var(left_var);
                let left = t.b.ins().iadd_imm_s(left, -1);
                t.b.def_var(left_var, left);
                t.b.ins().brif(left, body, &[], exit, &[]);
                t.b.switch_to_block(exit);
                for &(c_addr, offset, acc_var) in &cells {
                    let acc = t.b.use_var(acc_var);
                    t.b.ins().store(MemFlagsData::trusted(), acc, c_addr, offset);
                }
            });
        });
    }

    /// The address of pointer `(row, col)` of a global operand's pointer tile.
    fn pointer_slot(&mut self, g: &GlobalTile, row: Value, col: Value) -> Value {
        let [s0, s1] = [0, 1].map(|i| g.index.strides.get(i).copied().unwrap_or(0));
        let r = self.b.ins().imul_imm_s(row, s0);
        let c = self.b.ins().imul_imm_s(col, s1);
        let pos = self.b.ins().iadd(r, c);
        let pos = self.b.ins().iadd_imm_s(pos, g.index.offset);
        let off = self.b.ins().imul_imm_s(pos, scratch::elem_bytes(self.f.bufs[g.ptrs].elem) as i64);
        let base = self.buf_addr(g.ptrs);
        self.b.ins().iadd(base, off)
    }

    /// Pointer `(row, col)` of a global operand, advanced by its element offset.
    fn operand_pointer(&mut self, g: &GlobalTile, row: Value, col: Value) -> Value {
        let slot = self.pointer_slot(g, row, col);
        let p = self.b.ins().load(types::I64, MemFlagsData::trusted(), slot, 0);
        match g.offset {
            Some(o) => {
                let bytes = match self.f.bufs[g.ptrs].elem {
                    Elem::Ptr(st) | Elem::Scalar(st) => st.bytes() as i64,
                };
                let oe = self.ty(o);
                let ov = self.get(o);
                let ov = self.int_resize(ov, reg_type(oe), is_signed(oe), types::I64);
                let ov = self.b.ins().imul_imm_s(ov, bytes);
                self.b.ins().iadd(p, ov)
            }
            None => p,
        }
    }

    /// `(step, even)`: the byte step between the first two of the `len` pointers along k of a
    /// global operand (row 0's columns, or with `along_rows` column 0's rows) and whether
    /// all `len` are evenly spaced by it (an i8 0/1).
    fn pointer_spacing(&mut self, g: &GlobalTile, len: u32, along_rows: bool) -> (Value, Value) {
        let zero = self.b.ins().iconst(types::I64, 0);
        let at = |t: &mut Self, i: Value| {
            let slot = if along_rows { t.pointer_slot(g, i, zero) } else { t.pointer_slot(g, zero, i) };
            t.b.ins().load(types::I64, MemFlagsData::trusted(), slot, 0)
        };
        let first = at(self, zero);
        let step = if len > 1 {
            let one = self.b.ins().iconst(types::I64, 1);
            let second = at(self, one);
            self.b.ins().isub(second, first)
        } else {
            zero
        };
        let even_var = self.b.declare_var(types::I8);
        let yes = self.b.ins().iconst(types::I8, 1);
        self.b.def_var(even_var, yes);
        self.counted(len, &mut |t, i| {
            let p = at(t, i);
            let offset = t.b.ins().imul(i, step);
            let expected = t.b.ins().iadd(first, offset);
            let same = t.b.ins().icmp(IntCC::Equal, p, expected);
            let even = t.b.use_var(even_var);
            let even = t.b.ins().band(even, same);
            t.b.def_var(even_var, even);
        });
        (step, self.b.use_var(even_var))
    }

    /// `acc + a · b` in the element type `c_elem`: one fused multiply-add for floats
    /// (rounded to the type), wrapping for integers.
    pub(super) fn multiply_add(&mut self, c_elem: Elem, a: Value, b: Value, acc: Value) -> Value {
        if scalar(c_elem).is_float() {
            let r = self.b.ins().fma(a, b, acc);
            self.round(c_elem, r)
        } else {
            let p = self.b.ins().imul(a, b);
            self.b.ins().iadd(acc, p)
        }
    }

    /// The dot element by element, each operand element read through its buffer or pointer
    /// tile.
    fn dot_elementwise(&mut self, d: &Dot) {
        let c_elem = self.f.bufs[d.c].elem;
        let (a_elem, b_elem) = (d.a.elem(self.f), d.b.elem(self.f));
        let (m, n, k) = (d.m as i64, d.n as i64, d.k as i64);
        let c_base = self.buf_addr(d.c);
        let c_bytes = scratch::elem_bytes(c_elem) as i64;
        // k steps run while ki < clamp(k_limit, 0, k) (the clamp is implied by ki's range).
        let k_limit = d.k_limit.map(|l| {
            let e = self.ty(l);
            let v = self.get(l);
            self.int_resize(v, reg_type(e), is_signed(e), types::I64)
        });
        self.counted(d.batch, &mut |t, bi| {
            t.counted(d.m, &mut |t, mi| {
                t.counted(d.n, &mut |t, ni| {
                    // c position: (bi·m + mi)·n + ni
                    let row = t.b.ins().imul_imm_s(bi, m);
                    let row = t.b.ins().iadd(row, mi);
                    let c_pos = t.b.ins().imul_imm_s(row, n);
                    let c_pos = t.b.ins().iadd(c_pos, ni);
                    let c_off = t.b.ins().imul_imm_s(c_pos, c_bytes);
                    let c_addr = t.b.ins().iadd(c_base, c_off);
                    let acc_var = t.b.declare_var(reg_type(c_elem));
                    let init = t.b.ins().load(reg_type(c_elem), MemFlagsData::trusted(), c_addr, 0);
                    t.b.def_var(acc_var, init);
                    t.counted(d.k, &mut |t, ki| {
                        let step = t.b.create_block();
                        let next = t.b.create_block();
                        match k_limit {
                            Some(limit) => {
                                let run = t.b.ins().icmp(IntCC::SignedLessThan, ki, limit);
                                t.b.ins().brif(run, step, &[], next, &[]);
                            }
                            None => {
                                t.b.ins().jump(step, &[]);
                            }
                        }
                        t.b.switch_to_block(step);
                        let av = t.dot_operand(&d.a, bi, mi, ki, m, k);
                        let bv = t.dot_operand(&d.b, bi, ki, ni, k, n);
                        let av = t.convert(av, a_elem, c_elem);
                        let bv = t.convert(bv, b_elem, c_elem);
                        let acc = t.b.use_var(acc_var);
                        let new = t.multiply_add(c_elem, av, bv, acc);
                        t.b.def_var(acc_var, new);
                        t.b.ins().jump(next, &[]);
                        t.b.switch_to_block(next);
                    });
                    let acc = t.b.use_var(acc_var);
                    t.b.ins().store(MemFlagsData::trusted(), acc, c_addr, 0);
                });
            });
        });
    }

    /// Element `(row, col)` of batch `bi` of a dot operand of `rows × cols`, in its register
    /// form.
    fn dot_operand(&mut self, operand: &DotOperand, bi: Value, row: Value, col: Value, rows: i64, cols: i64) -> Value {
        let elem = operand.elem(self.f);
        match operand {
            DotOperand::Scratch(buf) => {
                // position ((bi·rows) + row)·cols + col
                let r = self.b.ins().imul_imm_s(bi, rows);
                let r = self.b.ins().iadd(r, row);
                let pos = self.b.ins().imul_imm_s(r, cols);
                let pos = self.b.ins().iadd(pos, col);
                let off = self.b.ins().imul_imm_s(pos, scratch::elem_bytes(elem) as i64);
                let base = self.buf_addr(*buf);
                let addr = self.b.ins().iadd(base, off);
                self.b.ins().load(reg_type(elem), MemFlagsData::trusted(), addr, 0)
            }
            DotOperand::Global(g) => {
                let p = self.operand_pointer(g, row, col);
                self.span = Some(g.span);
                self.load_global(scalar(elem), p)
            }
        }
    }
}
