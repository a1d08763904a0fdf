// loaders/pytorch_flatten.hpp — the values of an unpickled torch.save object, flattened
// to unique names: nested dicts, lists and tuples become dotted names
// ("model.layer.0.weight"), as state_dict keys read; a whole nn.Module (torch.save(model))
// is entered through its pickled __dict__ (_parameters, _buffers, _modules), as
// Module.state_dict names them, without running anything.
//
// Names are unique and reversible: where two dotted names would be equal
// ({"a.b": t1, "a": {"b": t2}}), each of them is written with every component in
// Python's subscript form instead (['a.b'] and ['a']['b']; list indices as [0]).
// An object reached a second time (pickle memo references make a DAG, or a cycle) is
// entered once: tensors are listed at every name that reaches them (tied weights), a
// container reached again is one "reference" leaf naming where it was first seen.
//
//   std::vector<PickleLeaf> leaves = flatten_pickle(pickled.root, "m.pt: archive/data.pkl");
//   for (const PickleLeaf& l : leaves) if (is_torch_tensor(*l.value)) ...
#pragma once

#include <string>
#include <vector>

#include "loaders/pickle.hpp"

namespace tensor_inspect {

/// One flattened value: a tensor rebuild call, a plain value, an opaque object, or a
/// reference to a container already entered (`same_as` names it).
struct PickleLeaf {
  std::string name;
  PickleRef value = nullptr;
  std::string same_as;  ///< non-empty: `value` is a container first reached at this name
};

/// True for torch._utils._rebuild_tensor(_v2, _v3) calls.
bool is_torch_tensor(const PickleValue& v);

/// The leaves under `root` in pickle order, with unique names. `where` names the pickle
/// in messages. Throws Error(BadFile) "<where>: ... at byte N" past Limits::pickle_depth
/// levels or Limits::pickle_entries leaves.
std::vector<PickleLeaf> flatten_pickle(PickleRef root, const std::string& where);

/// Python's repr of a str ('a.b', with quotes and backslashes escaped), for subscript names.
std::string pickle_str_repr(const std::string& s);

}  // namespace tensor_inspect
