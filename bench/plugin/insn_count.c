/*
 * insn_count: a qemu TCG plugin (qemu-user, riscv64 guests) that counts the instructions
 * executed inside a marked region.
 *
 * The region starts at the hint `slti x0, x0, BEGIN` and ends at `slti x0, x0, END` (the
 * runner puts them around its grid loop; defaults 1021 and 1022). The markers themselves are
 * not counted; several regions add up.
 *
 * Arguments: out=FILE (required), begin=IMM, end=IMM.
 *
 * Counted classes (each instruction in exactly one of scalar / vset / vector):
 *   total          every instruction
 *   scalar         everything that is not RVV (compressed instructions included)
 *   vset           vsetvli, vsetivli, vsetvl
 *   vector         RVV instructions other than vset* (arithmetic, memory, moves, masks)
 *   vector_memory  the RVV loads and stores among `vector`
 *   vector_lmul    `vector` weighted by the number of vector registers each instruction
 *                  operates on under the vtype in effect: LMUL for arithmetic (fractional
 *                  LMUL counts 1; widening and narrowing forms count their LMUL, not 2*LMUL),
 *                  EMUL = LMUL*EEW/SEW for unit-stride and strided memory, LMUL for indexed
 *                  memory, times the field count for segment accesses, NREG for whole
 *                  register moves / loads / stores, 1 for mask loads / stores, mask logic,
 *                  the single-mask-register ops (vcpop.m, vfirst.m, vmsbf/vmsif/vmsof.m)
 *                  and the scalar moves (vmv.x.s, vmv.s.x, vfmv.f.s, vfmv.s.f: element 0 of
 *                  one register whatever LMUL is).
 *
 * Method: at translation time each translation block is cut into segments at the
 * instructions that change the plugin's state (the markers and vset*). A segment's class
 * counts are precomputed; the first segment is added by a TB exec callback, every other one
 * by an instruction exec callback on the state-changing instruction that opens it, which
 * first applies the state change (vtype from the vset* encoding, or for `vsetvl` from the
 * rs2 register read through the plugin register API) and then adds the segment. State is
 * therefore tracked in execution order. Counters are global: the guest must run one thread
 * (the count of vCPUs seen is reported as `vcpus` so a caller can check).
 */
#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* ---- counters and execution state ---- */

struct counters {
    uint64_t total, scalar, vset, vector, vector_memory, vector_lmul;
    uint64_t regions;
    uint64_t vsetvl_register; /* vsetvl executions whose vtype came from a register */
};

static struct counters counts;
static bool in_region;
static uint32_t begin_imm = 1021, end_imm = 1022;
static char *out_path;
static unsigned vcpus;

/* vtype in effect: LMUL in eighths of a register (1..64) and SEW in bits. */
static unsigned lmul_eighths = 8;
static unsigned sew_bits = 8;

static struct qemu_plugin_register *gpr_handles[32];
static GByteArray *register_buffer;

/* ---- decoding ---- */

enum insn_class { CLASS_SCALAR, CLASS_VSET, CLASS_VECTOR };

/* How a vector instruction's register-group weight is found at execution time. */
enum weight_kind {
    WEIGHT_FIXED, /* a constant number of registers */
    WEIGHT_LMUL,  /* LMUL registers, times a field count */
    WEIGHT_EEW,   /* EMUL = LMUL*EEW/SEW registers, times a field count */
};

struct decoded {
    enum insn_class cls;
    bool memory;
    enum weight_kind weight;
    unsigned units;   /* fixed weight, or the multiplier of LMUL / EMUL */
    unsigned eew_log; /* log2(EEW/8) for WEIGHT_EEW */
};

static bool is_marker(uint32_t insn, uint32_t imm) {
    /* slti x0, x0, imm: opcode OP-IMM, funct3 010, rd = rs1 = x0 */
    return (insn & 0xfffff) == 0x02013 && (insn >> 20) == imm;
}

