// malloc-counter: counts heap allocations of a running process, readable by
// another process at any moment without signals (dnsward blocks its signals
// for signalfd). Used by Tests/Benchmarks/allocations.sh.
//
// One file, two builds:
//
//   gcc -O2 -shared -fPIC -fno-builtin -o malloc-counter.so malloc-counter.c -ldl
//       the LD_PRELOAD interposer;
//   gcc -O2 -DMALLOC_COUNTER_READER -o malloc-counter malloc-counter.c
//       the reader.
//
//   MALLOC_COUNTER_FILE=/tmp/c LD_PRELOAD=./malloc-counter.so dnsward ... &
//   ./malloc-counter /tmp/c            allocs=.. frees=.. bytes=.. malloc=.. ...
//   ./malloc-counter /tmp/c arm [N]    record the stacks of the next N allocations (20)
//   ./malloc-counter /tmp/c disarm
//
// The interposer replaces malloc, calloc, realloc, reallocarray, free,
// aligned_alloc, posix_memalign, memalign, valloc and pvalloc, counts each
// call with a relaxed atomic increment, and calls the next definition
// (glibc's, found with dlsym(RTLD_NEXT)). glibc calls these through the PLT
// from inside libc too (strdup, fopen, ...), and the Swift runtime's
// swift_slowAlloc (and the Embedded runtime's) ends in malloc or
// posix_memalign, so every heap allocation of the process passes here. Not
// counted: mmap/brk by glibc's own allocator (they are behind malloc), and
// malloc_usable_size (not an allocation).
//
// The counters live in a page of the file named by $MALLOC_COUNTER_FILE,
// mapped MAP_SHARED, so the reader sees them while the process runs. Without
// the variable they are kept in memory only (and printed at exit if
// $MALLOC_COUNTER_REPORT is set). 64-bit lock-free atomics are address-free
// on x86_64, aarch64 and armv7, so they work across processes. A forked
// child (dnsward's `workers`) inherits the mapping: the counts are then the
// sum over the processes. A static binary ignores LD_PRELOAD: no file
// appears (allocations.sh checks for it).
//
// Bootstrap: dlsym may itself call calloc/malloc before the real functions
// are known. Calls made by the thread that is resolving them are served from
// a static buffer (never freed; free and realloc recognise its pointers).
// Other threads wait for the resolution to finish. No thread-local storage
// is used (its first touch can allocate in a preloaded library).
//
// Stacks: if $MALLOC_COUNTER_STACKS names a file, the interposer appends to
// it the call stacks of the next N allocations after `arm N` (the reader
// sets a budget in the shared page; `disarm` clears it), numbered from 1 for
// the whole run, as `module 0xoffset` lines that addr2line resolves.
// backtrace() is called once at start-up, when it loads libgcc_s (which
// allocates); later calls do not allocate. backtrace() needs unwind tables,
// which Embedded Swift code lacks (and some runtime frames stop it): when it
// does not reach libc's __libc_start_main, the main thread's stack is also
// scanned for words that point into executable code (return-address
// candidates, with some stale ones among them).
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define COUNTER_MAGIC 0x544e434f4c4c414dULL  // "MALLOCNT", little-endian
#define COUNTER_VERSION 2

enum kind {
  K_MALLOC,
  K_CALLOC,
  K_REALLOC,
  K_REALLOCARRAY,
  K_ALIGNED_ALLOC,
  K_POSIX_MEMALIGN,
  K_MEMALIGN,
  K_VALLOC,
  K_PVALLOC,
  K_FREE,       // free of a non-null pointer
  K_FREE_NULL,  // free(NULL): not a deallocation, counted apart
  K_COUNT
};

static const char *const kind_names[K_COUNT] = {
    "malloc", "calloc",  "realloc", "reallocarray", "aligned_alloc", "posix_memalign",
    "memalign", "valloc", "pvalloc", "free",         "free_null"};

