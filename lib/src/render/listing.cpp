// render/listing.cpp — tensor listings (--list, --list0), text and JSON; metadata is metadata.cpp.
#include "tensor_inspect/listing.hpp"

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/display_width.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/totals.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cwchar>
#include <string>
#include <tuple>
#include <utility>


namespace tensor_inspect {
namespace {

// Names and metadata are untrusted: shown escaped, never sent raw to the terminal.
std::string escape_text(std::string_view s) { return escape_untrusted(s, true); }

using ListingJson = nlohmann::ordered_json;

// Bytes of the values as data() hands them out (dtype itemsize x elements), which for
// quantized or compressed tensors differs from the bytes stored.
std::uint64_t decoded_nbytes(const TensorEntry& e) {
  std::uint64_t n = dtype_info(*e.dtype).itemsize;
  for (auto d : e.shape) n *= static_cast<std::uint64_t>(d);
  return n;
}

std::string dump(const ListingJson& j, int indent = -1) {
  return j.dump(indent, ' ', false, ListingJson::error_handler_t::replace);
}

// escape_text(s), or s itself when escaping would not change it (names, types and notes
// are printable ASCII in nearly every file: then nothing is allocated for them).
std::string_view text_of(std::string_view s, std::string& scratch) {
  if (plain_text(s)) return s;
  scratch = escape_text(s);
  return scratch;
}

void put_json_string(std::string_view s, OutBuffer& out) {
  if (!plain_text(s)) {
    out.write(json_string(s));
    return;
  }
  out.put('"');
  out.write(s);
  out.put('"');
}

template <typename Int>
void put_int(Int v, OutBuffer& out) {
  char* p = out.reserve(24);
  out.commit(std::to_chars(p, p + 24, v).ptr);
}

// `shape`, or with `reversed` the same dims backwards (a GGUF entry's stored order).
void put_json_ints(const Shape& shape, OutBuffer& out, bool reversed = false) {
  out.put('[');
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out.put(',');
    put_int(shape[reversed ? shape.size() - 1 - i : i], out);
  }
  out.put(']');
}

char* put_text(char* p, std::string_view s) { return std::copy(s.begin(), s.end(), p); }

char* put_ints(char* p, const Shape& shape, bool reversed = false) {
  *p++ = '[';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) *p++ = ',';
    p = std::to_chars(p, p + 20, shape[reversed ? shape.size() - 1 - i : i]).ptr;
  }
  *p++ = ']';
  return p;
}

// One tensor's object of the JSON listing laid out in place in one reserve() of the
// output buffer, for the common entry whose strings need no escapes: 1,100 -> 600
// instructions a tensor (callgrind, 20,000 tensors). False, with nothing written, for any
// other entry (or one too long for the buffer): the member-by-member writer below takes it.
bool put_plain_entry(const TensorEntry& e, bool first, OutBuffer& out) {
  const Shape& stored = e.stored_dims();  // backwards where e.stored_reversed
  const std::string_view dtype = e.dtype ? dtype_info(*e.dtype).name : std::string_view("null");
  const std::size_t most = e.name.size() + e.stored_type.size() + e.note.size() + dtype.size() +
                           21 * (e.shape.size() + stored.size()) + 200;
  if (most > OutBuffer::kSize || e.details().layout_unknown || !e.details().scheme_parts.empty() ||
      !plain_text(e.name) || !plain_text(e.stored_type) ||
      !(e.note.empty() || plain_text(e.note)))
    return false;
  char* p = out.reserve(most);
  p = put_text(p, first ? "{\"name\":\"" : ",{\"name\":\"");
  p = put_text(p, e.name);
  p = put_text(p, e.dtype ? "\",\"dtype\":\"" : "\",\"dtype\":");
  p = put_text(p, dtype);
  p = put_text(p, e.dtype ? "\",\"stored_type\":\"" : ",\"stored_type\":\"");
  p = put_text(p, e.stored_type);
  p = put_text(p, "\",\"shape\":");
  p = put_ints(p, e.shape);
  p = put_text(p, ",\"stored_shape\":");
  p = put_ints(p, stored, e.stored_reversed);
  p = put_text(p, ",\"nbytes\":");
  p = std::to_chars(p, p + 20, e.nbytes).ptr;
  p = put_text(p, ",\"decoded_nbytes\":");
  p = e.dtype ? std::to_chars(p, p + 20, decoded_nbytes(e)).ptr : put_text(p, "null");
  p = put_text(p, ",\"offset\":");
  p = std::to_chars(p, p + 20, e.offset).ptr;
  p = put_text(p, ",\"parts\":null,\"producer_dtype\":null");  // a scheme's logical tensor takes the writer below
  if (e.note.empty()) {
    p = put_text(p, ",\"note\":null}");
  } else {
    p = put_text(p, ",\"note\":\"");
    p = put_text(p, e.note);
    p = put_text(p, "\"}");
  }
  out.commit(p);
  return true;
}

