// app/openmp_defaults.cpp — the OpenMP runtime settings tensor-inspect starts with, where
// the user set none. libgomp (linked statically, see CMakeLists.txt) reads OMP_* and
// GOMP_* variables once, in a constructor of its own that runs before main; a constructor
// of priority 101 runs before every constructor without a priority, so it sets them first.
//
// NOTE: OMP_WAIT_POLICY=passive. Unset, libgomp lets a thread that waits — at the barrier
// that ends a parallel region, or between regions — spin through 300,000 pause
// instructions (a few milliseconds) before it sleeps on a futex. Our parallel regions are
// short (a block of printing, a statistics pass over one tensor), so the spinning is most
// of what a second thread costs, and on a virtual machine it takes the host's time from the
// thread still working. Measured on the 2-core VM (40 alternating runs each, median wall /
// CPU): printing 1e6 float16 values 14.0 / 17.6 ms spinning against 8.9 / 9.8 ms passive,
// 1e6 int64 18.1 / 21.6 against 15.7 / 18.4, --stats of a 98 MB bfloat16 tensor 20.2 /
// 27.2 against 17.8 / 23.1. A user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT still wins.
#include <cstdlib>

namespace {

__attribute__((constructor(101))) void set_openmp_defaults() {
  if (std::getenv("GOMP_SPINCOUNT") == nullptr) ::setenv("OMP_WAIT_POLICY", "passive", 0);
}

}  // namespace
