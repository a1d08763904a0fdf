// loaders/onnx_wire.cpp — protobuf's wire format read with libprotobuf's CodedInputStream
// over the mapped bytes (google/protobuf/io/coded_stream.h): tags, varints, fixed values
// and lengths are protobuf's own decoding; what is kept is where each payload lies.
#include "loaders/onnx_wire.hpp"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <climits>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

namespace {

using google::protobuf::io::CodedInputStream;

CodedInputStream onnx_wire_stream(std::span<const std::byte> bytes, std::uint64_t begin, std::uint64_t end) {
  // The caller bounds a whole model to INT_MAX bytes, so every part of it fits an int.
  return CodedInputStream(reinterpret_cast<const std::uint8_t*>(bytes.data()) + begin, static_cast<int>(end - begin));
}

}  // namespace

WireReader::WireReader(std::span<const std::byte> bytes, std::uint64_t begin, std::uint64_t end)
    : bytes_(bytes), pos_(begin), end_(end) {}

bool WireReader::next(WireField& f) {
  if (pos_ >= end_) return false;
  // A remote model's bytes arrive when fetched: a tag, a varint and a fixed value take at
  // most 20 bytes; a payload is fetched by whoever reads it (wire_string, the varint runs).
  fetch_bytes(bytes_.subspan(static_cast<std::size_t>(pos_),
                             static_cast<std::size_t>(std::min<std::uint64_t>(end_ - pos_, 20))));
  CodedInputStream in = onnx_wire_stream(bytes_, pos_, end_);
  const std::uint64_t at = pos_;
  const std::uint32_t tag = in.ReadTag();
  const std::uint32_t number = tag >> 3;
  if (tag == 0 || number == 0) throw WireError{at, "malformed field tag"};
  f.number = number;
  f.at = at;
  const auto here = [&] { return pos_ + static_cast<std::uint64_t>(in.CurrentPosition()); };
  switch (tag & 7) {
    case 0:
      f.wire_type = WireType::Varint;
      if (!in.ReadVarint64(&f.value))
        throw WireError{at, "field " + std::to_string(number) + ": truncated or malformed varint"};
      break;
    case 1:
      f.wire_type = WireType::Fixed64;
      if (!in.ReadLittleEndian64(&f.value))
        throw WireError{at, "field " + std::to_string(number) + ": truncated 8-byte value"};
      break;
    case 5: {
      f.wire_type = WireType::Fixed32;
      std::uint32_t v = 0;
      if (!in.ReadLittleEndian32(&v))
        throw WireError{at, "field " + std::to_string(number) + ": truncated 4-byte value"};
      f.value = v;
      break;
    }
    case 2: {
      f.wire_type = WireType::Bytes;
      std::uint64_t length = 0;
      if (!in.ReadVarint64(&length))
        throw WireError{at, "field " + std::to_string(number) + ": truncated or malformed length"};
      const std::uint64_t begin = here();
      if (length > end_ - begin)
        throw WireError{at, "field " + std::to_string(number) + ": length " + std::to_string(length) +
                                " runs past the end of its message (" + std::to_string(end_ - begin) + " bytes left)"};
      f.begin = begin;
      f.end = begin + length;
      pos_ = f.end;
      return true;
    }
    case 3:
    case 4:
      throw WireError{at, "field " + std::to_string(number) + ": a group (wire type " + std::to_string(tag & 7) +
                              "), which onnx.proto never uses"};
    default: throw WireError{at, "field " + std::to_string(number) + ": unknown wire type " + std::to_string(tag & 7)};
  }
  pos_ = here();
  return true;
}

std::string wire_string(std::span<const std::byte> bytes, const WireField& f) {
  fetch_bytes(bytes.subspan(static_cast<std::size_t>(f.begin), static_cast<std::size_t>(f.end - f.begin)));
  return std::string(reinterpret_cast<const char*>(bytes.data()) + f.begin, static_cast<std::size_t>(f.end - f.begin));
}

std::uint64_t wire_count_varints(std::span<const std::byte> bytes, std::uint64_t begin, std::uint64_t end) {
  fetch_bytes(bytes.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)));
  std::uint64_t n = 0;
  for (std::uint64_t i = begin; i < end; ++i) n += (static_cast<unsigned>(bytes[i]) & 0x80u) == 0;
  if (end > begin && (static_cast<unsigned>(bytes[end - 1]) & 0x80u) != 0)
    throw WireError{end - 1, "the last varint of a packed field is cut off"};
  return n;
}

void wire_decode_varints(std::span<const std::byte> bytes, std::uint64_t begin, std::uint64_t end,
                         std::span<std::uint64_t> out) {
  fetch_bytes(bytes.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)));
  CodedInputStream in = onnx_wire_stream(bytes, begin, end);
  const int size = static_cast<int>(end - begin);
  std::size_t i = 0;
  while (in.CurrentPosition() < size) {
    const std::uint64_t at = begin + static_cast<std::uint64_t>(in.CurrentPosition());
    std::uint64_t v = 0;
    if (!in.ReadVarint64(&v)) throw WireError{at, "malformed varint (more than 10 bytes, or cut off)"};
    if (i == out.size()) throw WireError{at, "more varints than counted"};
    out[i++] = v;
  }
}

}  // namespace tensor_inspect
