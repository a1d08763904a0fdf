// loaders/pickle_opcodes.cpp — the table of pickle opcodes and their arguments (see
// pickle_opcodes.hpp), from CPython Lib/pickletools.py's `opcodes` list.
#include "loaders/pickle_opcodes.hpp"

#include <array>

namespace tensor_inspect {

namespace {

using A = PickleArg;

constexpr PickleOpcode kPickleOpcodes[] = {
    {'(', "MARK", A::None, true, "", nullptr},
    {'.', "STOP", A::None, true, "", nullptr},
    {'0', "POP", A::None, true, "", nullptr},
    {'1', "POP_MARK", A::None, true, "", nullptr},
    {'2', "DUP", A::None, true, "", nullptr},
    {'F', "FLOAT", A::Line, false, "FLOAT", nullptr},
    {'I', "INT", A::Line, false, "INT", nullptr},
    {'J', "BININT", A::U4, true, "BININT", nullptr},
    {'K', "BININT1", A::U1, true, "BININT1", nullptr},
    {'L', "LONG", A::Line, false, "LONG", nullptr},
    {'M', "BININT2", A::U2, true, "BININT2", nullptr},
    {'N', "NONE", A::None, true, "", nullptr},
    {'P', "PERSID", A::Line, false, "PERSID", nullptr},
    {'Q', "BINPERSID", A::None, true, "", nullptr},
    {'R', "REDUCE", A::None, true, "", nullptr},
    {'S', "STRING", A::Line, false, "STRING", nullptr},
    {'T', "BINSTRING", A::Len4, true, "BINSTRING", "BINSTRING length"},
    {'U', "SHORT_BINSTRING", A::Len1, true, "SHORT_BINSTRING", "SHORT_BINSTRING length"},
    {'V', "UNICODE", A::Line, false, "UNICODE", nullptr},
    {'X', "BINUNICODE", A::Len4, true, "BINUNICODE", "BINUNICODE length"},
    {'a', "APPEND", A::None, true, "", nullptr},
    {'b', "BUILD", A::None, true, "", nullptr},
    {'c', "GLOBAL", A::TwoLines, true, "GLOBAL", nullptr},
    {'d', "DICT", A::None, true, "", nullptr},
    {'}', "EMPTY_DICT", A::None, true, "", nullptr},
    {'e', "APPENDS", A::None, true, "", nullptr},
    {'g', "GET", A::Line, false, "GET", nullptr},
    {'h', "BINGET", A::U1, true, "BINGET index", nullptr},
    {'i', "INST", A::TwoLines, false, "INST", nullptr},
    {'j', "LONG_BINGET", A::U4, true, "LONG_BINGET index", nullptr},
    {'l', "LIST", A::None, true, "", nullptr},
    {']', "EMPTY_LIST", A::None, true, "", nullptr},
    {'o', "OBJ", A::None, false, "", nullptr},
    {'p', "PUT", A::Line, false, "PUT", nullptr},
    {'q', "BINPUT", A::U1, true, "BINPUT index", nullptr},
    {'r', "LONG_BINPUT", A::U4, true, "LONG_BINPUT index", nullptr},
    {'s', "SETITEM", A::None, true, "", nullptr},
    {'t', "TUPLE", A::None, true, "", nullptr},
    {')', "EMPTY_TUPLE", A::None, true, "", nullptr},
    {'u', "SETITEMS", A::None, true, "", nullptr},
    {'G', "BINFLOAT", A::Raw8, true, "BINFLOAT", nullptr},
    {0x80, "PROTO", A::U1, true, "protocol", nullptr},
    {0x81, "NEWOBJ", A::None, true, "", nullptr},
    {0x82, "EXT1", A::U1, false, "EXT1", nullptr},
    {0x83, "EXT2", A::U2, false, "EXT2", nullptr},
    {0x84, "EXT4", A::U4, false, "EXT4", nullptr},
    {0x85, "TUPLE1", A::None, true, "", nullptr},
    {0x86, "TUPLE2", A::None, true, "", nullptr},
    {0x87, "TUPLE3", A::None, true, "", nullptr},
    {0x88, "NEWTRUE", A::None, true, "", nullptr},
    {0x89, "NEWFALSE", A::None, true, "", nullptr},
    {0x8a, "LONG1", A::Len1, true, "long", "LONG1 length"},
    {0x8b, "LONG4", A::Len4, true, "long", "LONG4 length"},
    {'B', "BINBYTES", A::Len4, true, "BINBYTES", "BINBYTES length"},
    {'C', "SHORT_BINBYTES", A::Len1, true, "SHORT_BINBYTES", "SHORT_BINBYTES length"},
    {0x8c, "SHORT_BINUNICODE", A::Len1, true, "SHORT_BINUNICODE", "SHORT_BINUNICODE length"},
    {0x8d, "BINUNICODE8", A::Len8, true, "BINUNICODE8", "BINUNICODE8 length"},
    {0x8e, "BINBYTES8", A::Len8, true, "BINBYTES8", "BINBYTES8 length"},
    {0x8f, "EMPTY_SET", A::None, true, "", nullptr},
    {0x90, "ADDITEMS", A::None, true, "", nullptr},
    {0x91, "FROZENSET", A::None, true, "", nullptr},
    {0x92, "NEWOBJ_EX", A::None, true, "", nullptr},
    {0x93, "STACK_GLOBAL", A::None, true, "", nullptr},
    {0x94, "MEMOIZE", A::None, true, "", nullptr},
    {0x95, "FRAME", A::U8, true, "frame length", nullptr},
    {0x96, "BYTEARRAY8", A::Len8, false, "BYTEARRAY8", "BYTEARRAY8 length"},
    {0x97, "NEXT_BUFFER", A::None, false, "", nullptr},
    {0x98, "READONLY_BUFFER", A::None, false, "", nullptr},
};

// The table by byte, built once: an opcode is looked up per byte of a pickle.
constexpr std::array<const PickleOpcode*, 256> pickle_opcode_index() {
  std::array<const PickleOpcode*, 256> index{};
  for (const PickleOpcode& op : kPickleOpcodes) index[op.code] = &op;
  return index;
}
constexpr std::array<const PickleOpcode*, 256> kPickleOpcodeIndex = pickle_opcode_index();

std::string pickle_opcode_line(ByteReader& r, const char* field, std::size_t cap) {
  std::string out;
  for (;;) {
    const auto c = static_cast<char>(r.u8(field));
    if (c == '\n') return out;
    if (out.size() >= cap) r.fail(std::string(field) + " longer than " + std::to_string(cap) + " bytes");
    out.push_back(c);
  }
}

std::string pickle_opcode_bytes(ByteReader& r, std::uint64_t n, const char* field) {
  const auto b = r.bytes(n, field);  // bounded by the bytes left, so no cap is needed
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace

const PickleOpcode* pickle_opcode(std::uint8_t code) { return kPickleOpcodeIndex[code]; }

PickleArgument read_pickle_argument(ByteReader& r, const PickleOpcode& op, std::size_t line_cap) {
  PickleArgument a;
  switch (op.arg) {
    case A::None: break;
    case A::U1: a.n = r.u8(op.field); break;
    case A::U2: a.n = r.u16le(op.field); break;
    case A::U4: a.n = r.u32le(op.field); break;
    case A::U8: a.n = r.u64le(op.field); break;
    case A::Raw8: a.text = pickle_opcode_bytes(r, 8, op.field); break;
    case A::Line: a.text = pickle_opcode_line(r, op.field, line_cap); break;
    case A::TwoLines: {
      const std::string field = op.field;
      a.text = pickle_opcode_line(r, (field + " module").c_str(), line_cap);  // the module, then the name
      a.text += '.';
      a.text += pickle_opcode_line(r, (field + " name").c_str(), line_cap);
      break;
    }
    case A::Len1: a.n = r.u8(op.len_field); a.text = pickle_opcode_bytes(r, a.n, op.field); break;
    case A::Len4: a.n = r.u32le(op.len_field); a.text = pickle_opcode_bytes(r, a.n, op.field); break;
    case A::Len8: a.n = r.u64le(op.len_field); a.text = pickle_opcode_bytes(r, a.n, op.field); break;
  }
  return a;
}

}  // namespace tensor_inspect
