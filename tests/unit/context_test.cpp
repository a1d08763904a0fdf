// Tests of context/context.cpp: the caps, remote options and progress hook a thread runs
// under (context.hpp), per thread and per scope, and inherited by OpenMP workers.
#include <doctest/doctest.h>
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <latch>
#include <thread>
#include <utility>
#include <vector>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/context.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/tensor.hpp"

namespace ti = tensor_inspect;

namespace {

// A Context like the one in force, with buffer_bytes set to `cap`.
ti::Context context_capping_buffers(std::uint64_t cap) {
  ti::Context c = ti::current_context();
  c.limits.buffer_bytes = cap;
  return c;
}

}  // namespace

TEST_CASE("two threads under two ContextScopes use two different caps at once, without racing") {
  const std::uint64_t process_cap = ti::limits().buffer_bytes;
  constexpr int kRounds = 200;
  std::latch both_in_scope(2);
  int refused[2] = {0, 0};
  std::uint64_t seen[2] = {0, 0};
  auto run = [&](int who, std::uint64_t cap) {
    const ti::ContextScope scope(context_capping_buffers(cap));
    both_in_scope.arrive_and_wait();  // each allocates while the other's scope is live
    seen[who] = ti::limits().buffer_bytes;
    for (int i = 0; i < kRounds; ++i) {
      try {
        (void)ti::Buffer::cpu(3000);  // over 1000, under 4096
      } catch (const ti::Error& e) {
        refused[who] += e.code() == ti::ErrorCode::LimitExceeded && e.limit() == "buffer_bytes";
      }
    }
  };
  std::thread small(run, 0, 1000), large(run, 1, 4096);
  small.join();
  large.join();
  CHECK(seen[0] == 1000);
  CHECK(seen[1] == 4096);
  CHECK(refused[0] == kRounds);
  CHECK(refused[1] == 0);
  CHECK(ti::limits().buffer_bytes == process_cap);  // this thread never left the default
}

TEST_CASE("scopes nest and restore; the old setters write the process default only") {
  const ti::Limits saved = ti::limits();
  {
    const ti::ContextScope outer(context_capping_buffers(111));
    {
      const ti::ContextScope inner(context_capping_buffers(222));
      CHECK(ti::limits().buffer_bytes == 222);
    }
    CHECK(ti::limits().buffer_bytes == 111);
    ti::Limits l = saved;
    l.buffer_bytes = 333;
    ti::set_limits(l);  // the default changes, the scope does not
    CHECK(ti::limits().buffer_bytes == 111);
    CHECK(ti::default_context().limits.buffer_bytes == 333);
  }
  CHECK(ti::limits().buffer_bytes == 333);
  ti::set_limits(saved);
  CHECK(ti::limits().buffer_bytes == saved.buffer_bytes);
}

TEST_CASE("a ContextScope's remote options are those remote_options() gives on its thread") {
  ti::Context c = ti::current_context();
  c.remote.timeout_seconds = 7;
  const long process_timeout = ti::remote_options().timeout_seconds;
  {
    const ti::ContextScope scope(c);
    CHECK(ti::remote_options().timeout_seconds == 7);
    long other = 0;
    std::thread([&] { other = ti::remote_options().timeout_seconds; }).join();
    CHECK(other == process_timeout);  // a thread of its own runs under the default
  }
  CHECK(ti::remote_options().timeout_seconds == process_timeout);
}

TEST_CASE("a ContextScope's progress hook hears its thread's kernels, the default's does not") {
  std::atomic<int> heard_default{0};
  auto saved = ti::set_progress_hook([&](std::int64_t, std::int64_t) { ++heard_default; });
  std::vector<std::pair<std::int64_t, std::int64_t>> reports;
  {
    ti::Context c = ti::current_context();
    c.progress = [&](std::int64_t done, std::int64_t total) { reports.emplace_back(done, total); };
    const ti::ContextScope scope(std::move(c));
    // 2**25 broadcast ones: 16384 blocks, four batches of 4096 (reduce_test.cpp's kernel).
    const ti::Tensor row = ti::Tensor::full({1, 1 << 12}, ti::Scalar::from_float(1.0), ti::DType::Float32).contiguous();
    CHECK(ti::data(row.expand({1 << 13, 1 << 12}).reduce(ti::Op::ReduceSum, {0, 1})).element(0).f == 33554432.0);
  }
  ti::set_progress_hook(std::move(saved));
  CHECK(reports.size() == 4);
  CHECK(heard_default == 0);
}

TEST_CASE("ContextScope::borrowing gives OpenMP workers the caller's context") {
  const ti::ContextScope scope(context_capping_buffers(5555));
  const ti::Context& caller = ti::current_context();
  std::atomic<int> wrong{0}, workers{0};
#pragma omp parallel num_threads(4)
  {
    const ti::ContextScope inherited = ti::ContextScope::borrowing(caller);
    ++workers;
    if (ti::limits().buffer_bytes != 5555) ++wrong;
  }
  CHECK(workers >= 1);
  CHECK(wrong == 0);
  CHECK(ti::limits().buffer_bytes == 5555);  // the caller's own scope is back after the region
}
