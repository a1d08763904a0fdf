// schemes/common.cpp — what every scheme row shares: finding parts, messages, the stored
// columns of a logical entry.
#include <filesystem>

#include "schemes/scheme.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

const TensorEntry* SchemeInput::find(const std::string& name) const {
  const auto it = by_name.find(name);
  // A tensor of a shard that cannot be read has no dtype or shape to recognise a part by:
  // detection passes it by (the parts stay listed as stored), part() says where it is.
  return it == by_name.end() || it->second->details().layout_unknown ? nullptr : it->second;
}

const TensorEntry& SchemeInput::part(const std::string& logical, const std::string& name,
                                     std::string_view scheme) const {
  if (const TensorEntry* e = find(name)) return *e;
  if (const auto it = by_name.find(name); it != by_name.end())  // listed by an index, its shard unreadable
    fail(logical, name, scheme,
         (it->second->note.empty() ? std::string("in a shard that cannot be read") : it->second->note) +
             ": its values cannot be decoded (--stored lists the parts)");
  fail(logical, name, scheme, "missing");
}

void SchemeInput::fail(const std::string& logical, const std::string& part, std::string_view scheme,
                       const std::string& what) const {
  throw SchemeError(file + ": tensor '" + logical + "': part '" + part + "' (" + std::string(scheme) + "): " + what,
                    logical, part);
}

void SchemeInput::undecided(const std::string& logical, const std::string& part, std::string_view scheme,
                            const std::string& what) const {
  try {
    fail(logical, part, scheme, what);
  } catch (SchemeError& err) {
    err.undecided = true;
    throw;
  }
}

std::int64_t SchemeInput::scaled(const std::string& logical, const TensorEntry& part, std::string_view scheme,
                                 std::int64_t dim, std::int64_t factor) const {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(dim, factor, &r))
    fail(logical, part.name, scheme,
         "shape " + shape_repr(part.shape) + ": " + std::to_string(dim) + " x " + std::to_string(factor) +
             " values overflows");
  return r;
}

void SchemeInput::fail_config(const std::string& key, const std::string& what) const {
  throw SchemeError(config_name + ": " + config_key + "." + key + ": " + what, "", "");
}

std::string scale_dtype_name(const TensorEntry& s) {
  if (s.stored_type == "F16") return "float16";
  if (s.stored_type == "BF16") return "bfloat16";
  if (s.stored_type == "F32") return "float32";
  return "";
}

void set_producer_dtype(TensorEntry& e, std::string_view producer, const std::string& dtype) {
  if (dtype.empty()) return;
  e.details_for_write().producer_dtype = dtype_from_name(dtype);
  e.note += (e.note.empty() ? "" : "; ") + std::string(producer) + " hands back " + dtype;
}

std::string shape_text(const Shape& s) { return shape_repr(s); }

void set_stored(TensorEntry& e, const std::vector<const TensorEntry*>& parts, const std::vector<std::string>& roles) {
  e.offset = parts.front()->offset;
  e.nbytes = 0;
  for (const TensorEntry* p : parts) e.nbytes += p->nbytes;
  std::string note;
  for (const std::string& r : roles) note += (note.empty() ? "" : ", ") + r;
  // A sharded checkpoint's parts say where they are; the first part's place is kept.
  if (!parts.front()->note.empty()) note += "; " + parts.front()->note;
  e.note = note;
  e.details_for_write().scheme_parts.clear();
  for (const TensorEntry* p : parts) e.details_for_write().scheme_parts.push_back(p->name);
}

std::shared_ptr<const MappedFile> part_file(const SchemeInput& in, const std::string& logical, const TensorEntry& part,
                                            std::string_view scheme) {
  if (part.file) return part.file;
  if (part.details().blocks_file) return part.details().blocks_file;
  in.fail(logical, part.name, scheme, "its bytes cannot be read (" + part.note + ")");
}

}  // namespace tensor_inspect
