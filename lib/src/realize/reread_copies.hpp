// reread_copies.hpp — a remote tensor that a schedule reads more than once, copied to a temporary
// file before the first kernel runs, so that each pass reads the copy instead of fetching it again.
//
// Each kernel's scan of a remote file fetches what it reads and gives it back behind it (bounded
// memory), so a second kernel over the same tensor fetched it again: `x.argmax()` (tinygrad's max,
// then the first index equal to it), `x - x.mean()`, `x.cumsum()` past 2**23 rows (two passes),
// `(x + x.T).sum()` (one kernel reading it in order and out of order) transferred 2.0 times the
// tensor. Now such a tensor is streamed once into an unnamed file in $TMPDIR, else /var/tmp
// (buffer/spill_file.hpp), and every kernel reads that as a local file, its pages given back behind
// each scan. A copy that cannot be made (no room) is no error: the kernels fetch as before.
#pragma once

#include <vector>

#include "realize/program.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect::realize_detail {

/// For each BUFFER node of a remote file of more than Limits::remote_memory_bytes / 4 (a remote block
/// cache's size: a smaller one is fetched again, or held, at little cost) that `kernels` read more
/// than once (two kernels, or one under two movement chains; a scan split in two passes twice),
/// each read reaching a quarter of it or more (x[:10] twice is no reason to copy it all; a
/// scan reads its rows up to the last it outputs), a BUFFER node of the same dtype and
/// shape over its copy on disk: stand-ins that lower() reads instead. Logs each copy at -v, and a
/// copy that cannot be made. Throws Error(Io) as a fetch does when the transfer fails.
BufferMap reread_copies(const std::vector<Kernel>& kernels);

}  // namespace tensor_inspect::realize_detail