// The shared page. Only append fields (and bump COUNTER_VERSION otherwise).
struct counters {
  uint64_t magic;
  uint64_t version;
  uint64_t pid;
  _Atomic uint64_t calls[K_COUNT];
  _Atomic uint64_t bytes;      // bytes requested by allocating calls
  _Atomic uint64_t bootstrap;  // allocations served from the static buffer
  _Atomic uint64_t armed;      // set by the reader: how many more stacks to record
  _Atomic uint64_t stacks;     // stacks recorded so far
};

#ifndef MALLOC_COUNTER_READER

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static struct counters early;  // until (or unless) the file is mapped
static struct counters *_Atomic shared = &early;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_reallocarray)(void *, size_t, size_t);
static void (*real_free)(void *);
static void *(*real_aligned_alloc)(size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

// 0: not resolved; a thread id: that thread is resolving; -1: resolved.
static _Atomic long resolver = 0;

static long current_tid(void) { return syscall(SYS_gettid); }

// ---------------------------------------------------------------------------
// Bootstrap buffer: a bump allocator for the calls dlsym makes. Each block
// has a 16-byte header holding its size (realloc needs it).
static _Alignas(64) unsigned char bootstrap_buffer[256 * 1024];
static _Atomic size_t bootstrap_used = 0;

static int in_bootstrap(const void *p) {
  return (const unsigned char *)p >= bootstrap_buffer &&
         (const unsigned char *)p < bootstrap_buffer + sizeof bootstrap_buffer;
}

static void *bootstrap_alloc(size_t size, size_t alignment) {
  if (alignment < 16) alignment = 16;
  size_t rounded = (size + 15) & ~(size_t)15;
  size_t old = atomic_load(&bootstrap_used), start;
  do {
    start = (old + 16 + alignment - 1) & ~(alignment - 1);  // room for the header
    if (start + rounded > sizeof bootstrap_buffer) return NULL;
  } while (!atomic_compare_exchange_weak(&bootstrap_used, &old, start + rounded));
  *(size_t *)(bootstrap_buffer + start - 16) = size;
  atomic_fetch_add_explicit(&shared->bootstrap, 1, memory_order_relaxed);
  return bootstrap_buffer + start;  // static storage: already zero
}

static size_t bootstrap_size(const void *p) { return *(const size_t *)((const unsigned char *)p - 16); }

// ---------------------------------------------------------------------------

static void resolve(void) {
  long me = current_tid(), expected = 0;
  if (atomic_compare_exchange_strong(&resolver, &expected, me)) {
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_reallocarray = (void *(*)(void *, size_t, size_t))dlsym(RTLD_NEXT, "reallocarray");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    real_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
    real_pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
    if (!real_malloc || !real_calloc || !real_realloc || !real_free) {
      static const char message[] = "malloc-counter: dlsym(RTLD_NEXT) found no malloc\n";
      (void)!write(2, message, sizeof message - 1);
      _exit(127);
    }
    atomic_store(&resolver, -1);
    return;
  }
  while (atomic_load(&resolver) != -1) {
    // Another thread is resolving (only possible during start-up).
  }
}

// True when the caller must use the bootstrap buffer: the real functions are
// not known yet and this thread is the one looking them up.
static int need_bootstrap(void) {
  long state = atomic_load_explicit(&resolver, memory_order_acquire);
  if (state == -1) return 0;
  if (state != 0 && state == current_tid()) return 1;
  resolve();
  return atomic_load(&resolver) != -1;  // nested: still resolving on this thread
}

// ---------------------------------------------------------------------------
// Stacks of allocations made while armed.

static int stack_fd = -1;
static _Atomic int recording = 0;  // one stack at a time; no recursion

// Executable segments of the loaded objects, for the stack scan.
static struct {
  uintptr_t start, end;
} code[32];
static int code_count = 0;
static void *libc_base = NULL;
extern void *__libc_stack_end;  // ld.so: the top of the main thread's stack

static int note_code(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  for (int i = 0; i < info->dlpi_phnum && code_count < 32; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      code[code_count].start = info->dlpi_addr + ph->p_vaddr;
      code[code_count].end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
      code_count++;
    }
  }
  return 0;
}

