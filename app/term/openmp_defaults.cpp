// app/term/openmp_defaults.cpp — the OpenMP runtime settings tensor-inspect starts with, where
// the user set none. libgomp (linked statically, see CMakeLists.txt) reads OMP_* and
// GOMP_* variables once, in a constructor of its own that runs before main; a constructor
// of priority 101 runs before every constructor without a priority, so it sets them first.
// (LLVM's libomp, in the sanitizer build, reads them at the first parallel region.)
//
// Measured on the 2-core VM the benchmarks run on (20-40 alternating runs each, median
// wall time; CPU time barely moves): printing 1e6 int64 18.9 -> 11.4 ms, 1e6 float16
// 10.5 -> 7.1 ms, 1e7 float32 277 -> 206 ms, --stats of a 98 MB bfloat16 tensor
// 29.7 -> 17.1 ms, from both settings below together.
#include <sched.h>

#include <cstdlib>
#include <string>

namespace {

bool set(const char* name) { return std::getenv(name) != nullptr; }

// NOTE: OMP_WAIT_POLICY=passive. Unset, libgomp lets a thread that waits — at the barrier
// that ends a parallel region, or between regions — spin through 300,000 pause
// instructions (a few milliseconds) before it sleeps on a futex; our regions are short (a
// block of printing, a statistics pass over one tensor), and a spinning thread that shares
// a core with the one still working takes its time.
void wait_passively() {
  if (!set("GOMP_SPINCOUNT")) ::setenv("OMP_WAIT_POLICY", "passive", 0);
}

// NOTE: OMP_PLACES="{every allowed CPU},{c1},{c2},..." with OMP_PROC_BIND=close: the
// initial thread stays free to run anywhere, and worker i is held to the i-th allowed CPU
// other than the one the process starts on. Left alone, the kernel wakes a worker on the
// CPU of the thread that wakes it when the other CPU is idle (on this VM an idle vCPU
// does not count as available), so both threads of a region took turns on one core: perf
// sched showed a 1e6-int64 print alternating 0.5 ms slices on CPU 0 with CPU 1 idle. A
// futex round trip to a sleeping thread on another vCPU takes 69 us at the median and
// 0.4 ms at the 90th percentile here, so a region pays that once, not once per block.
// Binding the initial thread too (OMP_PROC_BIND=true) gave the same times but would hold
// the whole process, and every thread it starts (OpenBLAS's, libcurl's), to one CPU.
void place_workers() {
  if (set("OMP_PLACES") || set("OMP_PROC_BIND") || set("GOMP_CPU_AFFINITY") || set("KMP_AFFINITY")) return;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return;
  const int here = ::sched_getcpu();
  std::string all, workers;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(static_cast<std::size_t>(cpu), &allowed)) continue;
    all += (all.empty() ? "" : ",") + std::to_string(cpu);
    if (cpu != here) workers += ",{" + std::to_string(cpu) + "}";
  }
  if (workers.empty()) return;
  ::setenv("OMP_PLACES", ("{" + all + "}" + workers).c_str(), 0);
  ::setenv("OMP_PROC_BIND", "close", 0);
}

// NOTE: OMP_THREAD_LIMIT of 8 threads per allowed CPU (at least 64). OMP_NUM_THREADS=100000
// made libgomp crash in gomp_team_start (SIGSEGV) and 50000 made it exit 1 ("Thread
// creation failed"), which a CI job reads as a check that failed; more threads than
// that never help a scan that is done in chunks.
void limit_threads() {
  if (set("OMP_THREAD_LIMIT")) return;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const int cpus = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
  ::setenv("OMP_THREAD_LIMIT", std::to_string(cpus * 8 > 64 ? cpus * 8 : 64).c_str(), 0);
}

__attribute__((constructor(101))) void set_openmp_defaults() {
  wait_passively();
  place_workers();
  limit_threads();
}

}  // namespace
