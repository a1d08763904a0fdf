// loaders/pickle.cpp — the restricted pickle machine (CPython Lib/pickle.py, _Unpickler).
//
// Byte layout: a stream of one-byte opcodes, each followed by its fixed or
// length-prefixed argument, ending with STOP ('.'). Integers in arguments are
// little-endian; BINFLOAT is a big-endian double. Values live on a stack, MARK starts a
// run that TUPLE/LIST/DICT/APPENDS/SETITEMS consume, and the memo (BINPUT/BINGET) lets a
// value be referenced twice. Protocol-0 text opcodes and out-of-band buffers are refused.
#include "loaders/pickle.hpp"

#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "loaders/byte_reader.hpp"
#include "loaders/pickle_opcodes.hpp"
#include "loaders/pickle_keys.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

using Kind = PickleValue::Kind;

class PickleMachine {
 public:
  PickleMachine(std::span<const std::byte> bytes, const std::string& name, const PickleLimits& limits,
                std::uint64_t base)
      : r_(bytes, name + ": pickle", base), limits_(limits) {}

  Pickled run() {
    while (r_.remaining() > 0) {
      op_at_ = r_.offset();
      const std::uint8_t code = r_.u8("opcode");
      if (code == '.') {
        Pickled out{std::move(arena_), pop(), std::move(globals_), {}, 0, r_.pos()};
        if (auto fault = pickle_unique_keys(out, limits_.max_depth)) r_.fail_at(fault->what, fault->at);
        return out;
      }
      const PickleOpcode* op = pickle_opcode(code);
      if (!op || !op->runs) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(code));
        fail("unsupported opcode " + std::string(hex));
      }
      step(code, read_pickle_argument(r_, *op, 1024));
    }
    r_.fail("truncated: the pickle ends without STOP");
  }

 private:
  [[noreturn]] void fail(const std::string& what, std::string_view limit = {}) const {
    r_.fail_at(what, op_at_, limit);
  }

  PickleRef make(Kind kind) {
    if (++made_ > limits_.max_values)
      fail("more than " + std::to_string(limits_.max_values) + " values" + limit_hint("pickle_values"),
           "pickle_values");
    arena_.push_back(std::make_unique<PickleValue>());
    PickleRef v = arena_.back().get();
    v->kind = kind;
    v->at = op_at_;
    return v;
  }
  PickleRef make_int(std::int64_t i) {
    auto v = make(Kind::Int);
    v->integer = i;
    return v;
  }
  PickleRef make_text(Kind kind, std::string s) {
    auto v = make(kind);
    v->text = std::move(s);
    return v;
  }

  void add_refs(std::uint64_t n) {
    refs_ += n;
    if (refs_ > limits_.max_refs)
      fail("more than " + std::to_string(limits_.max_refs) + " stack and container references" +
               limit_hint("pickle_refs"),
           "pickle_refs");
  }
  std::size_t frame_base() const { return marks_.empty() ? 0 : marks_.back(); }
  void push(PickleRef v) {
    add_refs(1);
    stack_.push_back(std::move(v));
  }
  PickleRef pop() {
    if (stack_.size() <= frame_base()) fail("stack underflow");
    PickleRef v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  PickleRef& top() {
    if (stack_.size() <= frame_base()) fail("stack underflow");
    return stack_.back();
  }
  /// The values pushed since the last MARK, which is removed.
  std::vector<PickleRef> pop_mark() {
    if (marks_.empty()) fail("no MARK to pop to");
    const std::size_t base = marks_.back();
    marks_.pop_back();
    std::vector<PickleRef> items(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(base)),
                                 std::make_move_iterator(stack_.end()));
    stack_.resize(base);
    return items;
  }

  void memo_put(std::uint64_t index) {
    if (memo_.size() >= limits_.max_memo && memo_.find(index) == memo_.end())
      fail("more than " + std::to_string(limits_.max_memo) + " memo entries" + limit_hint("pickle_memo"),
           "pickle_memo");
    memo_[index] = top();
  }
  void memo_get(std::uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail("memo index " + std::to_string(index) + " was never stored");
    push(it->second);
  }

  /// LONG1, LONG4: Python reads any length, so only the value counts (9 bytes may hold 5).
  PickleRef make_long(std::string raw) {
    std::string bytes = pickle_long_canonical(std::move(raw));
    const std::size_t m = bytes.size();
    if (m > 8) return make_text(Kind::BigInt, std::move(bytes));
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < m; ++i) v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(bytes[i])) << (8 * i);
    if (m > 0 && m < 8 && (static_cast<std::uint8_t>(bytes[m - 1]) & 0x80)) v |= ~std::uint64_t{0} << (8 * m);
    return make_int(static_cast<std::int64_t>(v));
  }

  /// A GLOBAL or STACK_GLOBAL: recorded once, so callers can check it against an allow-list.
  PickleRef make_global(std::string name) {
    if (global_names_.insert(name).second) globals_.push_back({name, op_at_});
    return make_text(Kind::Global, std::move(name));
  }

  PickleRef make_seq(Kind kind, std::vector<PickleRef> items, PickleValue::Set set = PickleValue::Set::No) {
    auto v = make(kind);
    v->items = std::move(items);
    v->set = set;
    return v;
  }

  /// REDUCE, NEWOBJ: an OrderedDict becomes a dict; any other global an opaque Object
  /// that keeps its arguments. Nothing is called.
  PickleRef make_object(PickleRef callable, const PickleRef& args) {
    // The legacy torch.save pickles an nn.Module's class as the persistent id ('module',
    // class, source file, source); torch.load resolves it to the class (torch/serialization.py,
    // _legacy_load's persistent_load), so here it is that global.
    if (callable->kind == Kind::PersistentId && callable->items.size() >= 2 && callable->items[0]->kind == Kind::Str &&
        callable->items[0]->text == "module" && callable->items[1]->kind == Kind::Global)
      callable = callable->items[1];
    if (callable->kind != Kind::Global && callable->kind != Kind::Object)
      fail("cannot call a " + pickle_type_name(*callable));
    if (args->kind != Kind::Tuple) fail("call arguments are a " + pickle_type_name(*args) + ", not a tuple");
    if (callable->kind == Kind::Global && callable->text == "collections.OrderedDict") {
      auto d = make(Kind::Dict);
      if (!args->items.empty() && args->items[0]->kind == Kind::List)
        for (const PickleRef& pair : args->items[0]->items)
          if (pair->kind == Kind::Tuple && pair->items.size() == 2) {
            d->items.push_back(pair->items[0]);
            d->items.push_back(pair->items[1]);
          }
      return d;
    }
    auto obj = make_text(Kind::Object, callable->text);
    add_refs(args->items.size());
    obj->items = args->items;
    return obj;
  }

  void add_items(std::vector<PickleRef> items, bool pairs) {
    PickleRef& target = top();
    if (target->kind == Kind::Object) return;  // a subclass of list or dict: contents dropped
    if (pairs) {
      if (target->kind != Kind::Dict) fail("SETITEM on a " + pickle_type_name(*target));
      if (items.size() % 2 != 0) fail("SETITEMS with an odd number of values");
    } else if (target->kind != Kind::List) {
      fail("APPEND on a " + pickle_type_name(*target));
    }
    add_refs(items.size());
    for (PickleRef& v : items) target->items.push_back(std::move(v));
  }

  /// Runs opcode `op`, its argument `a` read (pickle_opcodes.hpp).
  void step(std::uint8_t op, PickleArgument a) {
    switch (op) {
      case 0x80:  // PROTO
        if (a.n > 5) fail("unknown pickle protocol " + std::to_string(a.n));
        break;
      case 0x95: break;  // FRAME: only a read-ahead hint
      case '(':
        add_refs(1);
        marks_.push_back(stack_.size());
        break;
      case '0':  // POP: a value, or a bare MARK as CPython does
        if (stack_.size() > frame_base()) pop();
        else if (!marks_.empty()) (void)pop_mark();
        else fail("stack underflow");
        break;
      case '1': (void)pop_mark(); break;
      case '2': push(top()); break;
      case 'N': push(make(Kind::None)); break;
      case 0x88: case 0x89: {
        auto v = make(Kind::Bool);
        v->boolean = op == 0x88;
        push(v);
        break;
      }
      case 'J': push(make_int(static_cast<std::int32_t>(static_cast<std::uint32_t>(a.n)))); break;
      case 'K': case 'M': push(make_int(static_cast<std::int64_t>(a.n))); break;  // BININT1, BININT2
      case 0x8a: case 0x8b: push(make_long(std::move(a.text))); break;      // LONG1, LONG4
      case 'G': {
        std::uint64_t bits = 0;  // big-endian on the wire
        for (std::size_t i = 0; i < 8; ++i) bits = bits << 8 | static_cast<std::uint8_t>(a.text[i]);
        auto v = make(Kind::Float);
        std::memcpy(&v->number, &bits, 8);
        push(v);
        break;
      }
      // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8, BINSTRING, SHORT_BINSTRING
      case 'X': case 0x8c: case 0x8d: case 'T': case 'U': push(make_text(Kind::Str, std::move(a.text))); break;
      // BINBYTES, SHORT_BINBYTES, BINBYTES8
      case 'B': case 'C': case 0x8e: push(make_text(Kind::Bytes, std::move(a.text))); break;
      case ')': push(make(Kind::Tuple)); break;
      case ']': push(make(Kind::List)); break;
      case '}': push(make(Kind::Dict)); break;
      case 0x8f: push(make_seq(Kind::List, {}, PickleValue::Set::Mutable)); break;  // EMPTY_SET, shown as a list
      case 't': push(make_seq(Kind::Tuple, pop_mark())); break;
      case 'l': push(make_seq(Kind::List, pop_mark())); break;
      case 0x91: push(make_seq(Kind::List, pop_mark(), PickleValue::Set::Frozen)); break;  // FROZENSET
      case 'd': {
        auto items = pop_mark();
        if (items.size() % 2 != 0) fail("DICT with an odd number of values");
        push(make_seq(Kind::Dict, std::move(items)));
        break;
      }
      case 0x85: case 0x86: case 0x87: {  // TUPLE1..3
        std::vector<PickleRef> items(static_cast<std::size_t>(op - 0x84));
        for (std::size_t i = items.size(); i-- > 0;) items[i] = pop();
        push(make_seq(Kind::Tuple, std::move(items)));
        break;
      }
      case 'a': {
        PickleRef v = pop();
        add_items({v}, false);
        break;
      }
      case 'e': add_items(pop_mark(), false); break;
      case 0x90: add_items(pop_mark(), false); break;  // ADDITEMS to a set
      case 's': {
        PickleRef v = pop();
        PickleRef k = pop();
        add_items({k, v}, true);
        break;
      }
      case 'u': add_items(pop_mark(), true); break;
      case 'q': case 'r': memo_put(a.n); break;  // BINPUT, LONG_BINPUT
      case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
      case 'h': case 'j': memo_get(a.n); break;  // BINGET, LONG_BINGET
      case 'c': push(make_global(std::move(a.text))); break;  // GLOBAL: "module.qualname"
      case 0x93: {  // STACK_GLOBAL
        PickleRef qualname = pop();
        PickleRef module = pop();
        if (module->kind != Kind::Str || qualname->kind != Kind::Str) fail("STACK_GLOBAL needs two str");
        push(make_global(module->text + "." + qualname->text));
        break;
      }
      case 'R': case 0x81: {  // REDUCE, NEWOBJ
        PickleRef args = pop();
        PickleRef callable = pop();
        push(make_object(callable, args));
        break;
      }
      case 0x92: {  // NEWOBJ_EX: keyword arguments are dropped
        (void)pop();
        PickleRef args = pop();
        PickleRef callable = pop();
        push(make_object(callable, args));
        break;
      }
      case 'b': {  // BUILD: the state is kept beside the object, never applied
        PickleRef state = pop();
        PickleRef target = top();
        if (target->kind == Kind::Object && !target->state) {
          add_refs(1);
          target->state = state;
        }
        break;
      }
      case 'Q': {
        PickleRef pid = pop();
        auto v = make(Kind::PersistentId);
        if (pid->kind == Kind::Tuple) v->items = pid->items;
        else v->items = {pid};
        push(v);
        break;
      }
      default: break;  // never: run() lets through only the opcodes the table marks `runs`
    }
  }

  ByteReader r_;
  PickleLimits limits_;
  std::vector<std::unique_ptr<PickleValue>> arena_;
  std::vector<PickleRef> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, PickleRef> memo_;
  std::vector<PickleGlobal> globals_;
  std::unordered_set<std::string> global_names_;
  std::uint64_t made_ = 0;
  std::uint64_t refs_ = 0;
  std::uint64_t op_at_ = 0;
};

}  // namespace

PickleLimits PickleLimits::current() {
  return {limits().pickle_values, limits().pickle_memo, limits().pickle_refs, limits().pickle_depth};
}

Pickled read_pickle(std::span<const std::byte> bytes, const std::string& name, const PickleLimits& limits,
                    std::uint64_t base) {
  return PickleMachine(bytes, name, limits, base).run();
}

std::string pickle_type_name(const PickleValue& v) {
  switch (v.kind) {
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: case Kind::BigInt: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Bytes: return "bytes";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Global: case Kind::Object: return v.text;
    case Kind::PersistentId: return "persistent_id";
  }
  return "object";
}

}  // namespace tensor_inspect
