/*
 * tilec runner: runs one compiled kernel on the target (riscv64, natively or under qemu).
 *
 * Usage: runner JOB_DIR
 *
 * JOB_DIR/job.txt is written by `tilec run`. It is line-based text; file names are relative
 * to JOB_DIR and run to the end of the line:
 *
 *   tilec-job 1
 *   library kernel.so           shared object holding SYMBOL
 *   symbol add_kernel_launch    void SYMBOL(const uint64_t *args, int32 pid x/y/z, uint32 grid x/y/z)
 *   grid 4 1 1
 *   threads 4
 *   buffer NBYTES in0.bin       an array: NBYTES read from the file (`-` = zero-filled),
 *   name x_ptr fp32 4             its name, dtype and element size, for reports (optional line)
 *   output out0.bin               and written back to that file after the run (optional line)
 *   scalar 0x0000000000000fa0   an 8-byte argument slot, already encoded by the host
 *   array NBYTES in1.bin        a buffer that takes no argument slot (reached only through a
 *   output out1.bin               pointer table), read and written back like `buffer`
 *   pointers 1 2                an argument slot holding the address of a table of 8-byte
 *                               addresses: of buffers 1 and 2 here
 *   bounds                      a bounds-checked kernel: one more slot, after the others
 *
 * Argument slots are numbered by the order of the `buffer`, `scalar` and `pointers` lines; a
 * buffer's slot holds its address. Buffers are numbered from 0 by the order of the `buffer`
 * and `array` lines (a `pointers` line may name buffers of later lines). The grid runs in
 * (z, y, x) order, split statically over the threads: thread t runs the programs
 * [t*P/T, (t+1)*P/T) of the P programs in that order (as triton-cpu's OpenMP launcher does).
 *
 * Every buffer has a mapping of its own between two inaccessible guard pages, its end against
 * the upper guard (up to 15 bytes of padding keep its start 16-byte aligned, the divisibility
 * the compiler assumes for pointers): an access past the end faults at once. The part of the
 * lower page below the start and the padding hold a canary byte; a kernel that changes one
 * (a write that the guards could not catch) fails the run after the grid (exit status 3). A
 * read there is not caught. Pointer tables are 64-byte aligned.
 *
 * When SYMBOL is NAME_launch and the library also defines NAME_grid,
 *   void NAME_grid(const uint64_t *args, uint64_t first, uint64_t end, uint32 grid x/y/z,
 *                  int64_t *program)
 * which runs the programs [first, end) of that order itself, keeping program[0..3] at the
 * coordinates of the running one, each thread makes one call of NAME_grid with its range
 * instead of one call of SYMBOL per program.
 *
 * With `bounds`, the last slot holds the address of the bounds table of a kernel compiled
 * with bounds checks, u64 [record, count, start_0, end_0, ...]: the byte range of each
 * buffer, in order, then of each `pointers` table, and the address of two u64 the kernel
 * sets to the failing check's site + 1 and address before it traps (SIGILL); the report
 * then names the site ("bounds check SITE failed").
 *
 * Exit status: 0 on success; 2 for a malformed job or an I/O error, 3 when a canary was
 * changed, with messages starting with "runner: " on stderr. A kernel that faults is reported
 * on stderr ("runner: kernel ... faulted with signal ...", then the access: the address, the
 * array it belongs to or is nearest to and the element offset, and whether it was a read or
 * a write when the faulting instruction says so); every buffer with an `output` line is then
 * written as the failed run left it, and the process dies of that same signal.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

typedef void (*launch_fn)(const uint64_t *args, int32_t pid_x, int32_t pid_y, int32_t pid_z,
                          uint32_t grid_x, uint32_t grid_y, uint32_t grid_z);
typedef void (*grid_fn)(const uint64_t *args, uint64_t first, uint64_t end,
                        uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, int64_t *program);

enum { MAX_ARGS = 256, BUFFER_ALIGN = 16, CANARY = 0xa5 };

struct buffer {
    void *data;
    size_t bytes;
    char *output; /* file to write back, or NULL */
    char *name;   /* from the `array` line, or NULL */
    char *dtype;  /* from the `array` line, or NULL */
    unsigned elem; /* element size in bytes (1 without an `array` line) */
    /* The mapping: a guard page, `body` accessible bytes ending at the upper guard page. */
    char *map;
    size_t body;
};