static bool is_vset(uint32_t insn) {
    return (insn & 0x7f) == 0x57 && ((insn >> 12) & 7) == 7;
}

static struct decoded decode(const uint8_t *bytes, size_t size) {
    struct decoded d = {CLASS_SCALAR, false, WEIGHT_FIXED, 0, 0};
    if (size != 4) return d;
    uint32_t insn = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    uint32_t opcode = insn & 0x7f;
    uint32_t funct3 = (insn >> 12) & 7;
    if (opcode == 0x57) {
        if (funct3 == 7) {
            d.cls = CLASS_VSET;
            return d;
        }
        d.cls = CLASS_VECTOR;
        uint32_t funct6 = insn >> 26;
        uint32_t vs1 = (insn >> 15) & 0x1f; /* vmv<nr>r.v: nr-1; VWXUNARY0, VMUNARY0: the op */
        /* One register whatever LMUL is: mask logic vmand..vmxnor; vfmv.f.s, vmv.x.s / vcpop.m /
         * vfirst.m, vfmv.s.f, vmv.s.x (the scalar moves ignore LMUL, RVV 1.0 16.1-16.2);
         * vmsbf/vmsof/vmsif.m */
        bool mask_logic = funct3 == 2 && (funct6 & 0x38) == 0x18;
        bool scalar_move = funct6 == 0x10 && (funct3 == 1 || funct3 == 2 || funct3 == 5 || funct3 == 6);
        bool set_first = funct6 == 0x14 && funct3 == 2 && vs1 >= 1 && vs1 <= 3;
        if (funct6 == 0x27 && funct3 == 3) { /* vmv<nr>r.v */
            d.weight = WEIGHT_FIXED;
            d.units = vs1 + 1;
        } else if (mask_logic || scalar_move || set_first) {
            d.weight = WEIGHT_FIXED;
            d.units = 1;
        } else {
            d.weight = WEIGHT_LMUL;
            d.units = 1;
        }
        return d;
    }
    if ((opcode == 0x07 || opcode == 0x27) && (funct3 == 0 || funct3 >= 5)) {
        d.cls = CLASS_VECTOR;
        d.memory = true;
        uint32_t nf = (insn >> 29) + 1;
        uint32_t mop = (insn >> 26) & 3;
        uint32_t lumop = (insn >> 20) & 0x1f;
        d.eew_log = funct3 == 0 ? 0 : funct3 - 4;
        if (mop == 0 && lumop == 0x08) { /* whole register load / store */
            d.weight = WEIGHT_FIXED;
            d.units = nf;
        } else if (mop == 0 && lumop == 0x0b) { /* vlm.v / vsm.v */
            d.weight = WEIGHT_FIXED;
            d.units = 1;
        } else if (mop == 1 || mop == 3) { /* indexed: data EMUL is LMUL */
            d.weight = WEIGHT_LMUL;
            d.units = nf;
        } else { /* unit-stride, fault-only-first, strided */
            d.weight = WEIGHT_EEW;
            d.units = nf;
        }
    }
    return d;
}

/* ---- segments ---- */

/* What a segment adds when it executes. */
struct segment {
    uint32_t total, scalar, vset, vector, vector_memory;
    uint32_t fixed_weight;   /* summed WEIGHT_FIXED units */
    uint32_t lmul_units;     /* summed WEIGHT_LMUL units */
    uint32_t eew_units[4];   /* summed WEIGHT_EEW units by log2(EEW/8) */
    uint32_t vtype_immediate; /* for vsetvli / vsetivli openers */
    uint8_t opener;          /* enum opener */
    uint8_t vtype_rs2;       /* for vsetvl openers */
};

enum opener { OPEN_TB, OPEN_BEGIN, OPEN_END, OPEN_VSET_IMM, OPEN_VSET_REG };

