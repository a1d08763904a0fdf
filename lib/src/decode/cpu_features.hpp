// decode/cpu_features.hpp — whether this CPU runs the AVX2 paths of the decoders and the statistics kernels, read
// from what glibc's dynamic loader found at start-up (<sys/platform/x86.h>, glibc 2.33+).
//
// NOTE: not GCC's target_clones or __builtin_cpu_supports. Those link libgcc's
// __cpu_indicator_init, a constructor that runs a dozen CPUID instructions in every process
// before main; on a virtual machine each CPUID is a trap to the hypervisor, and they were
// 6.8 % of the samples of `tensor-inspect 5` on the 2-core VM (perf, 300 runs). The
// loader has already run CPUID once for glibc itself; this reads its answer.
#pragma once

#if defined(__clang__)
// glibc 2.36's header spells C's _Bool, which clang++ does not take in C++ (g++ does).
#define _Bool bool
#include <sys/platform/x86.h>
#undef _Bool
#else
#include <sys/platform/x86.h>
#endif

namespace tensor_inspect {

/// True when the CPU and the OS both allow AVX2 and F16C (vcvtph2ps): the statistics
/// kernels then take their 256-bit paths, which give the same bits as the portable ones.
inline bool cpu_has_avx2_f16c() {
  static const bool active = CPU_FEATURE_ACTIVE(AVX2) && CPU_FEATURE_ACTIVE(F16C);
  return active;
}

}  // namespace tensor_inspect
