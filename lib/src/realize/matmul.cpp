// matmul.cpp — matrix products through BLAS (OpenBLAS), where the dtype allows, and float32
// products over k <= 32 as tinygrad's unrolled MULACC chain (chain_gemm).
//
// tinygrad's matmul is sum(x.reshape(..., M, 1, K) * w.T.reshape(..., 1, N, K), axis=-1),
// accumulating in sum_acc_dtype: float32 products accumulate in float32 and float64 in
// float64, which is what sgemm and dgemm compute (with fused multiply-adds, as tinygrad's
// compiled CPU kernels contract them too). Half, bfloat16 and fp8 products round to their
// own dtype before the float32 sum, and ints wrap: BLAS computes neither, so those stay on
// the generic reduction. The operands are evaluated once each (any fused cast, view or
// decoder) into packed row-major M x K and N x K panels.
//
// Determinism: the output is cut into fixed blocks of kRows rows, each one single-threaded
// GEMM call, run on the executor's threads; OpenBLAS's own threading is switched off, so
// the bits never depend on the thread count (OpenBLAS splits only M and N across its
// threads anyway, never K, but a fixed partition makes that a property of ours).
//
// NOTE: OpenBLAS is loaded with dlopen at the first product, not linked: its start-up
// (CPU detection, buffers, a thread pool) costs milliseconds that every other run of the
// tool — a listing, a header — would pay. Without it, products take the generic path.
#include <cblas.h>
#include <dlfcn.h>
#include "log/log.hpp"

#include <cstdlib>

#include "realize/kernels.hpp"

namespace tensor_inspect::realize_detail {
namespace {

constexpr std::int64_t kRows = 64;
// Bytes the two operands' panels may take: a longer K is cut into slices, each slice's product
// added to the output (beta = 1). x.T @ x of a (262144, 256) float32 packed 512 MiB of panels, and
// its column walks over all rows kept the file's pages; a slice of 16,384 rows fits the block
// caches (block_reads.hpp). OpenBLAS cuts K into blocks of its own and adds each block's product to
// C the same way; a slice of fewer than kMinSlice would cost its speed.
constexpr std::uint64_t kPanelBytes = std::uint64_t{32} << 20;
constexpr std::int64_t kMinSlice = 256;
// Rows of K a slice takes at most: its column walks (x.T's rows are x's columns over the slice's
// rows) fit a thread's block cache on 4 threads at rows of 512 bytes (out_of_order_bytes / 4 / 512).
// On 4 threads, slices of 87,296 rows of a (1200000, 24) float64 went through the file map (295 MiB).
// A constant, not the thread count: the slices decide the bits.
constexpr std::uint64_t kSliceRows = 16384;
// codegen/opt/heuristic.py unrolls a reduce of at most 32 whole (mulacc_chain_product).
constexpr std::int64_t kChainMax = 32;

struct Blas {
  decltype(&cblas_sgemm) sgemm;
  decltype(&cblas_dgemm) dgemm;
};

// OpenBLAS, single-threaded, or nullptr when it cannot be loaded.
const Blas* blas() {
  static const Blas* loaded = []() -> const Blas* {
    // No pool of OpenBLAS threads next to the executor's (an explicit setting is kept; the
    // call below switches its threading off either way).
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    void* lib = nullptr;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (lib == nullptr) {
      lib_log().debug("matmul: OpenBLAS not loaded ({}); generic loops", dlerror());
      return nullptr;
    }
    auto set_threads = reinterpret_cast<decltype(&openblas_set_num_threads)>(dlsym(lib, "openblas_set_num_threads"));
    static Blas b{reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(lib, "cblas_sgemm")),
                  reinterpret_cast<decltype(&cblas_dgemm)>(dlsym(lib, "cblas_dgemm"))};
    if (set_threads == nullptr || b.sgemm == nullptr || b.dgemm == nullptr) return nullptr;
    set_threads(1);
    return &b;
  }();
  return loaded;
}

// x is independent of `axis` when it is an expand of a size-1 axis.
bool broadcast_on(const Node& x, std::size_t axis) { return x.op == Op::Expand && x.src[0]->shape[axis] == 1; }

// Evaluates `operand` (a node of shape (..., 1 or M, 1 or N, K)) into packed values of T.
// A file read in order gives its pages back behind the packing (release_behind.hpp): a batched
// product's slices kept every page they read (x.permute(0, 2, 1) @ x of a 117 MiB file: 160 MiB).
template <typename T>
std::vector<T> pack(const NodePtr& operand, const BufferMap& buffers) {
  const Program prog = lower(operand, buffers);
  const std::int64_t n = prod(operand->shape);
  std::vector<T> out(static_cast<std::size_t>(n));
  ReleaseBehind release(prog);
  parallel_for((n + static_cast<std::int64_t>(kChunk) - 1) / static_cast<std::int64_t>(kChunk),
               [&] { return ChunkEvaluator(prog); },
               [&](ChunkEvaluator& ev, std::int64_t c) {
                 const std::int64_t start = c * static_cast<std::int64_t>(kChunk);
                 const auto m =
                     static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(kChunk), n - start));
                 const Word* v = ev.run(start, m);
                 for (std::size_t i = 0; i < m; ++i) out[static_cast<std::size_t>(start) + i] = static_cast<T>(v[i].f);
               },
               prog.serial(), [&](std::int64_t done) { release(done * static_cast<std::int64_t>(kChunk)); },
               release.batch_items(static_cast<std::int64_t>(kChunk)));
  release.finish();
  return out;
}