static void set_vtype(uint64_t vtype) {
    bool vill = (vtype >> 63) & 1;
    unsigned vlmul = vtype & 7, vsew = (vtype >> 3) & 7;
    if (vill || vlmul == 4 || vsew > 3) { /* illegal vtype: vector instructions trap */
        lmul_eighths = 8;
        sew_bits = 8;
        return;
    }
    lmul_eighths = vlmul < 4 ? 8u << vlmul : 8u >> (8 - vlmul);
    sew_bits = 8u << vsew;
}

/* Registers a group of `units` registers of EEW 8<<eew_log spans under the current vtype. */
static uint64_t eew_weight(unsigned eew_log) {
    uint64_t emul_eighths = (uint64_t)lmul_eighths * (8u << eew_log) / sew_bits;
    return emul_eighths <= 8 ? 1 : emul_eighths / 8;
}

static void add_segment(const struct segment *s) {
    if (!in_region) return;
    counts.total += s->total;
    counts.scalar += s->scalar;
    counts.vset += s->vset;
    counts.vector += s->vector;
    counts.vector_memory += s->vector_memory;
    uint64_t lmul = lmul_eighths <= 8 ? 1 : lmul_eighths / 8;
    uint64_t weighted = s->fixed_weight + (uint64_t)s->lmul_units * lmul;
    for (unsigned e = 0; e < 4; e++) weighted += (uint64_t)s->eew_units[e] * eew_weight(e);
    counts.vector_lmul += weighted;
}

static void on_segment(unsigned int vcpu_index, void *udata) {
    (void)vcpu_index;
    struct segment *s = udata;
    switch ((enum opener)s->opener) {
    case OPEN_TB:
        break;
    case OPEN_BEGIN:
        if (!in_region) counts.regions++;
        in_region = true;
        break;
    case OPEN_END:
        in_region = false;
        break;
    case OPEN_VSET_IMM:
        set_vtype(s->vtype_immediate);
        break;
    case OPEN_VSET_REG: {
        struct qemu_plugin_register *reg = gpr_handles[s->vtype_rs2];
        uint64_t vtype = 0;
        if (s->vtype_rs2 != 0 && reg != NULL) {
            g_byte_array_set_size(register_buffer, 0);
            int n = qemu_plugin_read_register(reg, register_buffer);
            for (int i = 0; i < n && i < 8; i++) vtype |= (uint64_t)register_buffer->data[i] << (8 * i);
        }
        if (in_region) counts.vsetvl_register++;
        set_vtype(vtype);
        break;
    }
    }
    add_segment(s);
}

static void on_tb_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct segment *current = NULL;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint8_t bytes[4] = {0};
        size_t size = qemu_plugin_insn_size(insn);
        qemu_plugin_insn_data(insn, bytes, size < 4 ? size : 4);
        uint32_t word = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;

        bool begin = size == 4 && is_marker(word, begin_imm);
        bool end = size == 4 && is_marker(word, end_imm);
        bool vset = size == 4 && is_vset(word);
        if (begin || end || vset || current == NULL) {
            current = g_new0(struct segment, 1);
            if (begin) {
                current->opener = OPEN_BEGIN;
            } else if (end) {
                current->opener = OPEN_END;
            } else if (vset && (word >> 31) == 0) { /* vsetvli: zimm[10:0] */
                current->opener = OPEN_VSET_IMM;
                current->vtype_immediate = (word >> 20) & 0x7ff;
            } else if (vset && (word >> 30) == 3) { /* vsetivli: zimm[9:0] */
                current->opener = OPEN_VSET_IMM;
                current->vtype_immediate = (word >> 20) & 0x3ff;
            } else if (vset) { /* vsetvl: vtype in x[rs2] */
                current->opener = OPEN_VSET_REG;
                current->vtype_rs2 = (word >> 20) & 0x1f;
            } else {
                current->opener = OPEN_TB;
            }
            if (current->opener == OPEN_TB) {
                qemu_plugin_register_vcpu_tb_exec_cb(tb, on_segment, QEMU_PLUGIN_CB_NO_REGS, current);
            } else {
                enum qemu_plugin_cb_flags flags =
                    current->opener == OPEN_VSET_REG ? QEMU_PLUGIN_CB_R_REGS : QEMU_PLUGIN_CB_NO_REGS;
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_segment, flags, current);
            }
            if (begin || end) continue; /* markers are not counted */
        }

        struct decoded d = decode(bytes, size);
        current->total++;
        switch (d.cls) {
        case CLASS_SCALAR:
            current->scalar++;
            break;
        case CLASS_VSET:
            current->vset++;
            break;
        case CLASS_VECTOR:
            current->vector++;
            if (d.memory) current->vector_memory++;
            switch (d.weight) {
            case WEIGHT_FIXED: current->fixed_weight += d.units; break;
            case WEIGHT_LMUL: current->lmul_units += d.units; break;
            case WEIGHT_EEW: current->eew_units[d.eew_log] += d.units; break;
            }
            break;
        }
    }
}

