// Tests of loaders/pickle_keys.cpp: dicts and sets a pickle builds hold what CPython's
// would. Each pickle is written opcode by opcode (pickletools' table); what CPython makes of
// it is Python's dict semantics, checked by hand (and, for the same bytes, by
// tests/user_faults_load.py against CPython's pickle): a key given again keeps its first
// place and key object and takes the last value; keys compare as `a is b or a == b`.
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "loaders/pickle.hpp"
#include "loaders/pickle_keys.hpp"
#include "tensor_inspect/error.hpp"
#include "pytorch_builder.hpp"
#include "zip_builder.hpp"

namespace ti = tensor_inspect;
using Kind = ti::PickleValue::Kind;

namespace {

/// Pickle bytes under construction, with the offsets of chosen opcodes.
struct P {
  std::string s = std::string("\x80\x02", 2);
  std::size_t at() const { return s.size(); }
  P& op(std::string_view x) {
    s += x;
    return *this;
  }
  P& str(std::string_view x) {  // SHORT_BINUNICODE
    s += '\x8c';
    s += static_cast<char>(x.size());
    s += x;
    return *this;
  }
  P& byt(std::string_view x) {  // SHORT_BINBYTES
    s += 'C';
    s += static_cast<char>(x.size());
    s += x;
    return *this;
  }
  P& i8(unsigned v) {  // BININT1
    s += 'K';
    s += static_cast<char>(v);
    return *this;
  }
  P& f64(double v) {  // BINFLOAT, big-endian
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, 8);
    s += 'G';
    for (int k = 7; k >= 0; --k) s += static_cast<char>((bits >> (8 * k)) & 0xff);
    return *this;
  }
  P& long1(std::string_view little_endian) {  // LONG1
    s += '\x8a';
    s += static_cast<char>(little_endian.size());
    s += little_endian;
    return *this;
  }
};

ti::Pickled run(const P& p) {
  return ti::read_pickle({reinterpret_cast<const std::byte*>(p.s.data()), p.s.size()}, "k.pkl");
}

/// The root dict's entries as "key=value" texts, in order (ints and strs only).
std::string entries(const ti::Pickled& r) {
  std::string out;
  for (std::size_t i = 0; i + 1 < r.root->items.size(); i += 2)
    out += (out.empty() ? "" : " ") + ti::pickle_key_repr(*r.root->items[i]) + "=" +
           ti::pickle_key_repr(*r.root->items[i + 1]);
  return out;
}

}  // namespace

TEST_CASE("pickle keys: a dict key given twice keeps its first place and takes the last value, as dict does") {
  P p;
  p.op("}(");
  const std::size_t first = p.at();
  p.str("a").i8(1).str("b").i8(2);
  const std::size_t again = p.at();
  p.str("a").i8(3).op("u.");
  const ti::Pickled r = run(p);
  CHECK(entries(r) == "'a'=3 'b'=2");  // {'a': 1, 'b': 2, 'a': 3} == {'a': 3, 'b': 2}
  REQUIRE(r.duplicates.size() == 1);
  CHECK(r.duplicate_count == 1);
  CHECK(r.duplicates[0].key == "'a'");
  CHECK(r.duplicates[0].first == first);
  CHECK(r.duplicates[0].again == again);
}

TEST_CASE("pickle keys: True, 1 and 1.0 are one key, the first key object kept; 0.0 and -0.0 too") {
  P p;
  p.op("}(").op("\x88").i8(1).i8(1).i8(2).f64(1.0).i8(3).f64(0.0).i8(4).f64(-0.0).i8(5).op("u.");
  const ti::Pickled r = run(p);
  CHECK(entries(r) == "True=3 0.0=5");  // {True: 1, 1: 2, 1.0: 3, 0.0: 4, -0.0: 5}
  REQUIRE(r.root->items[0]->kind == Kind::Bool);
  CHECK(r.duplicate_count == 3);
}

TEST_CASE("pickle keys: a nan equals only itself (the same object through the memo)") {
  const double nan = std::nan("");
  P two;
  two.op("}(").f64(nan).i8(1).f64(nan).i8(2).op("u.");
  CHECK(run(two).root->items.size() == 4);  // two nan objects: two keys
  P memo;
  memo.op("}(").f64(nan).op(std::string("q\0", 2)).i8(1).op(std::string("h\0", 2)).i8(2).op("u.");  // BINPUT 0, BINGET
                                                                                                    // 0
  const ti::Pickled r = run(memo);
  CHECK(r.root->items.size() == 2);  // d[x] = 1; d[x] = 2 with one x
  CHECK(r.duplicates.at(0).key == "nan");
}

TEST_CASE("pickle keys: ints wider than 64 bits equal the floats and shorter encodings of their value") {
  P p;
  p.op("}(");
  p.long1(std::string("\0\0\0\0\0\0\0\0\x40", 9)).i8(1);  // 2**70
  p.f64(0x1p70).i8(2);                                     // 2.0**70 == 2**70
  p.long1(std::string("\0\0\0\0\0\0\0\0\xc0", 9)).i8(3);  // -2**70
  p.f64(-0x1p70).i8(4);
  p.long1(std::string("\x05\0\0\0\0\0\0\0\0\0", 10)).i8(5);  // 5 in ten bytes
  p.i8(5).i8(6);
  p.long1(std::string("\0\0\0\0\0\0\0\x80\0", 9)).i8(7);  // 2**63: not -2**63
  p.long1(std::string("\0\0\0\0\0\0\0\x80", 8)).i8(8);    // -2**63
  p.op("u.");
  const ti::Pickled r = run(p);
  CHECK(entries(r) ==
        "1180591620717411303424=2 -1180591620717411303424=4 5=6 9223372036854775808=7 -9223372036854775808=8");
  CHECK(r.root->items[4]->kind == Kind::Int);  // a 10-byte 5 is an int
}