// The JSON listing, written member by member in the order (and with the compact spelling)
// nlohmann's dump() gave it: the same bytes without a document of 10 nodes per tensor.
void render_listing_json(const LoadedFile& file, OutBuffer& out) {
  out.write("{\"schema_version\":");
  put_int(kSchemaVersion, out);
  out.write(",\"kind\":\"listing\",\"file\":");
  put_json_string(file.path, out);
  out.write(",\"format\":");
  put_json_string(file.format, out);
  out.write(",\"tensors\":[");
  ListedTensors all(file);  // entries, or rows of a header read in place
  for (std::size_t i = 0; i < all.size(); ++i) {
    const TensorEntry& e = all.at(i);
    if (put_plain_entry(e, i == 0, out)) continue;
    out.write(i ? ",{\"name\":" : "{\"name\":");
    put_json_string(e.name, out);
    out.write(",\"dtype\":");
    if (e.dtype) put_json_string(dtype_info(*e.dtype).name, out);
    else out.write("null");
    out.write(",\"stored_type\":");
    if (e.details().layout_unknown) {  // an unreadable shard's tensor: no type or size is known, none is 0
      out.write("null,\"shape\":null,\"stored_shape\":null,\"nbytes\":null,\"decoded_nbytes\":null,\"offset\":null");
    } else {
      put_json_string(e.stored_type, out);
      out.write(",\"shape\":");
      put_json_ints(e.shape, out);
      out.write(",\"stored_shape\":");
      put_json_ints(e.stored_dims(), out, e.stored_reversed);
      out.write(",\"nbytes\":");  // stored bytes (quantized blocks, compressed members: as stored)
      put_int(e.nbytes, out);
      out.write(",\"decoded_nbytes\":");
      if (e.dtype) put_int(decoded_nbytes(e), out);
      else out.write("null");
      out.write(",\"offset\":");
      put_int(e.offset, out);
    }
    out.write(",\"parts\":");  // in every row, so the keys never depend on the file
    if (const auto& parts = e.details().scheme_parts; !parts.empty()) {  // a quantization scheme's logical tensor
      out.put('[');
      for (std::size_t k = 0; k < parts.size(); ++k) {
        if (k) out.put(',');
        put_json_string(parts[k], out);
      }
      out.put(']');
    } else {
      out.write("null");
    }
    out.write(",\"producer_dtype\":");  // what the scheme's producer hands back, where known
    if (const auto d = e.details().producer_dtype) put_json_string(dtype_info(*d).name, out);
    else out.write("null");
    out.write(",\"note\":");
    if (e.note.empty()) out.write("null");
    else put_json_string(e.note, out);
    out.put('}');
  }
  out.write("],\"totals\":" + dump(totals_json(totals_of(file))) + ",\"metadata_count\":");
  put_int(file.metadata.size(), out);
  out.write(",\"warnings\":[");
  for (std::size_t i = 0; i < file.warnings.size(); ++i) {
    if (i) out.put(',');
    put_json_string(file.warnings[i], out);
  }
  out.write("]}\n");
}

