// loaders/pickle_opcodes.hpp — the one table of pickle opcodes (CPython Lib/pickletools.py,
// protocols 0-5): each opcode's byte, name and how its argument is encoded, and the reader
// of an argument. The restricted machine (pickle.cpp) runs the opcodes it marks `runs`;
// validate (validate/pickle.cpp) walks every opcode of the table without running any.
//
//   const PickleOpcode* op = pickle_opcode(code);          // nullptr: no such opcode
//   PickleArgument a = read_pickle_argument(r, *op, 1024);  // a.n, a.text
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "loaders/byte_reader.hpp"

namespace tensor_inspect {

/// How an opcode's argument is encoded (pickletools' ArgumentDescriptor, simplified).
enum class PickleArg : std::uint8_t {
  None,
  U1, U2, U4, U8,  ///< a little-endian unsigned integer of 1, 2, 4 or 8 bytes: PickleArgument::n
  Raw8,            ///< 8 bytes as they are (BINFLOAT, a big-endian double): text
  Line,            ///< text up to '\n'
  TwoLines,        ///< two such lines, module then name: text "module.name"
  Len1, Len4, Len8 ///< a u8, u32 or u64 length, then that many bytes: text
};

struct PickleOpcode {
  std::uint8_t code;
  const char* name;       ///< pickletools' name: "BINUNICODE"
  PickleArg arg;
  bool runs;              ///< the restricted machine runs it (protocol-0 text opcodes and buffers it refuses)
  const char* field;      ///< the argument in messages: "BINPUT index", "protocol", "BINUNICODE"
  const char* len_field;  ///< the length of a Len* argument in messages: "BINUNICODE length"
};

/// The opcode of byte `code`, or nullptr when pickle has none.
const PickleOpcode* pickle_opcode(std::uint8_t code);

/// An opcode's argument as read.
struct PickleArgument {
  std::uint64_t n = 0;  ///< U1..U8, and the length of Len*
  std::string text;     ///< Raw8, Line, TwoLines, Len*
};

/// Reads the argument of `op` at the reader's position. A line longer than `line_cap`
/// bytes, and a truncated argument, throw Error(BadFile) through the reader, naming the field.
PickleArgument read_pickle_argument(ByteReader& r, const PickleOpcode& op, std::size_t line_cap);

}  // namespace tensor_inspect
