// validate/pytorch_legacy.cpp — torch.save's legacy layout (before PyTorch 1.6), read by the
// loader's own parser (loaders/pytorch_legacy.cpp) collecting every fault: the magic number
// and protocol version 1001, five pickles that run, each storage key named by the object
// with one type and numel, listed once, its 8-byte count equal to that numel and its bytes
// inside the file; nothing after the last storage (a warning: torch.load ignores it).
// Each pickle read whole is then walked opcode by opcode as a zip's data.pkl is
// (check_pickle: globals outside the weights_only allow-list, dict keys given twice).
#include "loaders/pytorch_legacy.hpp"

#include <algorithm>

#include "loaders/formats.hpp"
#include "loaders/zip_archive.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {

void check_legacy_pytorch(std::span<const std::byte> bytes, Findings& f) {
  const LegacyFaults collect("legacy", [&f](const LegacyFault& x) {
    if (x.warning)
      f.warning(x.rule, x.place, x.at, x.message);
    else
      f.error(x.rule, x.place, x.at, x.message);
  });
  const LegacyLayout layout = parse_pytorch_legacy(bytes, collect);
  for (std::size_t i = 0; i < layout.pickles.size(); ++i) {
    const auto [begin, end] = layout.pickles[i];
    Findings inner(f.all(), "pickle", "pickle " + std::to_string(i + 1));
    (void)check_pickle(bytes.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)), begin,
                       false, inner);
  }
}

void check_pytorch(const std::shared_ptr<const MappedFile>& file, Findings& f) {
  const auto head = file->bytes().first(std::min<std::size_t>(file->size(), 64));
  if (!sniff_zip(head) && sniff_pytorch_legacy(head))
    check_legacy_pytorch(file->bytes(), f);
  else
    check_zip(file, "pytorch", f);
}

}  // namespace tensor_inspect::validate
