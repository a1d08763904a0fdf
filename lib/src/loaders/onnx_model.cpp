// loaders/onnx_model.cpp — the walk over a ModelProto down to its initializers (see
// onnx_model.hpp for the layout and the field numbers, from onnx/onnx's onnx.proto).
#include "loaders/onnx_model.hpp"

#include <climits>
#include <unordered_map>
#include <unordered_set>

#include "loaders/formats.hpp"
#include "loaders/onnx_wire.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

struct OnnxModelWalk {
  std::span<const std::byte> bytes;
  const OnnxFaults& faults;
  const OnnxRelease& release;
  OnnxModel& m;
  // Initializer name -> byte of its first TensorProto, one map a graph being walked: ONNX
  // scopes names by graph (onnx.checker accepts an If whose two branches each hold a 'w').
  std::vector<std::unordered_map<std::string, std::uint64_t>> scopes;
  std::unordered_set<std::string> listed;  // the names listed so far, each once
  std::vector<OnnxTensor> sub;             // subgraphs' initializers, listed after the main graph's

  void fault(std::string rule, std::string place, std::uint64_t at, std::string message, bool warning = false) {
    faults({std::move(rule), std::move(place), at, std::move(message), warning, {}});
  }
  // A hit cap: rule "limit", naming the Limits field `limit`.
  void over(std::string_view limit, std::string place, std::uint64_t at, std::string message) {
    faults({"limit", std::move(place), at, std::move(message), false, std::string(limit)});
  }
  /// Runs `walk` over the message of `f`; a wire fault inside it is one fault, and the walk
  /// goes on after the message (its length is sound: it was read from the parent).
  template <class Walk>
  void message(const WireField& f, const std::string& place, Walk walk) {
    if (f.wire_type != WireType::Bytes)
      return fault("structure", place, f.at,
                   "field " + std::to_string(f.number) + " has wire type " +
                       std::to_string(static_cast<int>(f.wire_type)) + ", not a message's 2");
    try {
      WireReader r(bytes, f.begin, f.end);
      for (WireField g; r.next(g);) walk(g);
    } catch (const WireError& e) {
      fault("structure", place, e.at, e.message);
    }
  }
  std::string text(const WireField& f) {
    if (f.wire_type != WireType::Bytes) return {};
    if (f.end - f.begin > limits().onnx_string_bytes) {
      over("onnx_string_bytes", "model", f.at,
           "a string of " + std::to_string(f.end - f.begin) + " bytes exceeds the limit of " +
               std::to_string(limits().onnx_string_bytes) + limit_hint("onnx_string_bytes"));
      return {};
    }
    return wire_string(bytes, f);
  }

  void initializer(const WireField& f, bool top, std::vector<std::size_t>& own) {
    if (m.initializers.size() + sub.size() == limits().onnx_initializers)
      return over("onnx_initializers", "graph", f.at,
                  "more than " + std::to_string(limits().onnx_initializers) + " initializers" +
                      limit_hint("onnx_initializers"));
    if (f.wire_type != WireType::Bytes) return fault("structure", "graph", f.at, "initializer is no message");
    OnnxTensor t = parse_onnx_tensor(bytes, f.at, f.begin, f.end, faults);
    if (!t.name.empty()) {
      const auto [it, fresh] = scopes.back().emplace(t.name, t.at);
      if (!fresh) {
        fault("duplicate_name", "initializer '" + t.name + "'", t.at,
              "the name is given again (first at byte " + std::to_string(it->second) + ")");
        t.usable = false;
      }
    }
    if (top) {
      listed.insert(t.name);
      m.initializers.push_back(std::move(t));
    } else {
      own.push_back(sub.size());
      sub.push_back(std::move(t));
    }
    if (release) release(f.at, f.end);
  }

