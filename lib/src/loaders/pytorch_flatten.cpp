// loaders/pytorch_flatten.cpp — unique names for the values of a torch.save pickle (see
// pytorch_flatten.hpp).
#include "loaders/pytorch_flatten.hpp"

#include <unordered_map>
#include <unordered_set>

#include "loaders/pickle_keys.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

using Kind = PickleValue::Kind;

/// A leaf's name in both forms: dotted (as state_dict keys read) and subscripted (exact).
struct Name {
  std::string dotted;
  std::string exact;
};

std::string key_text(const PickleValue& k) {
  switch (k.kind) {
    case Kind::Str: return k.text;
    case Kind::Int: return std::to_string(k.integer);
    case Kind::BigInt: return pickle_key_repr(k);  // its decimal digits
    case Kind::Bool: return k.boolean ? "True" : "False";
    case Kind::None: return "None";
    default: return "<" + pickle_type_name(k) + ">";
  }
}

std::string key_subscript(const PickleValue& k) {
  // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "[" + std::string&&.
  std::string s = "[";
  s += k.kind == Kind::Str ? pickle_str_repr(k.text) : key_text(k);
  s += ']';
  return s;
}

Name child(const Name& parent, const std::string& dotted, const std::string& subscript) {
  return {parent.dotted.empty() ? dotted : parent.dotted + "." + dotted, parent.exact + subscript};
}

/// The value a dict holds under the str key `key`, or nullptr.
PickleRef dict_get(const PickleValue& d, std::string_view key) {
  if (d.kind != Kind::Dict) return nullptr;
  for (std::size_t i = 0; i + 1 < d.items.size(); i += 2)
    if (d.items[i]->kind == Kind::Str && d.items[i]->text == key) return d.items[i + 1];
  return nullptr;
}

/// The pickled __dict__ of an nn.Module: a dict holding _parameters or _modules.
PickleRef module_state(const PickleValue& v) {
  if (v.kind != Kind::Object || !v.state || v.state->kind != Kind::Dict) return nullptr;
  return dict_get(*v.state, "_parameters") || dict_get(*v.state, "_modules") ? v.state : nullptr;
}

class Flattener {
 public:
  explicit Flattener(const std::string& where) : where_(where) {}

  std::vector<PickleLeaf> run(PickleRef root) {
    visit(root, {}, 0);
    make_unique();
    std::vector<PickleLeaf> out;
    out.reserve(leaves_.size());
    for (Pending& p : leaves_) out.push_back({p.use_exact ? p.name.exact : p.name.dotted, p.value, p.same_as});
    return out;
  }

 private:
  struct Pending {
    Name name;
    PickleRef value;
    std::string same_as;
    bool use_exact = false;
  };

  // `limit`: the cap that was hit (limits.hpp), which makes the Error LimitExceeded.
  [[noreturn]] void fail(const std::string& what, const PickleValue& at, std::string_view limit = {}) const {
    throw Error(limit.empty() ? ErrorCode::BadFile : ErrorCode::LimitExceeded,
                where_ + ": " + what + " at byte " + std::to_string(at.at), {where_, "", at.at, std::string(limit)});
  }

  void leaf(const Name& name, PickleRef v, std::string same_as = {}) {
    if (leaves_.size() >= limits().pickle_entries)
      fail("more than " + std::to_string(limits().pickle_entries) + " tensors and values" +
               limit_hint("pickle_entries"),
           *v, "pickle_entries");
    leaves_.push_back({name, v, std::move(same_as)});
  }

  /// Containers are entered once; true when `v` was entered before (a leaf says so).
  bool seen_before(const Name& name, PickleRef v) {
    auto [it, fresh] = entered_.emplace(v, name.dotted);
    if (fresh) return false;
    leaf(name, v, it->second.empty() ? "<root>" : it->second);
    return true;
  }