static int is_code(uintptr_t address) {
  for (int i = 0; i < code_count; i++)
    if (address > code[i].start && address < code[i].end) return 1;
  return 0;
}

// One stack is built in this buffer and written with one write(2), so that
// stacks from forked workers sharing the file (O_APPEND) do not interleave.
static char text[16384];
static size_t text_length;

static void put(const char *string) {
  while (*string && text_length < sizeof text - 1) text[text_length++] = *string++;
}

static void put_hex(uintptr_t value) {
  char digits[2 * sizeof value + 3];
  int count = (int)sizeof digits - 1;
  digits[count] = 0;
  do {
    digits[--count] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value);
  digits[--count] = 'x';
  digits[--count] = '0';
  put(digits + count);
}

static void put_decimal(uint64_t value) {
  char digits[24];
  int count = (int)sizeof digits - 1;
  digits[count] = 0;
  do {
    digits[--count] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  put(digits + count);
}

static void put_frame(const void *address) {
  Dl_info info;
  put("  ");
  if (dladdr(address, &info) && info.dli_fname) {
    // addr2line wants the offset in the module; the return address minus
    // one is inside the call instruction.
    put(info.dli_fname[0] ? info.dli_fname : "?");
    put(" ");
    put_hex((uintptr_t)address - 1 - (uintptr_t)info.dli_fbase);
    if (info.dli_sname) {
      put(" ");
      put(info.dli_sname);
    }
  } else {
    put("? ");
    put_hex((uintptr_t)address);
  }
  put("\n");
}

static void record_stack(enum kind kind, size_t size) {
  if (stack_fd < 0) return;
  int expected = 0;
  if (!atomic_compare_exchange_strong(&recording, &expected, 1)) return;
  uint64_t budget = atomic_load(&shared->armed);
  while (budget > 0 && !atomic_compare_exchange_weak(&shared->armed, &budget, budget - 1)) {
  }
  if (budget > 0) {
    uint64_t number = atomic_fetch_add(&shared->stacks, 1);
    void *frames[48];
    int depth = backtrace(frames, 48);
    text_length = 0;
    put("allocation ");
    put_decimal(number + 1);
    put(": ");
    put(kind_names[kind]);
    put(" ");
    put_decimal(size);
    put(" bytes, pid ");
    put_decimal((uint64_t)getpid());
    put("\n");
    for (int i = 2; i < depth; i++) put_frame(frames[i]);  // 0: here, 1: the interposer
    // A complete unwind of the main thread ends in libc (__libc_start_main).
    int complete = 0;
    for (int i = depth > 3 ? depth - 3 : 0; i < depth; i++) {
      Dl_info info;
      if (dladdr(frames[i], &info) && info.dli_fbase == libc_base) complete = 1;
    }
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0), top = (uintptr_t)__libc_stack_end;
    if (!complete && sp < top && top - sp < (8u << 20)) {
      put("  (unwinding stopped: code addresses found on the stack follow)\n");
      int found = 0;
      for (uintptr_t *word = (uintptr_t *)(sp & ~(uintptr_t)7); (uintptr_t)word < top && found < 40; word++)
        if (is_code(*word)) {
          put_frame((const void *)*word);
          found++;
        }
    }
    (void)!write(stack_fd, text, text_length);
  }
  atomic_store(&recording, 0);
}

static inline void count(enum kind kind, size_t size) {
  struct counters *c = atomic_load_explicit(&shared, memory_order_relaxed);
  atomic_fetch_add_explicit(&c->calls[kind], 1, memory_order_relaxed);
  if (kind != K_FREE && kind != K_FREE_NULL) {
    atomic_fetch_add_explicit(&c->bytes, size, memory_order_relaxed);
    if (atomic_load_explicit(&c->armed, memory_order_relaxed)) record_stack(kind, size);
  }
}

// ---------------------------------------------------------------------------
// The interposed functions.

