// hash/tensor_hash.cpp — a tensor's canonical byte stream fed to a Hasher (hash.hpp): the
// header line, then its stored bytes read in place piece by piece where they already are
// the elements in C order (byte-swapped on the way when stored big-endian), else the
// elements walked in C order through the executor as unsigned ints of their itemsize,
// which keeps every bit (a float's NaN payload, -0.0) where a value conversion would not.
#include <bit>
#include <cstring>
#include <exception>
#include <numeric>
#include <optional>

#include "buffer/byte_source.hpp"
#include "tensor_inspect/context.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/hash.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {
namespace {

static_assert(std::endian::native == std::endian::little, "the canonical stream is written from native words");

// Bytes hashed between two fetches of a remote file and two releases of a mapping's pages:
// large enough that a release's TLB flush is cheap next to the read, small for memory.
constexpr std::size_t kPieceBytes = std::size_t{4} << 20;
// Elements the executor hands over at a time for a C-order walk.
constexpr std::size_t kWalkElements = std::size_t{1} << 20;

// How one tensor's element bytes are read.
struct Plan {
  std::string header;
  TensorHash result;
  std::span<const std::byte> bytes;           // in place: the elements in C order
  std::size_t swap_itemsize = 0;              // > 1: reverse each element's bytes first
  bool bool_bytes = false;                    // bool: any nonzero byte is True, hashed as 1 (both paths)
  std::shared_ptr<const MappedFile> file;     // holds `bytes` (fetched and released by pieces)
  std::shared_ptr<Buffer> keep;               // a buffer holding `bytes`, kept alive
  std::function<void()> check_whole;          // a stored .npz member's CRC, checked on the way
  std::optional<Tensor> walk;                 // else: the elements as uintN, walked in C order
};

DType uint_of_itemsize(std::size_t itemsize) {
  switch (itemsize) {
    case 1: return DType::UInt8;
    case 2: return DType::UInt16;
    case 4: return DType::UInt32;
    default: return DType::UInt64;
  }
}

Plan plan_of(const TensorEntry& e) {
  Plan p;
  const EntryDetails& d = e.details();
  if (d.ggml_type || !e.dtype) {
    if (const std::optional<std::string> why = unhashable_reason(e))
      throw Error(ErrorCode::Unsupported, "tensor '" + e.name + "' (" + e.stored_type + ") cannot be hashed: " + *why);
    p.result.type = e.stored_type;
    p.result.shape = e.shape;
    p.result.stored_blocks = true;
    p.bytes = e.stored_blocks();
    p.file = d.blocks_file;
  } else {
    Tensor t = e.load();
    p.result.type = std::string(dtype_info(t.dtype()).name);
    p.result.shape = t.shape();
    const std::size_t itemsize = dtype_info(t.dtype()).itemsize;
    // A bool's byte other than 0 and 1 reads as True (tolist, --stats, diff): its hash is that of 1.
    p.bool_bytes = t.dtype() == DType::Bool;
    std::optional<StoredElements> s = stored_elements(t, false);
    if (s && s->c_order && !s->ggml_type) {
      p.bytes = s->bytes;
      p.swap_itemsize = s->swap_bytes ? itemsize : 0;
      p.file = s->file;
      p.keep = s->keep;
      p.check_whole = d.check_whole;
    } else {
      p.walk = t.bitcast(uint_of_itemsize(itemsize));
    }
  }
  p.header = canonical_header(p.result.type, p.result.shape);
  return p;
}

std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// The bytes of `piece` (whole elements) as the canonical stream has them: a bool's nonzero
// byte as 1, a big-endian element's bytes reversed.
std::span<const std::byte> canonical_piece(const Plan& p, std::span<const std::byte> piece,
                                           std::vector<std::byte>& scratch) {
  const std::size_t k = p.swap_itemsize;
  if (!p.bool_bytes && k <= 1) return piece;
  scratch.resize(piece.size());
  if (p.bool_bytes)
    for (std::size_t i = 0; i < piece.size(); ++i) scratch[i] = std::byte{piece[i] != std::byte{0}};
  else
    for (std::size_t i = 0; i + k <= piece.size(); i += k)
      for (std::size_t j = 0; j < k; ++j) scratch[i + j] = piece[i + k - 1 - j];
  return scratch;
}

void hash_in_place(Plan& p, Hasher& h) {
  if (p.check_whole) p.check_whole();
  thread_local std::vector<std::byte> scratch;
  // A mapping's pages and a remote file's blocks are given back behind the hash.
  const bool release = p.file && (p.file->is_mapped() || p.file->is_remote());
  const std::uint64_t base = release ? static_cast<std::uint64_t>(p.bytes.data() - p.file->bytes().data()) : 0;
  for (std::size_t at = 0; at < p.bytes.size(); at += kPieceBytes) {
    std::span<const std::byte> piece = p.bytes.subspan(at, std::min(kPieceBytes, p.bytes.size() - at));
    fetch_bytes(piece);
    h.update(canonical_piece(p, piece, scratch));
    if (release) p.file->release_pages(base + at, piece.size());
  }
}

// A remote tensor's bytes hashed as they arrive, none of them kept. One request: a hash takes
// its bytes in order (the tensors of a file are still hashed side by side).
class HashOnArrival final : public RangeSink {
 public:
  HashOnArrival(const Plan& p, HashAlgorithm a) : plan_(p), algorithm_(a) {}
  void restart() override {
    hasher_.emplace(algorithm_);
    hasher_->update(as_bytes(plan_.header));
    carry_.clear();
  }
  void consume(std::span<const std::byte> bytes) override {
    const std::size_t k = std::max<std::size_t>(1, plan_.swap_itemsize);
    if (!carry_.empty()) {  // an element split between two pieces
      const std::size_t take = std::min(k - carry_.size(), bytes.size());
      carry_.insert(carry_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(take));
      bytes = bytes.subspan(take);
      if (carry_.size() < k) return;
      hasher_->update(canonical_piece(plan_, carry_, scratch_));
      carry_.clear();
    }
    const std::size_t whole = bytes.size() / k * k;
    hasher_->update(canonical_piece(plan_, bytes.first(whole), scratch_));
    carry_.assign(bytes.begin() + static_cast<std::ptrdiff_t>(whole), bytes.end());
  }
  std::string digest() { return hasher_->hex_digest(); }

