// reduce_leading.cpp — a reduction over the leading axes of a tensor read from a file, in the
// file's order. `x.sum(axis=0)` of a (R, K) tensor folds each column over the rows; reduce.cpp
// permutes the index space so each output's elements are consecutive, which reads the file
// column by column: every page of it at once (a remote file fetched whole before the kernel
// runs). Here the rows are read in order instead, each output keeping its partial: the values
// are reduce.cpp's bit for bit (the same blocks of kChunk rows, each folded row after row as
// Fold::block folds it, the block partials met in the same tree), and the file is read once,
// front to back, its pages given back behind the scan (a remote one fetched as it is read).
#include "realize/reduce_leading.hpp"

#include <algorithm>

#include "realize/chunk.hpp"
#include "realize/kernels.hpp"
#include "realize/mulacc.hpp"

namespace tensor_inspect::realize_detail {

bool reduces_leading_axes(const Shape& in, const Shape& out) {
  bool kept_seen = false, reduced_after_kept = false, reduced_any = false;
  for (std::size_t a = 0; a < in.size(); ++a) {
    if (in[a] == 1) continue;
    const bool reduced = out[a] == 1;
    reduced_any = reduced_any || reduced;
    if (reduced && kept_seen) reduced_after_kept = true;
    kept_seen = kept_seen || !reduced;
  }
  return reduced_any && kept_seen && !reduced_after_kept;
}

bool reads_a_file(const Program& prog) {
  return std::any_of(prog.nodes.begin(), prog.nodes.end(),
                     [](const Instance& i) {
                       return i.kind == Instance::Load && (i.file != nullptr || i.fetch_on_read);
                     });
}

std::vector<Word> fold_leading_axes(const Program& prog, const Fold& fold, std::int64_t rows, std::int64_t cols,
                                    ReleaseBehind& release) {
  const auto chunk = static_cast<std::int64_t>(kChunk);
  const std::int64_t blocks = (rows + chunk - 1) / chunk;
  // partial[b * cols + k]: output k's fold over the rows of block b.
  std::vector<Word> partial(static_cast<std::size_t>(blocks * cols));
  // A short sum of products is tinygrad's MULACC chain (mulacc.hpp), as in reduce.cpp: one block.
  const Instance* product = mulacc_chain_product(prog, fold.op, fold.dtype, rows);
  // Row r's values of columns [k0, k0 + n), at `offset` in the evaluator's last run, folded in.
  auto fold_rows = [&](ChunkEvaluator& ev, Word* acc, std::size_t offset, std::int64_t n, std::int64_t r,
                       bool first_row, bool first_block) {
    const Word* v = ev.values(prog.root()) + offset;
    if (product) {
      const Word* a = ev.values(product->src[0]) + offset;
      const Word* b = ev.values(product->src[1]) + offset;
      for (std::int64_t j = 0; j < n; ++j) acc[j] = mulacc_chain_step(acc[j], a[j].f, b[j].f, r, fold.dtype);
    } else if (first_row) {
      for (std::int64_t j = 0; j < n; ++j) acc[j] = fold.block(v + j, 1, first_block);
    } else {
      for (std::int64_t j = 0; j < n; ++j) acc[j] = fold.step(acc[j], v[j]);
    }
  };
  // Rows [r0, r1) of block b, in order; after_rows(r) once rows [.., r) are folded.
  auto run_rows = [&](ChunkEvaluator& ev, std::int64_t b, std::int64_t r0, std::int64_t r1, auto&& after_rows) {
    Word* acc = partial.data() + b * cols;
    const std::int64_t block_r0 = b * chunk;
    if (cols <= chunk) {  // whole rows per evaluation
      const std::int64_t per_run = chunk / cols;
      for (std::int64_t r = r0; r < r1;) {
        const std::int64_t n = std::min(per_run, r1 - r);
        ev.run(r * cols, static_cast<std::size_t>(n * cols));
        for (std::int64_t i = 0; i < n; ++i)
          fold_rows(ev, acc, static_cast<std::size_t>(i * cols), cols, r + i, r + i == block_r0, b == 0);
        after_rows(r += n);
      }
      return;
    }
    for (std::int64_t r = r0; r < r1; ++r) {  // a row in pieces
      for (std::int64_t k0 = 0; k0 < cols; k0 += chunk) {
        const std::int64_t n = std::min(chunk, cols - k0);
        ev.run(r * cols + k0, static_cast<std::size_t>(n));
        fold_rows(ev, acc + k0, 0, n, r, r == block_r0, b == 0);
      }
      after_rows(r + 1);
    }
  };
  // A remote file is fetched as it is read, its windows bounded by remote_memory_bytes: read in
  // order on one thread. A local one runs whole blocks on all threads when two fit the window.
  const bool remote =
      std::any_of(prog.nodes.begin(), prog.nodes.end(), [](const Instance& i) { return i.fetch_on_read; });
  const std::int64_t block_elements = chunk * cols;
  // Elements read between two releases when whole blocks run on all threads: 32 MiB of float32
  // read in order, fewer elements under a step.
  const std::int64_t window_elements = release.batch_items(chunk) * chunk;
  if (!remote && 2 * block_elements <= window_elements) {
    // Whole blocks on all threads, a window of them at a time, given back behind.
    const std::int64_t per_batch = window_elements / block_elements;
    for (std::int64_t b0 = 0; b0 < blocks; b0 += per_batch) {
      const std::int64_t n = std::min(per_batch, blocks - b0);
      parallel_for(
          n, [&] { return ChunkEvaluator(prog); },
          [&](ChunkEvaluator& ev, std::int64_t i) {
            const std::int64_t b = b0 + i;
            run_rows(ev, b, b * chunk, std::min(rows, (b + 1) * chunk), [](std::int64_t) {});
          },
          prog.serial());
      release(std::min(rows, (b0 + n) * chunk) * cols);
    }
  } else {
    // Row after row on this thread, given back as they go.
    ChunkEvaluator ev(prog);
    for (std::int64_t b = 0; b < blocks; ++b)
      run_rows(ev, b, b * chunk, std::min(rows, (b + 1) * chunk), [&](std::int64_t r) { release(r * cols); });
  }
  std::vector<Word> out(static_cast<std::size_t>(cols)), leaves(static_cast<std::size_t>(blocks));
  auto combine = [&fold](Word a, Word c) { return fold.combine(a, c); };
  for (std::int64_t k = 0; k < cols; ++k) {
    for (std::int64_t b = 0; b < blocks; ++b)
      leaves[static_cast<std::size_t>(b)] = partial[static_cast<std::size_t>(b * cols + k)];
    out[static_cast<std::size_t>(k)] = tree_fold(leaves.data(), blocks, combine);
  }
  return out;
}

}  // namespace tensor_inspect::realize_detail
