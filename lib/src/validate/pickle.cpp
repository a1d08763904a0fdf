// validate/pickle.cpp — the opcodes of a pickle (CPython Lib/pickletools.py, protocols
// 0-5), walked without running anything: every opcode known, every argument inside the
// input, a STOP at the end; and every global it imports checked against PyTorch's
// weights_only allow-list (torch/_weights_only_unpickler.py), since any other global is
// code that torch.load(weights_only=False) would run; and no dict key given twice (the
// pickle run as the loader runs it). Findings name the byte offset.
#include <map>
#include <string>
#include <vector>

#include "loaders/byte_reader.hpp"
#include "loaders/pickle.hpp"
#include "loaders/pytorch_allowlist.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

// How an opcode's argument is encoded (pickletools' ArgumentDescriptor, simplified).
enum class Arg { None, U1, U2, U4, U8, Line, TwoLines, Len1, Len4, Len8 };

struct Opcode {
  char code;
  const char* name;
  Arg arg;
};

constexpr Opcode kOpcodes[] = {
    {'(', "MARK", Arg::None}, {'.', "STOP", Arg::None}, {'0', "POP", Arg::None}, {'1', "POP_MARK", Arg::None},
    {'2', "DUP", Arg::None}, {'F', "FLOAT", Arg::Line}, {'I', "INT", Arg::Line}, {'J', "BININT", Arg::U4},
    {'K', "BININT1", Arg::U1}, {'L', "LONG", Arg::Line}, {'M', "BININT2", Arg::U2}, {'N', "NONE", Arg::None},
    {'P', "PERSID", Arg::Line}, {'Q', "BINPERSID", Arg::None}, {'R', "REDUCE", Arg::None}, {'S', "STRING", Arg::Line},
    {'T', "BINSTRING", Arg::Len4}, {'U', "SHORT_BINSTRING", Arg::Len1}, {'V', "UNICODE", Arg::Line},
    {'X', "BINUNICODE", Arg::Len4}, {'a', "APPEND", Arg::None}, {'b', "BUILD", Arg::None}, {'c', "GLOBAL", Arg::TwoLines},
    {'d', "DICT", Arg::None}, {'}', "EMPTY_DICT", Arg::None}, {'e', "APPENDS", Arg::None}, {'g', "GET", Arg::Line},
    {'h', "BINGET", Arg::U1}, {'i', "INST", Arg::TwoLines}, {'j', "LONG_BINGET", Arg::U4}, {'l', "LIST", Arg::None},
    {']', "EMPTY_LIST", Arg::None}, {'o', "OBJ", Arg::None}, {'p', "PUT", Arg::Line}, {'q', "BINPUT", Arg::U1},
    {'r', "LONG_BINPUT", Arg::U4}, {'s', "SETITEM", Arg::None}, {'t', "TUPLE", Arg::None}, {')', "EMPTY_TUPLE", Arg::None},
    {'u', "SETITEMS", Arg::None}, {'G', "BINFLOAT", Arg::U8}, {'\x80', "PROTO", Arg::U1}, {'\x81', "NEWOBJ", Arg::None},
    {'\x82', "EXT1", Arg::U1}, {'\x83', "EXT2", Arg::U2}, {'\x84', "EXT4", Arg::U4}, {'\x85', "TUPLE1", Arg::None},
    {'\x86', "TUPLE2", Arg::None}, {'\x87', "TUPLE3", Arg::None}, {'\x88', "NEWTRUE", Arg::None},
    {'\x89', "NEWFALSE", Arg::None}, {'\x8a', "LONG1", Arg::Len1}, {'\x8b', "LONG4", Arg::Len4},
    {'B', "BINBYTES", Arg::Len4}, {'C', "SHORT_BINBYTES", Arg::Len1}, {'\x8c', "SHORT_BINUNICODE", Arg::Len1},
    {'\x8d', "BINUNICODE8", Arg::Len8}, {'\x8e', "BINBYTES8", Arg::Len8}, {'\x8f', "EMPTY_SET", Arg::None},
    {'\x90', "ADDITEMS", Arg::None}, {'\x91', "FROZENSET", Arg::None}, {'\x92', "NEWOBJ_EX", Arg::None},
    {'\x93', "STACK_GLOBAL", Arg::None}, {'\x94', "MEMOIZE", Arg::None}, {'\x95', "FRAME", Arg::U8},
    {'\x96', "BYTEARRAY8", Arg::Len8}, {'\x97', "NEXT_BUFFER", Arg::None}, {'\x98', "READONLY_BUFFER", Arg::None},
};

const Opcode* opcode_of(char c) {
  for (const Opcode& op : kOpcodes)
    if (op.code == c) return &op;
  return nullptr;
}

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
    f.error("duplicate_key", "", std::nullopt, std::to_string(p.duplicate_count - p.duplicates.size()) + " more dict keys appear again");
}

std::string line(ByteReader& r) {
  std::string out;
  for (;;) {
    const auto c = static_cast<char>(r.u8("text argument (no newline before the end)"));
    if (c == '\n') return out;
    if (out.size() > 65536) r.fail("text argument longer than 65536 bytes");
    out += c;
  }
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
    const Opcode* op = opcode_of(code);
    if (!op) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(code)));
      f.error("opcode", "opcode", at, std::string("unknown opcode ") + hex);
      return bytes.size();  // the rest cannot be decoded
    }
    std::uint64_t n = 0;
    std::string text;
    switch (op->arg) {
      case Arg::None: break;
      case Arg::U1: n = r.u8(op->name); break;
      case Arg::U2: n = r.u16le(op->name); break;
      case Arg::U4: n = r.u32le(op->name); break;
      case Arg::U8: n = r.u64le(op->name); break;
      case Arg::Line: text = line(r); break;
      case Arg::TwoLines: {
        const std::string module = line(r);  // the module, then the name: in this order
        text = module + "." + line(r);
        break;
      }
      case Arg::Len1: text = r.string(r.u8(op->name), op->name, 255); break;
      case Arg::Len4: text = r.string(r.u32le(op->name), op->name, r.remaining()); break;
      case Arg::Len8: text = r.string(r.u64le(op->name), op->name, r.remaining()); break;
    }
    const std::string_view name = op->name;
    if (name == "PROTO" && n > 5) f.error("protocol", "PROTO", at, "protocol " + std::to_string(n) + " (pickle knows 0..5)");
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
      f.warning("extension", std::string(name), at, std::string(name) + " imports through the copyreg extension registry");
    if (name == "SHORT_BINUNICODE" || name == "BINUNICODE" || name == "BINUNICODE8" || name == "UNICODE") push_string(text);
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