TEST_CASE("pickle keys: str and bytes never collide; tuples compare item by item, frozensets as sets") {
  P p;
  p.op("}(").str("a").i8(1).byt("a").i8(2);
  p.op("(").i8(1).str("x").op("t").i8(3);
  p.op("(").op("\x88").str("x").op("t").i8(4);  // (True, 'x') == (1, 'x')
  p.op("(").i8(1).i8(2).op("\x91").i8(5);        // frozenset({1, 2})
  p.op("(").i8(2).i8(1).i8(1).op("\x91").i8(6);  // frozenset({2, 1, 1}) == frozenset({1, 2})
  p.op("(").op("\x91").i8(7);                    // frozenset()
  p.op("u.");
  const ti::Pickled r = run(p);
  CHECK(entries(r) == "'a'=1 b'a'=2 (1, 'x')=4 frozenset({1, 2})=6 frozenset()=7");
}

TEST_CASE("pickle keys: DICT, OrderedDict([...]) and sets keep one entry per key too") {
  P dict;
  dict.op("(").str("a").i8(1).str("a").i8(2).op("d.");
  CHECK(entries(run(dict)) == "'a'=2");
  P ordered;
  ordered.op("ccollections\nOrderedDict\n(").str("k").i8(1).op("\x86").str("k").i8(2).op("\x86").op("l\x85R.");
  CHECK(entries(run(ordered)) == "'k'=2");
  P set;
  set.op("\x8f(").i8(1).i8(1).op("\x88").i8(2).op("\x90.");  // {1, 1, True, 2} == {1, 2}
  const ti::Pickled r = run(set);
  REQUIRE(r.root->items.size() == 2);
  CHECK(r.root->items[0]->integer == 1);
  CHECK(r.root->items[1]->integer == 2);
  CHECK(r.duplicate_count == 0);  // only dict keys are findings
}

TEST_CASE("pickle keys: a list, dict or set as a key is Python's TypeError, at the byte that made it") {
  P list;
  list.op("}(");
  const std::size_t at = list.at();
  list.op("]").i8(1).op("u.");
  CHECK_THROWS_WITH_AS(run(list), ("k.pkl: pickle: unhashable type: 'list' at byte " + std::to_string(at)).c_str(),
                       ti::Error);
  P nested;
  nested.op("}(").op("(").i8(1).op("}").op("t").i8(1).op("u.");
  CHECK_THROWS_WITH_AS(run(nested), "k.pkl: pickle: unhashable type: 'dict' at byte 7",
                       ti::Error);  // the {} in (1, {})
  P set;
  set.op("}(").op("\x8f").i8(1).op("u.");
  CHECK_THROWS_WITH_AS(run(set), "k.pkl: pickle: unhashable type: 'set' at byte 4", ti::Error);
  P in_set;
  in_set.op("\x8f(").op("]").op("\x90.");
  CHECK_THROWS_WITH_AS(run(in_set), "k.pkl: pickle: unhashable type: 'list' at byte 4", ti::Error);
}

TEST_CASE("pickle keys: a key nested deeper than the limit is refused, not recursed into") {
  P p;
  p.op("}").i8(1);
  for (int i = 0; i < 100; ++i) p.op("\x85");  // ((((1,),),),...) 100 deep, the outermost made at byte 104
  p.i8(2).op("s.");
  const ti::PickleLimits limits{1000, 1000, 10000, 64};
  CHECK_THROWS_WITH_AS(ti::read_pickle({reinterpret_cast<const std::byte*>(p.s.data()), p.s.size()}, "k.pkl", limits),
                       "k.pkl: pickle: a dict key nests deeper than 64 levels at byte 104", ti::Error);
}

TEST_CASE("pickle keys: equal tuples that share items through the memo compare in linear time, not per path") {
  // a0 = (1,), ai = (a(i-1), a(i-1)) through BINGET, 60 levels; b the same, made apart: 2**60
  // paths, 120 pairs of tuples. {a60: 1, b60: 2} is one key.
  P p;
  p.op("}(");
  for (unsigned memo : {0u, 100u}) {
    p.i8(1).op("\x85").op("q").op(std::string(1, static_cast<char>(memo))).op("0");  // memo, then POP
    for (unsigned level = 1; level <= 60; ++level) {
      const std::string below(1, static_cast<char>(memo + level - 1));
      p.op("h" + below + "h" + below + "\x86q").op(std::string(1, static_cast<char>(memo + level)));
      if (level < 60) p.op("0");
    }
    p.i8(memo == 0 ? 1 : 2);
  }
  p.op("u.");
  const ti::Pickled r = run(p);
  REQUIRE(r.root->items.size() == 2);
  CHECK(r.root->items[1]->integer == 2);
  CHECK(r.duplicate_count == 1);
}

TEST_CASE("pytorch: a checkpoint naming a key twice lists it once, with the last tensor (torch.load's dict)") {
  pytorch_test::Pickle p;
  p.op("}(").str("a");
  p.tensor("FloatStorage", "0", 4, 0, {4}, {1});
  p.str("a");
  p.tensor("FloatStorage", "0", 4, 1, {2}, {1});
  p.op("u.");
  const ti::LoadedFile f = pytorch_test::open_pickle(p, {{"0", pytorch_test::kF32}});
  REQUIRE(f.tensors.size() == 1);
  CHECK(f.tensors[0].name == "a");
  CHECK(f.tensors[0].shape == ti::Shape{2});
}