/* ---- set-up and report ---- */

static const char *const abi_names[32] = {
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
    "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index) {
    (void)id;
    (void)vcpu_index;
    vcpus++;
    if (vcpus > 1) return;
    GArray *regs = qemu_plugin_get_registers();
    for (guint i = 0; regs != NULL && i < regs->len; i++) {
        qemu_plugin_reg_descriptor *r = &g_array_index(regs, qemu_plugin_reg_descriptor, i);
        for (unsigned x = 0; x < 32; x++) {
            if (strcmp(r->name, abi_names[x]) == 0 || (x == 8 && strcmp(r->name, "fp") == 0)) gpr_handles[x] = r->handle;
        }
    }
    if (regs != NULL) g_array_free(regs, TRUE);
}

static void on_plugin_exit(qemu_plugin_id_t id, void *udata) {
    (void)id;
    (void)udata;
    FILE *f = fopen(out_path, "w");
    if (f == NULL) {
        fprintf(stderr, "insn_count: cannot write %s\n", out_path);
        return;
    }
    fprintf(f,
            "total %" PRIu64 "\nscalar %" PRIu64 "\nvset %" PRIu64 "\nvector %" PRIu64 "\n"
            "vector_memory %" PRIu64 "\nvector_lmul %" PRIu64 "\nregions %" PRIu64 "\n"
            "vsetvl_register %" PRIu64 "\nvcpus %u\n",
            counts.total, counts.scalar, counts.vset, counts.vector, counts.vector_memory,
            counts.vector_lmul, counts.regions, counts.vsetvl_register, vcpus);
    fclose(f);
}

static bool parse_u32(const char *text, uint32_t *out) {
    char *end = NULL;
    unsigned long v = strtoul(text, &end, 10);
    if (end == text || *end != 0 || v > 2047) return false;
    *out = (uint32_t)v;
    return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    if (strcmp(info->target_name, "riscv64") != 0) {
        fprintf(stderr, "insn_count: riscv64 guests only (got %s)\n", info->target_name);
        return -1;
    }
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "out=", 4) == 0) {
            out_path = g_strdup(arg + 4);
        } else if (strncmp(arg, "begin=", 6) == 0 && parse_u32(arg + 6, &begin_imm)) {
        } else if (strncmp(arg, "end=", 4) == 0 && parse_u32(arg + 4, &end_imm)) {
        } else {
            fprintf(stderr, "insn_count: unknown or malformed argument `%s` (expected out=FILE, begin=IMM, end=IMM)\n", arg);
            return -1;
        }
    }
    if (out_path == NULL) {
        fprintf(stderr, "insn_count: the argument out=FILE is required\n");
        return -1;
    }
    register_buffer = g_byte_array_new();
    qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_translate);
    qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
    return 0;
}
