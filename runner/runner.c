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
 *   output out0.bin               and written back to that file after the run (optional line)
 *   scalar 0x0000000000000fa0   an 8-byte argument slot, already encoded by the host
 *   array NBYTES in1.bin        a buffer that takes no argument slot (reached only through a
 *   output out1.bin               pointer table), read and written back like `buffer`
 *   pointers 1 2                an argument slot holding the address of a table of 8-byte
 *                               addresses: of buffers 1 and 2 here
 *
 * Argument slots are numbered by the order of the `buffer`, `scalar` and `pointers` lines; a
 * buffer's slot holds its address. Buffers are numbered from 0 by the order of the `buffer`
 * and `array` lines (a `pointers` line may name buffers of later lines). Buffers and tables
 * are 64-byte aligned. The grid runs in (z, y, x) order, split
 * statically over the threads: thread t runs the programs [t*P/T, (t+1)*P/T) of the P
 * programs in that order (as triton-cpu's OpenMP launcher does).
 *
 * When SYMBOL is NAME_launch and the library also defines NAME_grid,
 *   void NAME_grid(const uint64_t *args, uint64_t first, uint64_t end, uint32 grid x/y/z)
 * which runs the programs [first, end) of that order itself, each thread makes one call of
 * NAME_grid with its range instead of one call of SYMBOL per program.
 *
 * Exit status: 0 on success; 2 for a malformed job or an I/O error, with a message starting
 * with "runner: " on stderr. A kernel that faults is reported on stderr ("runner: kernel
 * faulted with signal ...") and the process then dies of that same signal.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void (*launch_fn)(const uint64_t *args, int32_t pid_x, int32_t pid_y, int32_t pid_z,
                          uint32_t grid_x, uint32_t grid_y, uint32_t grid_z);
typedef void (*grid_fn)(const uint64_t *args, uint64_t first, uint64_t end,
                        uint32_t grid_x, uint32_t grid_y, uint32_t grid_z);

enum { MAX_ARGS = 256, BUFFER_ALIGN = 64 };

struct buffer {
    void *data;
    size_t bytes;
    char *output; /* file to write back, or NULL */
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
};

struct worker {
    const struct job *job;
    launch_fn launch;
    grid_fn grid; /* NAME_grid, or NULL: then `launch` runs each program */
    uint64_t first, end; /* linear program range [first, end) */
};

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
static __thread int64_t current_program[3] = {-1, -1, -1};
/* With NAME_grid: the first and the last program of the thread's range (the faulting one is
 * not tracked, so that nothing runs between programs). */
static __thread int64_t current_last[3] = {-1, -1, -1};

static size_t put_str(char *out, size_t at, size_t cap, const char *s) {
    while (*s && at + 1 < cap) out[at++] = *s++;
    return at;
}

static size_t put_int(char *out, size_t at, size_t cap, int64_t v) {
    char digits[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    do { digits[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0 && at + 1 < cap) out[at++] = '-';
    while (n > 0 && at + 1 < cap) out[at++] = digits[--n];
    return at;
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

static void on_fault(int sig) {
    char msg[256];
    size_t n = 0;
    n = put_str(msg, n, sizeof msg, "runner: kernel ");
    n = put_str(msg, n, sizeof msg, kernel_symbol);
    n = put_str(msg, n, sizeof msg, " faulted with signal ");
    n = put_int(msg, n, sizeof msg, sig);
    n = put_str(msg, n, sizeof msg, " (");
    n = put_str(msg, n, sizeof msg, signal_name(sig));
    int range = memcmp(current_program, current_last, sizeof current_program) != 0;
    n = put_str(msg, n, sizeof msg, range ? ") in one of the programs (" : ") in program (");
    for (int d = 0; d < 3; d++) {
        n = put_int(msg, n, sizeof msg, current_program[d]);
        n = put_str(msg, n, sizeof msg, d < 2 ? ", " : ")");
    }
    if (range) {
        n = put_str(msg, n, sizeof msg, " to (");
        for (int d = 0; d < 3; d++) {
            n = put_int(msg, n, sizeof msg, current_last[d]);
            n = put_str(msg, n, sizeof msg, d < 2 ? ", " : ")");
        }
    }
    n = put_str(msg, n, sizeof msg, "\n");
    ssize_t ignored = write(2, msg, n);
    (void)ignored;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_fault_handlers(void) {
    const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fault;
        sa.sa_flags = SA_RESETHAND;
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

static void *read_input(const char *path, size_t bytes) {
    void *data = NULL;
    size_t alloc = bytes == 0 ? BUFFER_ALIGN : (bytes + BUFFER_ALIGN - 1) / BUFFER_ALIGN * BUFFER_ALIGN;
    if (posix_memalign(&data, BUFFER_ALIGN, alloc) != 0) fail("cannot allocate %zu bytes", bytes);
    memset(data, 0, alloc);
    if (path == NULL || strcmp(path, "-") == 0) return data;
    FILE *f = fopen(path, "rb");
    if (!f) fail("cannot open input %s: %s", path, strerror(errno));
    if (fread(data, 1, bytes, f) != bytes) fail("input %s holds fewer than %zu bytes", path, bytes);
    fclose(f);
    return data;
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
                b->bytes = (size_t)bytes;
                b->data = read_input(input, b->bytes);
                b->output = NULL;
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
        uint64_t *entries = read_input(NULL, (size_t)t->count * sizeof(uint64_t));
        for (unsigned k = 0; k < t->count; k++) {
            if (t->buffers[k] >= job->nbuffers)
                fail("%s: a `pointers` line names buffer %u of %u", path, t->buffers[k], job->nbuffers);
            entries[k] = (uint64_t)(uintptr_t)job->buffers[t->buffers[k]].data;
        }
        job->slots[t->slot] = (uint64_t)(uintptr_t)entries;
    }
}

static void write_outputs(const struct job *job) {
    for (unsigned i = 0; i < job->nbuffers; i++) {
        const struct buffer *b = &job->buffers[i];
        if (!b->output) continue;
        FILE *f = fopen(b->output, "wb");
        if (!f) fail("cannot create output %s: %s", b->output, strerror(errno));
        if (fwrite(b->data, 1, b->bytes, f) != b->bytes || fclose(f) != 0)
            fail("cannot write output %s", b->output);
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

static void *run_programs(void *arg) {
    const struct worker *w = arg;
    const uint32_t *grid = w->job->grid;
    if (w->grid) {
        if (w->first < w->end) {
            program_coordinates(w->first, grid, current_program);
            program_coordinates(w->end - 1, grid, current_last);
        }
        LAUNCH_REGION_BEGIN();
        w->grid(w->job->slots, w->first, w->end, grid[0], grid[1], grid[2]);
        LAUNCH_REGION_END();
        return NULL;
    }
    LAUNCH_REGION_BEGIN();
    for (uint64_t i = w->first; i < w->end; i++) {
        program_coordinates(i, grid, current_program);
        memcpy(current_last, current_program, sizeof current_last);
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

    write_outputs(&job);
    return 0;
}
