// memoryview.cpp — Tensor.data() and CPython's memoryview rules (cast, strides, tolist).
#include <algorithm>
#include <chrono>

#include "log/log.hpp"

#include "tensor_inspect/memoryview.hpp"

#include <string>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stored_elements.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {
namespace {

std::vector<std::int64_t> byte_strides(const Shape& shape, std::int64_t itemsize) {
  std::vector<std::int64_t> s(shape.size());
  std::int64_t acc = itemsize;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

std::optional<DType> dtype_for_format(char f) {
  switch (f) {
    case '?': return DType::Bool;
    case 'b': return DType::Int8;
    case 'B': case 'c': return DType::UInt8;
    case 'h': return DType::Int16;
    case 'H': return DType::UInt16;
    case 'i': return DType::Int32;
    case 'I': return DType::UInt32;
    case 'q': case 'l': case 'n': return DType::Int64;  // C long and ssize_t are 8 bytes on LP64 Linux
    case 'Q': case 'L': case 'N': case 'P': return DType::UInt64;
    case 'e': return DType::Float16;
    case 'f': return DType::Float32;
    case 'd': return DType::Float64;
    default: return std::nullopt;
  }
}

// The bytes the schedule of `root` allocates: one output buffer per kernel that runs a
// loop or a producer (Alias kernels re-read an existing buffer).
std::uint64_t schedule_bytes(const NodePtr& root) {
  std::uint64_t total = 0;
  for (const Kernel& k : schedule(root)) {
    if (k.kind == KernelKind::Alias) continue;
    const auto n = static_cast<std::uint64_t>(prod(k.output->shape));
    const auto isz = static_cast<std::uint64_t>(dtype_info(k.output->dtype).itemsize);
    if (isz != 0 && n > (UINT64_MAX - total) / isz) return UINT64_MAX;
    total += n * isz;
  }
  return total;
}

}  // namespace

Scalar MemoryView::element(std::int64_t i) const {
  const std::byte* p = buffer->bytes().data() + i * itemsize;
  if (!stored_swapped) return load_scalar(dtype, p);
  std::byte native[16];
  std::reverse_copy(p, p + itemsize, native);
  return load_scalar(dtype, native);
}

MemoryView data_header(const Tensor& t, const DataOptions& options) {
  const DType dtype = commit_dtype(t.dtype(), options.defaults);
  const DTypeInfo& info = dtype_info(dtype);
  if (options.strict && info.fmt == 0)
    throw Error(ErrorCode::NoFormat, "Tensor.data(): dtype " + std::string(info.name) +
                                         " has no struct format, so no memoryview can hold it (--strict)");
  MemoryView mv;
  mv.dtype = dtype;
  if (info.fmt) mv.format = info.fmt;
  mv.itemsize = info.itemsize;
  mv.tensor_shape = t.shape();
  mv.shape = t.numel() == 0 ? Shape{0} : t.shape();
  if (mv.shape.size() > 64) throw Error(ErrorCode::BadShape, "memoryview: number of dimensions must not exceed 64");
  mv.nbytes = prod(mv.shape) * mv.itemsize;
  mv.strides = byte_strides(mv.shape, mv.itemsize);
  return mv;
}

MemoryView data(const Tensor& input, const DataOptions& options) {
  MemoryView mv = data_header(input, options);
  const DTypeInfo& info = dtype_info(mv.dtype);
  if (mv.nbytes == 0) {
    mv.buffer = Buffer::cpu(0);
  } else {
    const auto start = std::chrono::steady_clock::now();
    if (options.swapped_in_place) {
      // NOTE: a byte swap over the stored elements is left to the reader of the values
      // (the printing loops swap as they load), so a big-endian file is printed from its
      // mapping like a native one instead of through a realized, swapped copy.
      // Unfetched: this only asks how the bytes are stored (a remote tensor is fetched as printed).
      if (auto s = stored_elements(input.cast(mv.dtype), false); s && s->swap_bytes && s->c_order) {
        mv.buffer = s->keep;
        mv.stored_swapped = true;
        lib_log().info("data(): {} {}, {} bytes, read in place, byte-swapped as printed", std::string(info.name),
                     shape_repr(mv.shape), mv.nbytes);
        return mv;
      }
    }
    NodePtr root = input.cast(mv.dtype).contiguous().node();
    if (options.max_bytes != 0) {
      const std::uint64_t need = schedule_bytes(root);
      if (need > options.max_bytes)
        throw Error(ErrorCode::Unsupported, "Tensor.data(): realize needs " + std::to_string(need) +
                                                " bytes, over the cap of " + std::to_string(options.max_bytes) +
                                                " (DataOptions::max_bytes)");
    }
    // NOTE: Tensor.data() copies into a fresh host buffer. The bytes are immutable here, so
    // a DISK buffer is read in place through the memory map instead: printing a 1 GB
    // tensor streams its pages rather than allocating a second gigabyte.
    NodePtr done = realize(root);
    mv.buffer = std::get<std::shared_ptr<Buffer>>(done->arg);
    lib_log().info("data(): {} {}, {} bytes, realized in {:.3f} ms ({})", std::string(info.name), shape_repr(mv.shape),
                 mv.nbytes, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
                 mv.buffer->device() == Device::DISK ? "read in place from the file mapping" : "in host memory");
  }
  return mv;
}

MemoryView cast_view(const MemoryView& view, char format, const std::optional<Shape>& shape) {
  auto fail = [](const std::string& m) -> void { throw Error(ErrorCode::Unsupported, "memoryview: " + m); };
  std::optional<DType> to = dtype_for_format(format);
  if (!to) fail("destination format must be a native single character format prefixed with an optional '@'");
  if (!view.c_contiguous) fail("casts are restricted to C-contiguous views");
  if (view.stored_swapped) throw Error(ErrorCode::Internal, "internal: memoryview.cast of a byte-swapped stored view");
  auto is_byte = [](std::optional<char> f) { return f && (*f == 'B' || *f == 'b' || *f == 'c'); };
  if (!view.format) fail("source format must be a native single character format prefixed with an optional '@'");
  if (!is_byte(view.format) && !is_byte(format))
    fail(std::string("cannot cast between two non-byte formats (cast to 'B' first: --view-as B --view-as ") + format +
         ")");
  const std::size_t target_ndim = shape ? shape->size() : 1;
  if (view.ndim() != 1 && target_ndim != 1) fail("cast must be 1D -> ND or ND -> 1D");
  if (shape && shape->size() > 64) fail("number of dimensions must not exceed 64");
  const std::int64_t isz = dtype_info(*to).itemsize;
  MemoryView mv = view;
  mv.format = format;
  mv.native_prefix = false;
  mv.dtype = *to;
  mv.itemsize = isz;
  if (shape && !shape->empty()) {
    std::int64_t n = isz;
    for (auto d : *shape) {
      if (d <= 0) throw Error(ErrorCode::Unsupported, "memoryview.cast(): elements of shape must be integers > 0");
      n *= d;
    }
    if (n != view.nbytes) fail("product(shape) * itemsize != buffer size");
    mv.shape = *shape;
  } else if (shape && shape->empty()) {
    if (view.nbytes != isz) fail("product(shape) * itemsize != buffer size");
    mv.shape = {};
  } else {
    if (view.nbytes % isz != 0) fail("length is not a multiple of itemsize");
    mv.shape = {view.nbytes / isz};
  }
  mv.strides = byte_strides(mv.shape, isz);
  return mv;
}

std::optional<Tensor> cast_of_swapped(const Tensor& t, const MemoryView& view, const DataOptions& options) {
  const MemoryView head = data_header(t, options);
  if (head.nbytes == 0 || head.nbytes != view.nbytes || view.itemsize <= 0) return std::nullopt;
  auto s = stored_elements(t.cast(head.dtype), false);
  if (!s || !s->swap_bytes || !s->c_order) return std::nullopt;
  // NOTE: data(t)'s byte b is the stored byte b with its place inside its stored element
  // mirrored; element i of the cast view is data(t)'s bytes [i * size, (i + 1) * size),
  // read as the unsigned int of that size and bitcast (an exact, fused op) to the view's
  // dtype, so every bit of a float (a NaN's payload) comes through.
  const auto unit = static_cast<std::size_t>(head.itemsize), size = static_cast<std::size_t>(view.itemsize);
  const DType word = size == 1 ? DType::UInt8 : size == 2 ? DType::UInt16 : size == 4 ? DType::UInt32 : DType::UInt64;
  auto producer = std::make_shared<Producer>();
  producer->label = "memoryview.cast('" + view.format_string().value_or("") + "') of byte-swapped stored bytes";
  producer->element = [bytes = s->bytes, keep = s->keep, unit, size, word](std::int64_t i) {
    const std::size_t first = static_cast<std::size_t>(i) * size;
    const std::size_t lo = first / unit * unit, hi = (first + size + unit - 1) / unit * unit;
    fetch_bytes(bytes.subspan(lo, hi - lo));  // the stored elements it spans (a remote file)
    std::byte native[8];
    for (std::size_t j = 0; j < size; ++j) {
      const std::size_t b = first + j;
      native[j] = bytes[b / unit * unit + unit - 1 - b % unit];
    }
    return load_scalar(word, native);
  };
  producer->fill = [element = producer->element, size, word](std::span<std::byte> out) {
    for (std::size_t i = 0; i * size < out.size(); ++i)
      store_scalar(word, element(static_cast<std::int64_t>(i)), out.data() + i * size);
  };
  const std::int64_t n = view.nbytes / view.itemsize;
  return Tensor::from_producer(producer, word, {n}).bitcast(view.dtype).reshape(view.shape);
}

MemoryView cast_view(const MemoryView& view, std::string_view format, const std::optional<Shape>& shape) {
  const bool prefixed = format.size() == 2 && format[0] == '@';
  if (format.size() != 1 && !prefixed)
    throw Error(
        ErrorCode::Unsupported,
        "memoryview: destination format must be a native single character format prefixed with an optional '@'");
  MemoryView mv = cast_view(view, format.back(), shape);
  mv.native_prefix = prefixed;
  return mv;
}

MemoryView cast_view_as(MemoryView mv, const std::vector<std::string>& view_as) {
  for (const std::string& spec : view_as) {
    auto colon = spec.find(':');
    std::string fmt = spec.substr(0, colon);
    if (fmt.size() != 1 && !(fmt.size() == 2 && fmt[0] == '@'))
      throw Error(ErrorCode::Usage, "--view-as '" + spec + "': a format is one struct character (B, b, c, i, f, ...)");
    std::optional<Shape> shape;
    if (colon != std::string::npos) shape = parse_shape(spec.substr(colon + 1), "--view-as");
    mv = cast_view(mv, std::string_view(fmt), shape);
  }
  return mv;
}

}  // namespace tensor_inspect