EXPORT void *malloc(size_t size) {
  count(K_MALLOC, size);
  if (need_bootstrap()) return bootstrap_alloc(size, 16);
  return real_malloc(size);
}

EXPORT void *calloc(size_t count_, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count_, size, &total)) total = SIZE_MAX;
  count(K_CALLOC, total);
  if (need_bootstrap()) return total == SIZE_MAX ? NULL : bootstrap_alloc(total, 16);
  return real_calloc(count_, size);
}

static void *realloc_bootstrap_block(void *old, size_t size) {
  // A block from the bootstrap buffer moves to the real heap.
  if (size == 0) return NULL;
  void *p = real_malloc(size);
  if (p) {
    size_t old_size = bootstrap_size(old);
    memcpy(p, old, old_size < size ? old_size : size);
  }
  return p;
}

EXPORT void *realloc(void *old, size_t size) {
  count(K_REALLOC, size);
  if (need_bootstrap()) {
    void *p = bootstrap_alloc(size, 16);
    if (p && old) {
      size_t old_size = in_bootstrap(old) ? bootstrap_size(old) : 0;  // cannot ask glibc yet
      memcpy(p, old, old_size < size ? old_size : size);
    }
    return p;
  }
  if (old && in_bootstrap(old)) return realloc_bootstrap_block(old, size);
  return real_realloc(old, size);
}

EXPORT void *reallocarray(void *old, size_t count_, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count_, size, &total)) {
    errno = ENOMEM;
    return NULL;
  }
  count(K_REALLOCARRAY, total);
  if (need_bootstrap()) return realloc(old, total);
  if (old && in_bootstrap(old)) return realloc_bootstrap_block(old, total);
  if (real_reallocarray) return real_reallocarray(old, count_, size);
  return real_realloc(old, total);
}

EXPORT void free(void *p) {
  if (!p) {
    count(K_FREE_NULL, 0);
    return;
  }
  count(K_FREE, 0);
  if (in_bootstrap(p)) return;  // never reused
  if (need_bootstrap()) return;  // cannot happen: nothing real was allocated yet
  real_free(p);
}

EXPORT void *aligned_alloc(size_t alignment, size_t size) {
  count(K_ALIGNED_ALLOC, size);
  if (need_bootstrap()) return bootstrap_alloc(size, alignment);
  return real_aligned_alloc ? real_aligned_alloc(alignment, size) : real_memalign(alignment, size);
}

EXPORT int posix_memalign(void **out, size_t alignment, size_t size) {
  count(K_POSIX_MEMALIGN, size);
  if (need_bootstrap()) {
    *out = bootstrap_alloc(size, alignment);
    return *out ? 0 : ENOMEM;
  }
  return real_posix_memalign(out, alignment, size);
}

EXPORT void *memalign(size_t alignment, size_t size) {
  count(K_MEMALIGN, size);
  if (need_bootstrap()) return bootstrap_alloc(size, alignment);
  return real_memalign(alignment, size);
}

EXPORT void *valloc(size_t size) {
  count(K_VALLOC, size);
  if (need_bootstrap()) return bootstrap_alloc(size, 4096);
  return real_valloc(size);
}

EXPORT void *pvalloc(size_t size) {
  count(K_PVALLOC, size);
  if (need_bootstrap()) return bootstrap_alloc((size + 4095) & ~(size_t)4095, 4096);
  return real_pvalloc(size);
}

// ---------------------------------------------------------------------------
// Start-up: after libc is initialised (environment available), map the file
// and carry over what was counted before.

static void write_text(int fd, const char *text) { (void)!write(fd, text, strlen(text)); }