// A float32 product over k <= 32 is tinygrad's unrolled MULACC chain (mulacc.hpp has the rule
// and its sources): s = a0*b0 exact in a double, s = f32(s + f32(a1*b1)), then s = f32(ak*bk + s).
// The products of two floats are exact in a double, so the loop needs no fma; the same bits as
// mulacc_chain, at a loop's speed rather than the generic reduction's.
void chain_gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i) {
    const float* ai = a + i * k;
    for (std::int64_t j = 0; j < n; ++j) {
      const float* bj = b + j * k;
      double s = static_cast<double>(ai[0]) * static_cast<double>(bj[0]);
      if (k > 1) {
        const float p1 = static_cast<float>(static_cast<double>(ai[1]) * static_cast<double>(bj[1]));
        s = static_cast<double>(static_cast<float>(s + static_cast<double>(p1)));
      }
      for (std::int64_t t = 2; t < k; ++t)
        s = static_cast<double>(static_cast<float>(static_cast<double>(ai[t]) * static_cast<double>(bj[t]) + s));
      c[i * n + j] = static_cast<float>(s);
    }
  }
}

// c = a @ b.T (beta 0), or c += a @ b.T (beta 1: a later slice of K).
void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k, float beta) {
  if (k <= kChainMax && k % 8 != 0) return chain_gemm(a, b, c, m, n, k);  // never sliced: k <= kMinSlice
  blas()->sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                1.0f, a, static_cast<int>(k), b, static_cast<int>(k), beta, c, static_cast<int>(n));
}
void gemm(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k, double beta) {
  blas()->dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                1.0, a, static_cast<int>(k), b, static_cast<int>(k), beta, c, static_cast<int>(n));
}

// Elements [k0, k1) of the last axis of `operand`.
NodePtr k_slice(const NodePtr& operand, std::int64_t k0, std::int64_t k1) {
  const Shape& shape = operand->shape;
  if (k0 == 0 && k1 == shape.back()) return operand;
  Ranges ranges;
  for (const std::int64_t d : shape) ranges.emplace_back(0, d);
  ranges.back() = {k0, k1};
  Shape sliced = shape;
  sliced.back() = k1 - k0;
  return make_node(Op::Shrink, operand->dtype, sliced, {operand}, ranges);
}

