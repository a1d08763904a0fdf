// validate/pickle.cpp — the opcodes of a pickle (CPython Lib/pickletools.py, protocols
// 0-5), walked without running anything: every opcode known, every argument inside the
// input, a STOP at the end; and every global it imports checked against PyTorch's
// weights_only allow-list (torch/_weights_only_unpickler.py), since any other global is
// code that torch.load(weights_only=False) would run; and no dict key given twice (the
// pickle run as the loader runs it). Findings name the byte offset. The opcodes and their
// arguments are the loader's table (loaders/pickle_opcodes.hpp): here only the rules.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "loaders/byte_reader.hpp"
#include "loaders/pickle.hpp"
#include "loaders/pickle_opcodes.hpp"
#include "loaders/pytorch_allowlist.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

// Dict keys given again: Python's dict keeps one entry, with the last value, so the
// earlier values (a tensor) are silently lost. The pickle is run by the loader's machine,
// which builds dicts as Python does; a pickle it cannot run (protocol 0 text opcodes) is
// left to the opcode rules and the loader.
void check_duplicate_keys(std::span<const std::byte> bytes, std::uint64_t base, Findings& f) {
  Pickled p;
  try {
    p = read_pickle(bytes, "pickle");
  } catch (const Error&) {
    return;
  }
  for (const PickleDuplicate& d : p.duplicates)
    f.error("duplicate_key", "key " + d.key, base + d.again,
            "dict key " + d.key + " appears again (first at byte " + std::to_string(base + d.first) +
                "): Python keeps one entry, with the last value");
  if (p.duplicate_count > p.duplicates.size())
    f.error("duplicate_key", "", std::nullopt,
            std::to_string(p.duplicate_count - p.duplicates.size()) + " more dict keys appear again");
}

}  // namespace

std::uint64_t check_pickle(std::span<const std::byte> bytes, std::uint64_t base, bool whole, Findings& f) {
  ByteReader r(bytes, "pickle", base);
  // Strings pushed lately and strings in the memo, enough to name STACK_GLOBAL's module
  // and name (torch.save memoizes them).
  std::vector<std::string> strings;
  std::map<std::uint64_t, std::string> memo;
  std::uint64_t memo_next = 0;
  auto push_string = [&](std::string s) {
    strings.push_back(std::move(s));
    if (strings.size() > 2) strings.erase(strings.begin());
  };
  auto global = [&](const std::string& name, std::uint64_t at) {
    if (!torch_allows_global(name))
      f.warning("global", "global '" + name + "'", at,
                "global '" + name + "' is outside PyTorch's weights_only allow-list: loading it can run code");
  };
  while (r.remaining() > 0) {
    const std::uint64_t at = r.offset();
    const auto code = static_cast<char>(r.u8("opcode"));
    const PickleOpcode* op = pickle_opcode(static_cast<std::uint8_t>(code));
    if (!op) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(code)));
      f.error("opcode", "opcode", at, std::string("unknown opcode ") + hex);
      return bytes.size();  // the rest cannot be decoded
    }
    // The argument as the loader reads it (loaders/pickle_opcodes.hpp); protocol 0's text
    // lines, which the loader refuses to run, may be long here.
    PickleArgument arg = read_pickle_argument(r, *op, 65536);
    const std::uint64_t n = arg.n;
    std::string& text = arg.text;
    const std::string_view name = op->name;
    if (name == "PROTO" && n > 5)
      f.error("protocol", "PROTO", at, "protocol " + std::to_string(n) + " (pickle knows 0..5)");
    if (name == "STOP") {
      if (whole && r.remaining() > 0)
        f.warning("trailing", "after STOP", r.offset(),
                  std::to_string(r.remaining()) + " bytes after the pickle's STOP");
      check_duplicate_keys(bytes.first(static_cast<std::size_t>(r.pos())), base, f);
      return r.pos();
    }
    if (name == "GLOBAL" || name == "INST") global(text, at);
    if (name == "STACK_GLOBAL") global(strings.size() == 2 ? strings[0] + "." + strings[1] : "<computed>", at);
    if (name == "EXT1" || name == "EXT2" || name == "EXT4")
      f.warning("extension", std::string(name), at,
                std::string(name) + " imports through the copyreg extension registry");
    if (name == "SHORT_BINUNICODE" || name == "BINUNICODE" || name == "BINUNICODE8" || name == "UNICODE")
      push_string(text);
    else if (name == "MEMOIZE" || name == "BINPUT" || name == "LONG_BINPUT" || name == "PUT") {
      const std::uint64_t idx = name == "MEMOIZE" ? memo_next++ : name == "PUT" ? 0 : n;
      if (!strings.empty() && memo.size() < 1'000'000) memo[idx] = strings.back();
    } else if (name == "BINGET" || name == "LONG_BINGET") {
      auto it = memo.find(n);
      push_string(it == memo.end() ? std::string("<object>") : it->second);
    } else if (name != "FRAME" && name != "PROTO") {
      push_string("<object>");
    }
  }
  f.error("no_stop", "end", r.offset(), "the pickle ends without a STOP opcode");
  return bytes.size();
}

}  // namespace tensor_inspect::validate