  void visit(PickleRef v, const Name& name, std::uint64_t depth) {
    if (depth > limits().pickle_depth)
      fail("nesting deeper than " + std::to_string(limits().pickle_depth) + " levels at '" + name.dotted + "'" +
               limit_hint("pickle_depth"),
           *v, "pickle_depth");
    if (v->kind == Kind::Dict) {
      if (seen_before(name, v)) return;
      for (std::size_t i = 0; i + 1 < v->items.size(); i += 2)
        visit(v->items[i + 1], child(name, key_text(*v->items[i]), key_subscript(*v->items[i])), depth + 1);
      return;
    }
    if (v->kind == Kind::List || v->kind == Kind::Tuple) {
      if (seen_before(name, v)) return;
      for (std::size_t i = 0; i < v->items.size(); ++i) {
        const std::string index = std::to_string(i);
        visit(v->items[i], child(name, index, "[" + index + "]"), depth + 1);
      }
      return;
    }
    if (v->kind == Kind::Object) {
      const std::string& fn = v->text;
      // nn.Parameter(data, requires_grad, hooks): the tensor is its first argument.
      if ((fn == "torch._utils._rebuild_parameter" || fn == "torch._utils._rebuild_parameter_with_state") &&
          !v->items.empty()) {
        visit(v->items[0], name, depth + 1);
        return;
      }
      if (PickleRef state = module_state(*v)) {
        if (seen_before(name, v)) return;
        visit_module(*state, name, depth);
        return;
      }
      // A TorchScript module (torch.jit.save: a __torch__.* class built from a dict of its
      // attributes, torch/csrc/jit/serialization/python_print.cpp names the classes): its
      // parameters, buffers and submodules are attributes, named as state_dict() names them.
      if (fn.starts_with("__torch__.") && v->state && v->state->kind == Kind::Dict) {
        if (seen_before(name, v)) return;
        const PickleValue& attrs = *v->state;
        for (std::size_t i = 0; i + 1 < attrs.items.size(); i += 2)
          visit(attrs.items[i + 1], child(name, key_text(*attrs.items[i]), key_subscript(*attrs.items[i])), depth + 1);
        return;
      }
    }
    leaf(name, v);
  }

  /// Module.state_dict's order: own parameters, persistent buffers, then submodules.
  void visit_module(const PickleValue& state, const Name& name, std::uint64_t depth) {
    std::unordered_set<std::string> non_persistent;
    // A set pickles as set([names]) (REDUCE of builtins.set, or __builtin__.set at protocol 2).
    PickleRef np = dict_get(state, "_non_persistent_buffers_set");
    if (np && np->kind == Kind::Object && !np->items.empty()) np = np->items[0];
    if (np && np->kind == Kind::List)
      for (PickleRef item : np->items)
        if (item->kind == Kind::Str) non_persistent.insert(item->text);
    for (const char* field : {"_parameters", "_buffers", "_modules"}) {
      PickleRef d = dict_get(state, field);
      if (!d || d->kind != Kind::Dict) continue;
      for (std::size_t i = 0; i + 1 < d->items.size(); i += 2) {
        const PickleValue& key = *d->items[i];
        PickleRef value = d->items[i + 1];
        if (value->kind == Kind::None) continue;  // register_parameter(name, None)
        if (field[1] == 'b' && key.kind == Kind::Str && non_persistent.count(key.text)) continue;
        visit(value, child(name, key_text(key), key_subscript(key)), depth + 1);
      }
    }
  }

  /// Gives every leaf whose dotted name is not unique its exact name; an exact name is
  /// unique by construction, but may equal another leaf's dotted name, which then
  /// switches too.
  void make_unique() {
    std::unordered_map<std::string_view, std::size_t> count;
    for (const Pending& p : leaves_) ++count[p.name.dotted];
    bool changed = false;
    for (Pending& p : leaves_)
      if (count[p.name.dotted] > 1) p.use_exact = changed = true;
    while (changed) {
      changed = false;
      std::unordered_set<std::string_view> exact;
      for (const Pending& p : leaves_)
        if (p.use_exact) exact.insert(p.name.exact);
      for (Pending& p : leaves_)
        if (!p.use_exact && exact.count(p.name.dotted)) p.use_exact = changed = true;
    }
  }

  const std::string& where_;
  std::vector<Pending> leaves_;
  std::unordered_map<PickleRef, std::string> entered_;
};

}  // namespace

bool is_torch_tensor(const PickleValue& v) {
  return v.kind == Kind::Object &&
         (v.text == "torch._utils._rebuild_tensor_v2" || v.text == "torch._utils._rebuild_tensor" ||
          v.text == "torch._utils._rebuild_tensor_v3");
}

std::vector<PickleLeaf> flatten_pickle(PickleRef root, const std::string& where) { return Flattener(where).run(root); }

std::string pickle_str_repr(const std::string& s) {
  // Python's repr: single quotes unless the text holds one and no double quote.
  const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == '\\' || c == q) out += '\\';
    out += c;
  }
  return out + q;
}

}  // namespace tensor_inspect