/* A `pointers` line, resolved once every buffer is read. */
struct table {
    unsigned slot;
    unsigned count;
    unsigned buffers[MAX_ARGS];
};

struct job {
    char *library;
    char *symbol;
    uint32_t grid[3];
    unsigned threads;
    uint64_t slots[MAX_ARGS];
    unsigned nslots;
    struct buffer buffers[MAX_ARGS];
    unsigned nbuffers;
    struct table tables[MAX_ARGS];
    unsigned ntables;
    int bounds; /* a `bounds` line: the last slot is the bounds table */
};

struct worker {
    const struct job *job;
    launch_fn launch;
    grid_fn grid; /* NAME_grid, or NULL: then `launch` runs each program */
    uint64_t first, end; /* linear program range [first, end) */
};

static size_t page_size;

static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("runner: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* ---- fault reporting (async-signal-safe) ---- */

static const char *kernel_symbol = "?";
static const struct job *running_job;
/* The running program's coordinates (NAME_grid keeps them through its last argument). */
static __thread int64_t current_program[3] = {-1, -1, -1};
/* The last program of the thread's range: a NAME_grid that does not keep current_program
 * (-1 in it) is reported with its range. */
static __thread int64_t current_first[3] = {-1, -1, -1};
static __thread int64_t current_last[3] = {-1, -1, -1};
static int fault_taken;
/* Where a bounds-checked kernel leaves the failing check's site + 1 and address. */
static volatile uint64_t bounds_record[2];

struct text {
    char buf[1024];
    size_t n;
};

static void put_str(struct text *t, const char *s) {
    while (*s && t->n + 1 < sizeof t->buf) t->buf[t->n++] = *s++;
}

static void put_int(struct text *t, int64_t v) {
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    do { digits[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) put_str(t, "-");
    while (n > 0 && t->n + 1 < sizeof t->buf) t->buf[t->n++] = digits[--n];
}

static void put_hex(struct text *t, uint64_t v) {
    put_str(t, "0x");
    for (int shift = 60; shift >= 0; shift -= 4) {
        char digit[2] = {"0123456789abcdef"[(v >> shift) & 15], 0};
        put_str(t, digit);
    }
}

static void put_coords(struct text *t, const int64_t c[3]) {
    put_str(t, "(");
    for (int d = 0; d < 3; d++) {
        put_int(t, c[d]);
        put_str(t, d < 2 ? ", " : ")");
    }
}

static void flush_text(struct text *t) {
    put_str(t, "\n");
    size_t done = 0;
    while (done < t->n) {
        ssize_t w = write(2, t->buf + done, t->n - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    t->n = 0;
}

static const char *signal_name(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "signal";
    }
}

enum access { ACCESS_UNKNOWN, ACCESS_READ, ACCESS_WRITE, ACCESS_ATOMIC };

/* What the RISC-V instruction at `pc` does to memory (loads, stores and AMOs, scalar, float,
 * vector and compressed). */
static enum access decode_access(uintptr_t pc) {
    if (pc == 0 || pc % 2 != 0) return ACCESS_UNKNOWN;
    const uint16_t *half = (const uint16_t *)pc;
    uint32_t low = half[0];
    if ((low & 3) != 3) {
        unsigned funct3 = (low >> 13) & 7;
        if ((low & 3) == 0 || (low & 3) == 2) {
            if (funct3 >= 1 && funct3 <= 3) return ACCESS_READ;
            if (funct3 >= 5) return ACCESS_WRITE;
        }
        return ACCESS_UNKNOWN;
    }
    uint32_t insn = low | ((uint32_t)half[1] << 16);
    switch (insn & 0x7f) {
    case 0x03: case 0x07: return ACCESS_READ;
    case 0x23: case 0x27: return ACCESS_WRITE;
    case 0x2f:
        switch (insn >> 27) {
        case 0x02: return ACCESS_READ;  /* lr */
        case 0x03: return ACCESS_WRITE; /* sc */
        default: return ACCESS_ATOMIC;
        }
    default: return ACCESS_UNKNOWN;
    }
}

/* Floor division of a byte offset by the element size. */
static int64_t element_of(int64_t byte_offset, unsigned elem) {
    int64_t e = (int64_t)elem;
    int64_t q = byte_offset / e;
    return (byte_offset % e != 0 && byte_offset < 0) ? q - 1 : q;
}

static void put_array(struct text *t, const struct job *job, unsigned i) {
    const struct buffer *b = &job->buffers[i];
    put_str(t, "`");
    if (b->name) {
        put_str(t, b->name);
    } else {
        put_str(t, "array ");
        put_int(t, i);
    }
    put_str(t, "` (");
    put_int(t, (int64_t)(b->bytes / b->elem));
    put_str(t, b->elem == 1 && !b->dtype ? " bytes" : " elements");
    if (b->dtype) {
        put_str(t, " of ");
        put_str(t, b->dtype);
    }
    put_str(t, ")");
}

/* Names the array `addr` belongs to (its data or its guard pages) or is nearest to. */
static void report_address(struct text *t, const struct job *job, uintptr_t addr, enum access access) {
    static const char *const kinds[] = {"the access", "the read", "the write", "the atomic access"};
    put_str(t, kinds[access]);
    put_str(t, " at ");
    put_hex(t, addr);
    if (job->nbuffers == 0) {
        put_str(t, " is in no array (the kernel has none)");
        return;
    }
    unsigned best = 0;
    uint64_t best_distance = UINT64_MAX;
    int inside_mapping = 0;
    for (unsigned i = 0; i < job->nbuffers; i++) {
        const struct buffer *b = &job->buffers[i];
        uintptr_t start = (uintptr_t)b->data, end = start + b->bytes;
        uintptr_t map_start = (uintptr_t)b->map, map_end = map_start + b->body + 2 * page_size;
        uint64_t distance = addr < start ? start - addr : addr >= end ? addr - end + 1 : 0;
        int mine = addr >= map_start && addr < map_end;
        if (mine || (!inside_mapping && distance < best_distance)) {
            best = i;
            best_distance = distance;
            inside_mapping = mine;
            if (mine) break;
        }
    }
    const struct buffer *b = &job->buffers[best];
    uintptr_t start = (uintptr_t)b->data;
    int64_t element = element_of((int64_t)(addr - start), b->elem);
    int64_t length = (int64_t)(b->bytes / b->elem);
    if (inside_mapping) {
        put_str(t, " is element ");
        put_int(t, element);
        put_str(t, " of ");
        put_array(t, job, best);
        put_str(t, element < 0 ? ", before its start" : element >= length ? ", past its end" : ", inside it");
    } else if (best_distance < ((uint64_t)1 << 30)) {
        put_str(t, " is in no array; it would be element ");
        put_int(t, element);
        put_str(t, " of the nearest, ");
        put_array(t, job, best);
    } else {
        put_str(t, " is in no array (none is within 1 GiB of it)");
    }
}

/* Writes every buffer that has an output file as it is now (async-signal-safe). */
static int write_outputs_raw(const struct job *job) {
    int ok = 1;
    for (unsigned i = 0; i < job->nbuffers; i++) {
        const struct buffer *b = &job->buffers[i];
        if (!b->output) continue;
        int fd = open(b->output, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            ok = 0;
            continue;
        }
        size_t done = 0;
        while (done < b->bytes) {
            ssize_t w = write(fd, (const char *)b->data + done, b->bytes - done);
            if (w <= 0) break;
            done += (size_t)w;
        }
        if (done != b->bytes) ok = 0;
        if (close(fd) != 0) ok = 0;
    }
    return ok;
}

static void on_fault(int sig, siginfo_t *info, void *context) {
    /* The first faulting thread reports; any other waits for the process to die. */
    if (__atomic_exchange_n(&fault_taken, 1, __ATOMIC_SEQ_CST)) {
        for (;;) pause();
    }
    struct text t = {.n = 0};
    put_str(&t, "runner: kernel ");
    put_str(&t, kernel_symbol);
    put_str(&t, " faulted with signal ");
    put_int(&t, sig);
    put_str(&t, " (");
    put_str(&t, signal_name(sig));
    if (current_program[0] < 0 && current_first[0] >= 0) {
        put_str(&t, ") in one of the programs ");
        put_coords(&t, current_first);
        put_str(&t, " to ");
        put_coords(&t, current_last);
    } else {
        put_str(&t, ") in program ");
        put_coords(&t, current_program);
    }
    flush_text(&t);
    if (sig == SIGILL && running_job && bounds_record[0] != 0) {
        put_str(&t, "runner: bounds check ");
        put_int(&t, (int64_t)bounds_record[0] - 1);
        put_str(&t, " failed: ");
        report_address(&t, running_job, (uintptr_t)bounds_record[1], ACCESS_UNKNOWN);
        flush_text(&t);
    } else if ((sig == SIGSEGV || sig == SIGBUS) && running_job) {
        uintptr_t pc = 0;
#if defined(__riscv)
        pc = (uintptr_t)((ucontext_t *)context)->uc_mcontext.__gregs[REG_PC];
#else
        (void)context;
#endif
        put_str(&t, "runner: ");
        report_address(&t, running_job, (uintptr_t)info->si_addr, decode_access(pc));
        flush_text(&t);
    }
    if (running_job) {
        put_str(&t, write_outputs_raw(running_job)
                        ? "runner: the output files hold the arrays as the failed run left them"
                        : "runner: could not write the output files of the failed run");
        flush_text(&t);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_fault_handlers(void) {
    const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigaction(signals[i], &sa, NULL);
    }
}

/* ---- job file ---- */

static char *copy_rest(const char *s) {
    while (*s == ' ') s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
    if (n == 0) return NULL;
    char *out = malloc(n + 1);
    if (!out) fail("out of memory");
    memcpy(out, s, n);
    out[n] = 0;
    return out;
}

static size_t round_up(size_t n, size_t to) {
    return (n + to - 1) / to * to;
}

/* Maps `b->bytes` bytes between two guard pages, the end against the upper one, and fills
 * them from `path` (`-` or NULL: zeros); the bytes around the data in its pages hold CANARY. */
static void map_buffer(struct buffer *b, const char *path) {
    size_t padded = round_up(b->bytes, BUFFER_ALIGN);
    b->body = round_up(padded, page_size);
    if (b->bytes > SIZE_MAX / 2) fail("cannot allocate %zu bytes", b->bytes);
    void *map = mmap(NULL, b->body + 2 * page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) fail("cannot map %zu bytes: %s", b->bytes, strerror(errno));
    b->map = map;
    if (b->body > 0 && mprotect(b->map + page_size, b->body, PROT_READ | PROT_WRITE) != 0)
        fail("cannot map %zu bytes: %s", b->bytes, strerror(errno));
    b->data = b->map + page_size + b->body - padded;
    memset(b->map + page_size, CANARY, b->body);
    memset(b->data, 0, b->bytes);
    if (path == NULL || strcmp(path, "-") == 0) return;
    FILE *f = fopen(path, "rb");
    if (!f) fail("cannot open input %s: %s", path, strerror(errno));
    if (fread(b->data, 1, b->bytes, f) != b->bytes) fail("input %s holds fewer than %zu bytes", path, b->bytes);
    fclose(f);
}

/* Reports the canary bytes around each buffer that the run changed; returns how many
 * buffers had one. */
static unsigned check_canaries(const struct job *job) {
    unsigned damaged = 0;
    for (unsigned i = 0; i < job->nbuffers; i++) {
        const struct buffer *b = &job->buffers[i];
        const unsigned char *lo = (const unsigned char *)b->map + page_size;
        const unsigned char *start = b->data, *end = start + b->bytes;
        const unsigned char *hi = lo + b->body;
        const unsigned char *first = NULL, *last = NULL;
        for (const unsigned char *p = lo; p < start; p++)
            if (*p != CANARY) { if (!first) first = p; last = p; }
        for (const unsigned char *p = end; p < hi; p++)
            if (*p != CANARY) { if (!first) first = p; last = p; }
        if (!first) continue;
        damaged++;
        struct text t = {.n = 0};
        put_str(&t, "runner: kernel ");
        put_str(&t, kernel_symbol);
        put_str(&t, " wrote outside ");
        put_array(&t, job, i);
        put_str(&t, ": elements ");
        put_int(&t, element_of((int64_t)(first - start), b->elem));
        put_str(&t, " to ");
        put_int(&t, element_of((int64_t)(last - start), b->elem));
        put_str(&t, " were changed (bytes between the array and its guard pages; the program is not known)");
        flush_text(&t);
    }
    return damaged;
}

static void parse_job(const char *path, struct job *job) {
    FILE *f = fopen(path, "r");
    if (!f) fail("cannot open job file %s: %s", path, strerror(errno));
    char line[4096];
    unsigned lineno = 0;
    memset(job, 0, sizeof *job);
    job->grid[0] = job->grid[1] = job->grid[2] = 1;
    job->threads = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char word[32];
        int used = 0;
        if (line[0] == '\n' || line[0] == '#') continue;
        if (sscanf(line, "%31s%n", word, &used) != 1) continue;
        const char *rest = line + used;
        if (lineno == 1) {
            unsigned version = 0;
            if (strcmp(word, "tilec-job") != 0 || sscanf(rest, "%u", &version) != 1 || version != 1)
                fail("%s is not a tilec job file (version 1)", path);
        } else if (strcmp(word, "library") == 0) {
            job->library = copy_rest(rest);
        } else if (strcmp(word, "symbol") == 0) {
            job->symbol = copy_rest(rest);
        } else if (strcmp(word, "grid") == 0) {
            if (sscanf(rest, "%" SCNu32 " %" SCNu32 " %" SCNu32, &job->grid[0], &job->grid[1], &job->grid[2]) != 3)
                fail("%s:%u: expected `grid X Y Z`", path, lineno);
        } else if (strcmp(word, "threads") == 0) {
            if (sscanf(rest, "%u", &job->threads) != 1 || job->threads == 0)
                fail("%s:%u: expected `threads N` with N >= 1", path, lineno);
        } else if (strcmp(word, "buffer") == 0 || strcmp(word, "scalar") == 0 || strcmp(word, "array") == 0) {
            int slot = word[0] != 'a';
            if (slot && job->nslots == MAX_ARGS) fail("%s:%u: more than %d arguments", path, lineno, MAX_ARGS);
            if (word[0] == 's') {
                if (sscanf(rest, "%" SCNx64, &job->slots[job->nslots]) != 1)
                    fail("%s:%u: expected `scalar 0xHEX`", path, lineno);
            } else {
                unsigned long long bytes = 0;
                int n = 0;
                if (job->nbuffers == MAX_ARGS) fail("%s:%u: more than %d buffers", path, lineno, MAX_ARGS);
                if (sscanf(rest, "%llu%n", &bytes, &n) != 1)
                    fail("%s:%u: expected `%s NBYTES FILE`", path, lineno, word);
                char *input = copy_rest(rest + n);
                struct buffer *b = &job->buffers[job->nbuffers++];
                memset(b, 0, sizeof *b);
                b->bytes = (size_t)bytes;
                b->elem = 1;
                map_buffer(b, input);
                free(input);
                if (slot) job->slots[job->nslots] = (uint64_t)(uintptr_t)b->data;
            }
            if (slot) job->nslots++;
        } else if (strcmp(word, "pointers") == 0) {
            if (job->nslots == MAX_ARGS) fail("%s:%u: more than %d arguments", path, lineno, MAX_ARGS);
            struct table *t = &job->tables[job->ntables++];
            t->slot = job->nslots++;
            t->count = 0;
            unsigned index = 0;
            int n = 0;
            while (sscanf(rest, "%u%n", &index, &n) == 1) {
                if (t->count == MAX_ARGS) fail("%s:%u: more than %d table entries", path, lineno, MAX_ARGS);
                t->buffers[t->count++] = index;
                rest += n;
            }
            if (t->count == 0) fail("%s:%u: expected `pointers BUFFER...`", path, lineno);
        } else if (strcmp(word, "bounds") == 0) {
            job->bounds = 1;
        } else if (strcmp(word, "name") == 0) {
            if (job->nbuffers == 0) fail("%s:%u: `name` before any `buffer`", path, lineno);
            struct buffer *b = &job->buffers[job->nbuffers - 1];
            char name[256], dtype[32];
            if (sscanf(rest, "%255s %31s %u", name, dtype, &b->elem) != 3 || b->elem == 0 || b->bytes % b->elem != 0)
                fail("%s:%u: expected `name NAME DTYPE ELEMENT_BYTES` dividing the buffer", path, lineno);
            b->name = copy_rest(name);
            b->dtype = copy_rest(dtype);
        } else if (strcmp(word, "output") == 0) {
            if (job->nbuffers == 0) fail("%s:%u: `output` before any `buffer`", path, lineno);
            job->buffers[job->nbuffers - 1].output = copy_rest(rest);
        } else {
            fail("%s:%u: unknown directive `%s`", path, lineno, word);
        }
    }
    fclose(f);
    if (!job->library) fail("%s: no `library` line", path);
    if (!job->symbol) fail("%s: no `symbol` line", path);
    for (unsigned i = 0; i < job->ntables; i++) {
        struct table *t = &job->tables[i];
        uint64_t *entries = aligned_alloc(64, round_up((size_t)t->count * sizeof(uint64_t), 64));
        if (!entries) fail("out of memory");
        for (unsigned k = 0; k < t->count; k++) {
            if (t->buffers[k] >= job->nbuffers)
                fail("%s: a `pointers` line names buffer %u of %u", path, t->buffers[k], job->nbuffers);
            entries[k] = (uint64_t)(uintptr_t)job->buffers[t->buffers[k]].data;
        }
        job->slots[t->slot] = (uint64_t)(uintptr_t)entries;
    }
    if (job->bounds) {
        if (job->nslots == MAX_ARGS) fail("%s: more than %d arguments", path, MAX_ARGS);
        size_t ranges = (size_t)job->nbuffers + job->ntables;
        uint64_t *table = calloc(2 + 2 * ranges, sizeof *table);
        if (!table) fail("out of memory");
        table[0] = (uint64_t)(uintptr_t)bounds_record;
        table[1] = ranges;
        for (unsigned i = 0; i < job->nbuffers; i++) {
            table[2 + 2 * i] = (uint64_t)(uintptr_t)job->buffers[i].data;
            table[3 + 2 * i] = (uint64_t)(uintptr_t)job->buffers[i].data + job->buffers[i].bytes;
        }
        for (unsigned i = 0; i < job->ntables; i++) {
            uint64_t *entries = (uint64_t *)(uintptr_t)job->slots[job->tables[i].slot];
            table[2 + 2 * (job->nbuffers + i)] = (uint64_t)(uintptr_t)entries;
            table[3 + 2 * (job->nbuffers + i)] = (uint64_t)(uintptr_t)(entries + job->tables[i].count);
        }
        job->slots[job->nslots++] = (uint64_t)(uintptr_t)table;
    }
}

/* ---- the grid ---- */

/* Marks the start and the end of a launch region for instruction-count plugins: hints that
 * write x0, so they do nothing. */
#if defined(__riscv)
#define LAUNCH_REGION_BEGIN() __asm__ volatile("slti x0, x0, 1021" ::: "memory")
#define LAUNCH_REGION_END() __asm__ volatile("slti x0, x0, 1022" ::: "memory")
#else
#define LAUNCH_REGION_BEGIN() __asm__ volatile("" ::: "memory")
#define LAUNCH_REGION_END() __asm__ volatile("" ::: "memory")
#endif

/* Program i's coordinates in (z, y, x) order. */
static void program_coordinates(uint64_t i, const uint32_t grid[3], int64_t out[3]) {
    out[0] = (int64_t)(i % grid[0]);
    out[1] = (int64_t)((i / grid[0]) % grid[1]);
    out[2] = (int64_t)(i / ((uint64_t)grid[0] * grid[1]));
}

/* Gives the calling thread a stack for the fault handler, so that a kernel that overflows its
 * own stack is reported too. */
static void use_signal_stack(void) {
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_size = 64 * 1024;
    ss.ss_sp = malloc(ss.ss_size);
    if (ss.ss_sp) sigaltstack(&ss, NULL);
}

static void *run_programs(void *arg) {
    const struct worker *w = arg;
    use_signal_stack();
    const uint32_t *grid = w->job->grid;
    if (w->grid) {
        if (w->first < w->end) {
            program_coordinates(w->first, grid, current_first);
            program_coordinates(w->end - 1, grid, current_last);
        }
        LAUNCH_REGION_BEGIN();
        w->grid(w->job->slots, w->first, w->end, grid[0], grid[1], grid[2], current_program);
        LAUNCH_REGION_END();
        return NULL;
    }
    LAUNCH_REGION_BEGIN();
    for (uint64_t i = w->first; i < w->end; i++) {
        program_coordinates(i, grid, current_program);
        w->launch(w->job->slots, (int32_t)current_program[0], (int32_t)current_program[1],
                  (int32_t)current_program[2], grid[0], grid[1], grid[2]);
    }
    LAUNCH_REGION_END();
    return NULL;
}

/* NAME_grid when `symbol` is NAME_launch and the library defines it, else NULL. */
static grid_fn find_grid_entry(void *handle, const char *symbol) {
    static const char suffix[] = "_launch";
    size_t n = strlen(symbol), k = sizeof suffix - 1;
    if (n <= k || strcmp(symbol + n - k, suffix) != 0) return NULL;
    char name[4200];
    if (n - k + sizeof "_grid" > sizeof name) return NULL;
    memcpy(name, symbol, n - k);
    strcpy(name + n - k, "_grid");
    return (grid_fn)dlsym(handle, name);
}

int main(int argc, char **argv) {
    if (argc != 2) fail("usage: runner JOB_DIR");
    if (chdir(argv[1]) != 0) fail("cannot enter job directory %s: %s", argv[1], strerror(errno));
    long page = sysconf(_SC_PAGESIZE);
    page_size = page > 0 ? (size_t)page : 4096;

    static struct job job;
    parse_job("job.txt", &job);

    /* dlopen searches the library path for names without a slash. */
    char library[4200];
    snprintf(library, sizeof library, "%s%s", strchr(job.library, '/') ? "" : "./", job.library);
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) fail("cannot load kernel library: %s", dlerror());
    dlerror();
    launch_fn launch = (launch_fn)dlsym(handle, job.symbol);
    if (!launch) fail("kernel library %s has no symbol %s", job.library, job.symbol);
    kernel_symbol = job.symbol;
    grid_fn grid = find_grid_entry(handle, job.symbol);

    uint64_t programs = (uint64_t)job.grid[0] * job.grid[1] * job.grid[2];
    unsigned threads = job.threads;
    if (programs < threads) threads = programs == 0 ? 1 : (unsigned)programs;

    running_job = &job;
    install_fault_handlers();
    struct worker *workers = calloc(threads, sizeof *workers);
    pthread_t *ids = calloc(threads, sizeof *ids);
    if (!workers || !ids) fail("out of memory");
    for (unsigned t = 0; t < threads; t++) {
        workers[t].job = &job;
        workers[t].launch = launch;
        workers[t].grid = grid;
        workers[t].first = programs * t / threads;
        workers[t].end = programs * (t + 1) / threads;
    }
    if (threads == 1) {
        run_programs(&workers[0]);
    } else {
        for (unsigned t = 0; t < threads; t++) {
            int err = pthread_create(&ids[t], NULL, run_programs, &workers[t]);
            if (err) fail("cannot start thread %u: %s", t, strerror(err));
        }
        for (unsigned t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    }

    unsigned damaged = check_canaries(&job);
    if (!write_outputs_raw(&job)) fail("cannot write the output files");
    if (damaged) {
        fputs("runner: the output files hold the arrays as the failed run left them\n", stderr);
        return 3;
    }
    return 0;
}