 private:
  const Plan& plan_;
  HashAlgorithm algorithm_;
  std::optional<Hasher> hasher_;
  std::vector<std::byte> carry_, scratch_;
};

// The digest of a remote tensor read in place, streamed (stream_bytes); nullopt when its bytes
// are not streamed (a local file, a block cache, bytes already here, a member whose CRC is checked).
std::optional<std::string> hash_on_arrival(const Plan& p, HashAlgorithm a) {
  if (!p.file || !p.file->is_remote() || p.check_whole || p.bytes.empty()) return std::nullopt;
  HashOnArrival sink(p, a);
  const StreamedRange range{p.bytes.data(), p.bytes.size(), &sink};
  if (!stream_bytes(std::span(&range, 1))) return std::nullopt;
  return sink.digest();
}

void hash_walk(Plan& p, Hasher& h) {
  const std::size_t k = dtype_info(p.walk->dtype()).itemsize;
  std::vector<std::byte> out;
  for_each_chunk(p.walk->node(), kWalkElements, [&](const ValueChunk& c) {
    out.resize(c.size * k);
    for (std::size_t i = 0; i < c.size; ++i) std::memcpy(out.data() + i * k, &c.u[i], k);  // the low k bytes
    if (p.bool_bytes)
      for (std::byte& b : out) b = std::byte{b != std::byte{0}};
    h.update(out);
  });
}

}  // namespace

std::optional<std::string> unhashable_reason(const TensorEntry& e) {
  const EntryDetails& d = e.details();
  if ((d.ggml_type || !e.dtype) && !d.blocks_file)
    return "its values cannot be decoded and its stored bytes are not its elements in order";
  return std::nullopt;
}

std::string canonical_header(std::string_view type_name, const Shape& shape) {
  return std::string(type_name) + " " + shape_repr(shape) + "\n";
}

std::vector<TensorHash> hash_tensors(std::span<const TensorEntry> entries, HashAlgorithm a) {
  // Loading builds graph nodes, which is done on this thread; then the tensors read in
  // place are hashed one per thread, largest first, and those walked by the executor
  // (which uses every thread itself) one after the other.
  std::vector<Plan> plans;
  plans.reserve(entries.size());
  for (const TensorEntry& e : entries) plans.push_back(plan_of(e));
  std::vector<std::size_t> in_place;
  for (std::size_t i = 0; i < plans.size(); ++i)
    if (!plans[i].walk) in_place.push_back(i);
  std::stable_sort(in_place.begin(), in_place.end(),
                   [&](std::size_t x, std::size_t y) { return plans[x].bytes.size() > plans[y].bytes.size(); });
  std::vector<std::exception_ptr> errors(plans.size());
  const auto count = static_cast<std::int64_t>(in_place.size());
  const Context& caller = current_context();
#pragma omp parallel
  {
    const ContextScope inherited = ContextScope::borrowing(caller);  // a remote file's fetches: the caller's options
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t n = 0; n < count; ++n) {
      Plan& p = plans[in_place[static_cast<std::size_t>(n)]];
      try {
        if (std::optional<std::string> streamed = hash_on_arrival(p, a)) {
          p.result.digest = std::move(*streamed);
          continue;
        }
        Hasher h(a);
        h.update(as_bytes(p.header));
        hash_in_place(p, h);
        p.result.digest = h.hex_digest();
      } catch (...) {
        errors[in_place[static_cast<std::size_t>(n)]] = std::current_exception();
      }
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<TensorHash> out;
  out.reserve(plans.size());
  for (Plan& p : plans) {
    if (p.walk) {
      Hasher h(a);
      h.update(as_bytes(p.header));
      hash_walk(p, h);
      p.result.digest = h.hex_digest();
    }
    out.push_back(std::move(p.result));
  }
  return out;
}

}  // namespace tensor_inspect