constexpr std::size_t kColumns = 6;

/// Decimal digits of `v`.
std::size_t decimal_digits(std::uint64_t v) {
  std::size_t n = 1;
  for (; v >= 10; v /= 10) ++n;
  return n;
}

// The text cells of one listing row, pointing into the entry or into scratch buffers that
// are reused from row to row (two passes: widths, then lines; no row is kept).
class RowCells {
 public:
  /// The display widths of the row's cells, without writing them (the first pass), and
  /// whether its name and stored type are shown as they are (`plain`, kept for fill()).
  std::array<std::size_t, kColumns> widths(const TensorEntry& e, std::uint8_t& plain) {
    std::array<std::size_t, kColumns> w{};
    plain =
        static_cast<std::uint8_t>((plain_text(e.name) ? kPlainName : 0) | (plain_text(e.stored_type) ? kPlainType : 0));
    w[0] = name_cell(e, plain).second;
    w[1] = e.dtype ? dtype_info(*e.dtype).name.size() : 1;
    w[5] = stored_cell(e, plain).size();
    if (e.details().layout_unknown) {  // '-' for shape, nbytes and offset
      w[2] = w[3] = w[4] = 1;
      return w;
    }
    if (e.shape.size() > 8) {
      w[2] = shape_text(e.shape).size();
    } else {
      w[2] = 2 + (e.shape.size() == 1 ? 1 : 0) + (e.shape.empty() ? 0 : 2 * (e.shape.size() - 1));
      for (const std::int64_t d : e.shape)
        w[2] += d < 0 ? 1 + decimal_digits(0 - static_cast<std::uint64_t>(d))
                      : decimal_digits(static_cast<std::uint64_t>(d));
    }
    w[3] = decimal_digits(e.nbytes);
    w[4] = decimal_digits(e.offset);
    return w;
  }
  /// The row's cells and the display width of its name (the second pass).
  void fill(const TensorEntry& e, std::uint8_t plain) {
    std::tie(cell[0], name_width) = name_cell(e, plain);
    cell[1] = e.dtype ? dtype_info(*e.dtype).name : std::string_view("-");
    const bool unknown = e.details().layout_unknown;
    cell[2] = unknown ? std::string_view("-") : shape_text(e.shape);
    cell[3] = unknown ? std::string_view("-") : number(e.nbytes, nbytes_);
    cell[4] = unknown ? std::string_view("-") : number(e.offset, offset_);
    cell[5] = stored_cell(e, plain);
  }
  static constexpr std::uint8_t kPlainName = 1, kPlainType = 2;
  std::array<std::string_view, kColumns> cell;
  std::size_t name_width = 0;

 private:
  /// The name as shown (escaped when it must be) and its terminal columns.
  std::pair<std::string_view, std::size_t> name_cell(const TensorEntry& e, std::uint8_t plain) {
    if (plain & kPlainName) return {e.name, e.name.size()};
    name_ = escape_text(e.name);
    return {name_, display_width(name_)};
  }
  std::string_view stored_cell(const TensorEntry& e, std::uint8_t plain) {
    if (e.note.empty()) return plain & kPlainType ? std::string_view(e.stored_type) : text_of(e.stored_type, stored_);
    stored_.assign(text_of(e.stored_type, scratch_));  // copied before scratch_ is reused
    stored_ += " (";
    stored_ += text_of(e.note, scratch_);
    stored_ += ')';
    return stored_;
  }
  std::string_view shape_text(const Shape& shape) {
    char* p = shape_;
    char* const end = shape_ + sizeof shape_;
    if (shape.size() > 8) {  // long shapes are rare: the general spelling
      shape_long_ = shape_repr(shape);
      return shape_long_;
    }
    *p++ = '(';
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (i) *p++ = ',', *p++ = ' ';
      p = std::to_chars(p, end, shape[i]).ptr;
    }
    if (shape.size() == 1) *p++ = ',';
    *p++ = ')';
    return {shape_, static_cast<std::size_t>(p - shape_)};
  }
  static std::string_view number(std::uint64_t v, char (&buf)[24]) {
    return {buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf)};
  }
  std::string name_, stored_, scratch_, shape_long_;
  char shape_[8 * 22 + 4];
  char nbytes_[24], offset_[24];
};