template <typename T>
NodePtr run(const NodePtr& red, const NodePtr& a_node, const NodePtr& b_node, const BufferMap& buffers) {
  const Shape& s = red->src[0]->shape;  // (batch..., M, N, K)
  const std::size_t nd = s.size();
  const std::int64_t m = s[nd - 3], n = s[nd - 2], k = s[nd - 1];
  const Shape batch(s.begin(), s.end() - 3);
  const std::int64_t batches = prod(batch);
  lib_log().debug("matmul: {} batches of ({}, {}) x ({}, {}) through {}", batches, m, k, k, n,
                  sizeof(T) == 8 ? "dgemm" : k <= kChainMax && k % 8 != 0 ? "the MULACC chain" : "sgemm");
  // Panel rows per element of K, of both operands: a slice of K holds kPanelBytes of them.
  const auto per_k = static_cast<std::uint64_t>(prod(a_node->shape) / k + prod(b_node->shape) / k) * sizeof(T);
  const auto most = static_cast<std::int64_t>(std::min(kPanelBytes / per_k, kSliceRows));
  const std::int64_t slice = per_k * static_cast<std::uint64_t>(k) <= kPanelBytes
                                 ? k
                                 : std::min(k, std::max(kMinSlice, most / kMinSlice * kMinSlice));
  if (slice < k) lib_log().debug("matmul: K in slices of {}", slice);
  auto buf = Buffer::cpu(static_cast<std::size_t>(batches * m * n) * sizeof(T));
  T* c = reinterpret_cast<T*>(buf->mutable_bytes().data());
  const std::int64_t row_blocks = (m + kRows - 1) / kRows;
  for (std::int64_t k0 = 0; k0 < k; k0 += slice) {
    const std::int64_t kk = std::min(slice, k - k0);
    const std::vector<T> a = pack<T>(k_slice(a_node, k0, k0 + kk), buffers),
                         b = pack<T>(k_slice(b_node, k0, k0 + kk), buffers);
    // Batch strides of each panel set: 0 along axes the operand broadcasts.
    std::vector<std::int64_t> a_stride(batch.size()), b_stride(batch.size());
    for (std::int64_t sa = m * kk, sb = n * kk, d = static_cast<std::int64_t>(batch.size()) - 1; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      a_stride[du] = a_node->shape[du] == 1 ? 0 : sa;
      b_stride[du] = b_node->shape[du] == 1 ? 0 : sb;
      sa *= a_node->shape[du];
      sb *= b_node->shape[du];
    }
    parallel_for(
        batches * row_blocks, [] { return 0; },
        [&](int, std::int64_t t) {
          const std::int64_t bi = t / row_blocks, r0 = (t % row_blocks) * kRows, rows = std::min(kRows, m - r0);
          std::int64_t ao = 0, bo = 0;
          for (std::int64_t rest = bi, d = static_cast<std::int64_t>(batch.size()) - 1; d >= 0; --d) {
            const auto du = static_cast<std::size_t>(d);
            const std::int64_t i = rest % batch[du];
            rest /= batch[du];
            ao += i * a_stride[du];
            bo += i * b_stride[du];
          }
          gemm(a.data() + ao + r0 * kk, b.data() + bo, c + (bi * m + r0) * n, rows, n, kk, T(k0 == 0 ? 0 : 1));
        });
  }
  return make_node(Op::Buffer, red->dtype, red->shape, {}, buf);
}

}  // namespace

NodePtr try_run_matmul(const Kernel& kernel, const BufferMap& buffers) {
  const NodePtr& out = kernel.output;
  const NodePtr red = out->op == Op::Contiguous ? out->src[0] : out;
  const NodePtr& in = red->src[0];
  const DType d = red->dtype;
  if (red->op != Op::ReduceSum || (d != DType::Float32 && d != DType::Float64) || in->op != Op::Mul) return nullptr;
  const std::size_t nd = in->shape.size();
  if (nd < 3) return nullptr;
  for (std::size_t i = 0; i + 1 < nd; ++i)
    if (red->shape[i] != in->shape[i]) return nullptr;
  if (red->shape[nd - 1] != 1) return nullptr;
  NodePtr a = in->src[0], b = in->src[1];
  if (buffers.count(a.get()) || buffers.count(b.get())) return nullptr;
  if (!broadcast_on(*a, nd - 2) || !broadcast_on(*b, nd - 3)) std::swap(a, b);
  if (!broadcast_on(*a, nd - 2) || !broadcast_on(*b, nd - 3)) return nullptr;
  const std::int64_t m = in->shape[nd - 3], n = in->shape[nd - 2], k = in->shape[nd - 1];
  // BLAS takes int dimensions; a product beyond them (or of nothing) takes the generic path.
  constexpr std::int64_t kIntMax = 2147483647;
  if (m <= 0 || n <= 0 || k <= 0 || m > kIntMax || n > kIntMax || k > kIntMax || n * k > kIntMax) return nullptr;
  // A float32 product over k <= 32 is the MULACC chain (mulacc.hpp) on every tinygrad backend: the
  // unrolled reduce fused into `fma(a0, b0, a1*b1)`, then `fma(ak, bk, partial)` (DEV=PYTHON's
  // double `(x*y)+z` rounded once), which chain_gemm computes and sgemm does not; it needs no BLAS.
  // k % 8 == 0 is grouped by tinygrad (GROUPTOP, matvec; mulacc_chain_product) and stays on sgemm.
  if (!(d == DType::Float32 && k <= kChainMax && k % 8 != 0) && blas() == nullptr) return nullptr;
  return d == DType::Float32 ? run<float>(red, a->src[0], b->src[0], buffers)
                             : run<double>(red, a->src[0], b->src[0], buffers);
}

}  // namespace tensor_inspect::realize_detail