  void graph(const WireField& f, std::uint64_t depth, bool top) {
    if (depth > limits().onnx_graph_depth)
      return over("onnx_graph_depth", "graph", f.at,
                  "subgraphs nested more than " + std::to_string(limits().onnx_graph_depth) + " levels deep" +
                      limit_hint("onnx_graph_depth"));
    scopes.emplace_back();
    std::vector<std::size_t> own;  // this subgraph's initializers in `sub`
    std::string name;
    message(f, "graph", [&](const WireField& g) {
      if (g.number == 5)
        initializer(g, top, own);
      else if (g.number == 15)
        ++m.sparse_initializers;
      else if (g.number == 2)
        name = text(g);
      else if (g.number == 1)
        node(g, depth);
    });
    scopes.pop_back();
    if (top) m.graph_name = name;
    // A subgraph's initializer whose name another graph's already holds is listed as
    // GRAPH/NAME (GRAPH: the subgraph's GraphProto.name), with #2, #3... if that is taken too.
    for (std::size_t i : own) {
      OnnxTensor& t = sub[i];
      if (t.name.empty() || listed.insert(t.name).second) continue;
      const std::string scoped = (name.empty() ? std::string("subgraph") : name) + "/" + t.name;
      std::string unique = scoped;
      for (int n = 2; !listed.insert(unique).second; ++n) unique = scoped + "#" + std::to_string(n);
      t.name = unique;
    }
  }

  void node(const WireField& f, std::uint64_t depth) {
    message(f, "node", [&](const WireField& n) {
      if (n.number != 5) return;
      message(n, "node attribute", [&](const WireField& a) {
        if (a.number == 6 || a.number == 11) graph(a, depth + 1, false);
      });
    });
  }

  void model() {
    WireField top;
    top.begin = 0;
    top.end = bytes.size();
    top.wire_type = WireType::Bytes;
    message(top, "model", [&](const WireField& f) {
      switch (f.number) {
        case 1:
          if (f.wire_type == WireType::Varint) m.ir_version = static_cast<std::int64_t>(f.value);
          return;
        case 2: m.producer_name = text(f); return;
        case 3: m.producer_version = text(f); return;
        case 4: m.domain = text(f); return;
        case 5:
          if (f.wire_type == WireType::Varint) m.model_version = static_cast<std::int64_t>(f.value);
          return;
        case 7: return graph(f, 0, true);
        case 8: {
          std::pair<std::string, std::int64_t> op{"", 0};
          message(f, "opset_import", [&](const WireField& o) {
            if (o.number == 1)
              op.first = text(o);
            else if (o.number == 2 && o.wire_type == WireType::Varint)
              op.second = static_cast<std::int64_t>(o.value);
          });
          m.opset_import.push_back(std::move(op));
          return;
        }
        case 14: {
          std::pair<std::string, std::string> kv;
          message(f, "metadata_props", [&](const WireField& o) {
            if (o.number == 1)
              kv.first = text(o);
            else if (o.number == 2)
              kv.second = text(o);
          });
          m.metadata_props.push_back(std::move(kv));
          return;
        }
        default: return;
      }
    });
    if (!m.ir_version)
      fault("ir_version", "model", 0, "the model sets no ir_version (onnx's checker requires one)", true);
  }
};

// A ModelProto field's tag byte with the wire type onnx.proto declares: producer_name (2),
// producer_version (3), domain (4), model_version (5), doc_string (6), graph (7),
// opset_import (8), metadata_props (14); training_info (20) and functions (25) take two bytes.
bool onnx_model_tag(unsigned b) {
  return b == 0x12 || b == 0x1a || b == 0x22 || b == 0x28 || b == 0x32 || b == 0x3a || b == 0x42 || b == 0x72 ||
         b == 0xa2 || b == 0xca;
}

}  // namespace

bool sniff_onnx(std::span<const std::byte> head) {
  // Writers serialize fields in number order, so ir_version (1) comes first: 0x08, a varint.
  if (head.size() < 3 || static_cast<unsigned>(head[0]) != 0x08) return false;
  const auto version = static_cast<unsigned>(head[1]);
  return version >= 1 && version <= 64 && onnx_model_tag(static_cast<unsigned>(head[2]));
}

OnnxModel parse_onnx(std::span<const std::byte> bytes, const OnnxFaults& faults, const OnnxRelease& release) {
  OnnxModel m;
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
    faults({"size", "model", 0,
            "a model of " + std::to_string(bytes.size()) +
                " bytes is over protobuf's 2 GiB cap on a message (ONNX keeps larger weights in external data)",
            false, {}});
    return m;
  }
  OnnxModelWalk walk{bytes, faults, release, m, {}, {}, {}};
  walk.model();
  for (OnnxTensor& t : walk.sub) m.initializers.push_back(std::move(t));
  return m;
}

}  // namespace tensor_inspect