__attribute__((constructor)) static void start(void) {
  if (atomic_load(&resolver) != -1) resolve();
  const char *stacks = getenv("MALLOC_COUNTER_STACKS");
  if (stacks && *stacks) {
    void *frames[4];
    backtrace(frames, 4);  // loads libgcc_s now, while allocating is harmless
    dl_iterate_phdr(note_code, NULL);
    Dl_info info;
    if (dladdr((void *)&write, &info)) libc_base = info.dli_fbase;
    stack_fd = open(stacks, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  }
  const char *path = getenv("MALLOC_COUNTER_FILE");
  if (!path || !*path) return;
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ftruncate(fd, 4096) != 0) {
    write_text(2, "malloc-counter: cannot create $MALLOC_COUNTER_FILE; counting in memory only\n");
    if (fd >= 0) close(fd);
    return;
  }
  struct counters *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (page == MAP_FAILED) {
    write_text(2, "malloc-counter: cannot map $MALLOC_COUNTER_FILE; counting in memory only\n");
    return;
  }
  page->version = COUNTER_VERSION;
  page->pid = (uint64_t)getpid();
  // Single-threaded here (constructors run before main): nothing is lost
  // between the copy and the switch.
  for (int k = 0; k < K_COUNT; k++) atomic_store(&page->calls[k], atomic_load(&early.calls[k]));
  atomic_store(&page->bytes, atomic_load(&early.bytes));
  atomic_store(&page->bootstrap, atomic_load(&early.bootstrap));
  atomic_store(&shared, page);
  __atomic_store_n(&page->magic, COUNTER_MAGIC, __ATOMIC_RELEASE);  // now valid for readers
}

__attribute__((destructor)) static void stop(void) {
  if (!getenv("MALLOC_COUNTER_REPORT")) return;
  struct counters *c = atomic_load(&shared);
  text_length = 0;
  put("malloc-counter:");
  for (int k = 0; k < K_COUNT; k++) {
    put(" ");
    put(kind_names[k]);
    put("=");
    put_decimal(atomic_load(&c->calls[k]));
  }
  put("\n");
  (void)!write(2, text, text_length);
}

#else  // MALLOC_COUNTER_READER

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int arm = argc >= 3 && strcmp(argv[2], "arm") == 0;
  int disarm = argc == 3 && strcmp(argv[2], "disarm") == 0;
  char *end = NULL;
  uint64_t budget = 20;
  if (arm && argc == 4) budget = strtoull(argv[3], &end, 10);
  if (argc < 2 || (argc == 3 && !arm && !disarm) || (argc == 4 && (!arm || !end || *end)) || argc > 4) {
    fprintf(stderr,
            "usage: %s FILE          print the counters: allocs= frees= bytes= and one per function\n"
            "       %s FILE arm [N]  record the stacks of the next N allocations (20) in $MALLOC_COUNTER_STACKS\n"
            "       %s FILE disarm\n",
            argv[0], argv[0], argv[0]);
    return 2;
  }
  int fd = open(argv[1], argc >= 3 ? O_RDWR : O_RDONLY);
  if (fd < 0) {
    perror(argv[1]);
    return 1;
  }
  int prot = PROT_READ | (argc >= 3 ? PROT_WRITE : 0);
  struct counters *c = mmap(NULL, 4096, prot, MAP_SHARED, fd, 0);
  if (c == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) != COUNTER_MAGIC || c->version != COUNTER_VERSION) {
    fprintf(stderr, "%s: not (yet) a malloc-counter file\n", argv[1]);
    return 1;
  }
  if (argc >= 3) {
    atomic_store(&c->armed, arm ? budget : 0);
    return 0;
  }
  uint64_t calls[K_COUNT], allocs = 0;
  for (int k = 0; k < K_COUNT; k++) calls[k] = atomic_load_explicit(&c->calls[k], memory_order_relaxed);
  for (int k = 0; k < K_FREE; k++) allocs += calls[k];
  printf("allocs=%" PRIu64 " frees=%" PRIu64 " bytes=%" PRIu64, allocs, calls[K_FREE],
         atomic_load(&c->bytes));
  for (int k = 0; k < K_COUNT; k++) printf(" %s=%" PRIu64, kind_names[k], calls[k]);
  printf(" bootstrap=%" PRIu64 " stacks=%" PRIu64 " pid=%" PRIu64 "\n", atomic_load(&c->bootstrap),
         atomic_load(&c->stacks), c->pid);
  return 0;
}

#endif