// The text listing's rows are written out in pieces of about this size (render_listing).
constexpr std::size_t kListingFlushBytes = 16 << 10;

// "stored_nbytes": the bytes the file stores (quantized blocks as stored), not the decoded size.
constexpr std::array<std::string_view, kColumns> kListingHeader = {"name",          "dtype",  "shape",
                                                                   "stored_nbytes", "offset", "stored"};

}  // namespace

void render_listing(const LoadedFile& file, bool json, OutBuffer& out) {
  if (json) {
    render_listing_json(file, out);
    return;
  }
  // Columns are padded by display width: a name of wide or combining characters lines up.
  std::array<std::size_t, kColumns> width{};
  for (std::size_t c = 0; c < kColumns; ++c) width[c] = kListingHeader[c].size();
  RowCells row;
  ListedTensors all(file);  // entries, or rows of a header read in place
  std::vector<std::uint8_t> plain(all.size());  // what the first pass found, one byte per row
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::array<std::size_t, kColumns> w = row.widths(all.at(i), plain[i]);
    for (std::size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], w[c]);
  }
  // Each line is laid out in place in the output buffer: cells padded to their column,
  // trailing spaces (an empty last cell) dropped. A line longer than the buffer (a name of
  // tens of KB) is put together in a string first.
  std::string long_line;
  const auto put_line = [&](const std::array<std::string_view, kColumns>& cells, std::size_t name_width) {
    std::size_t most = 1;  // padding is width - columns used + 2 <= width + 2
    for (std::size_t c = 0; c < kColumns; ++c) most += cells[c].size() + width[c] + 2;
    char* const begin = most <= OutBuffer::kSize ? out.reserve(most) : nullptr;
    if (!begin) long_line.assign(most, ' ');
    char* const start = begin ? begin : long_line.data();
    char* p = start;
    for (std::size_t c = 0; c < kColumns; ++c) {
      p = std::copy(cells[c].begin(), cells[c].end(), p);
      const std::size_t used = c == 0 ? name_width : cells[c].size();
      if (c + 1 < kColumns) p = std::fill_n(p, width[c] - used + 2, ' ');
    }
    while (p > start && p[-1] == ' ') --p;
    *p++ = '\n';
    if (begin) out.commit(p);
    else out.write(std::string_view(start, static_cast<std::size_t>(p - start)));
  };
  // What could fail has failed by now (the first pass filled every row, and the footer is
  // made before the rows): the rows go out every kListingFlushBytes, so a long listing
  // (2,000 tensors: 160 KB) keeps rewriting a few pages of the buffer instead of touching
  // all 16 of its 64 KiB, at about 10 us a fresh page on a VM.
  const std::string footer = count_of(all.size(), "tensor", "tensors") + ", " +
                             count_of(file.metadata.size(), "metadata entry", "metadata entries") + " (" + file.format +
                             ")\n" + totals_text(totals_of(file)) + "\n";
  put_line(kListingHeader, kListingHeader[0].size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    row.fill(all.at(i), plain[i]);
    put_line(row.cell, row.name_width);
    if (out.buffered() >= kListingFlushBytes) out.flush();
  }
  out.write(footer);
}

void render_names0(const LoadedFile& file, OutBuffer& out) {
  ListedTensors all(file);  // entries, or rows of a header read in place
  for (std::size_t i = 0; i < all.size(); ++i) {
    const TensorEntry& e = all.at(i);
    if (e.name.empty()) continue;
    out.write(e.name);
    out.put('\0');
  }
}

}  // namespace tensor_inspect
