// loaders/onnx_wire.hpp — the protobuf wire format, one field at a time, over bytes in place.
//
// An ONNX model is a protobuf message (onnx/onnx, onnx/onnx.proto, ModelProto). Protobuf's
// generated parsers copy every bytes field into a std::string, so a 1 GB model would be
// copied whole to list it. The walk here reads the same wire format with Debian's
// libprotobuf (google::protobuf::io::CodedInputStream over the mapped bytes) and hands out
// where each field's payload lies instead: raw_data is located by offset, never copied.
// Each record is a tag (field number << 3 | wire type), then by wire type:
//   0 a varint, 1 eight little-endian bytes, 2 a varint length and that many bytes (a string,
//   bytes, a nested message or a packed repeated field), 5 four little-endian bytes;
//   3 and 4 (groups) are proto2's deprecated groups, which onnx.proto never uses.
//
//   WireReader r(file->bytes(), 0, file->size());
//   for (WireField f; r.next(f);) if (f.number == 7 && f.wire_type == 2) walk_graph(f.begin, f.end);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace tensor_inspect {

/// Protobuf's wire types (the low 3 bits of a tag) that onnx.proto's fields use.
enum class WireType : std::uint8_t { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

/// One field record of a message.
struct WireField {
  std::uint32_t number = 0;
  WireType wire_type = WireType::Varint;
  std::uint64_t at = 0;     ///< file byte of the tag
  std::uint64_t value = 0;  ///< the varint or the fixed-width value (wire types 0, 1, 5)
  std::uint64_t begin = 0;  ///< file bytes [begin, end) of a length-delimited payload (wire type 2)
  std::uint64_t end = 0;
};

/// A fault of the wire format: where and what, without the file's name.
struct WireError {
  std::uint64_t at;
  std::string message;
};

/// Reads the fields of one message, the file bytes [begin, end) of `bytes`, in order.
/// A message is at most 2 GiB - 1 bytes (protobuf's own cap on a serialized message; ONNX
/// moves larger weights to external data), which the caller checks of the whole file.
class WireReader {
 public:
  WireReader(std::span<const std::byte> bytes, std::uint64_t begin, std::uint64_t end);
  /// The next field into `f`; false at the message's end. Throws WireError for a malformed
  /// tag, a truncated varint or fixed value, a length past the message's end, a group or an
  /// unknown wire type.
  bool next(WireField& f);

 private:
  std::span<const std::byte> bytes_;
  std::uint64_t pos_, end_;
};

/// The bytes [begin, end) of `bytes` as text (a name, a key): a view, not validated UTF-8.
std::string wire_string(std::span<const std::byte> bytes, const WireField& f);

/// How many varints the packed payload [begin, end) of `bytes` holds (bytes without the
/// continuation bit). Throws WireError when the last one is cut off at `end`.
std::uint64_t wire_count_varints(std::span<const std::byte> bytes, std::uint64_t begin, std::uint64_t end);

/// Decodes the varints of the packed payload [begin, end) into `out` (its size is what
/// wire_count_varints said), each as its low 64 bits. Throws WireError for a varint of more
/// than 10 bytes or more varints than `out` holds.
void wire_decode_varints(std::span<const std::byte> bytes, std::uint64_t begin, std::uint64_t end,
                         std::span<std::uint64_t> out);

}  // namespace tensor_inspect
