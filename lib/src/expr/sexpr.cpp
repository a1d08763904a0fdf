// The S-expression form of a parse tree (expression_tree), for tests and debugging.
#include <charconv>
#include <cmath>

#include "expr/ast.hpp"
#include "tensor_inspect/expr.hpp"

namespace tensor_inspect::expr {

namespace {

std::string number_text(const Scalar& v) {
  if (v.kind == DKind::Signed) return std::to_string(v.i);
  if (v.kind == DKind::Unsigned) return std::to_string(v.u);
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v.f);
  (void)ec;
  std::string s(buf, p);
  if (std::isfinite(v.f) && s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string to_sexpr(const Node& n) {
  auto kid = [](const NodePtr& k) { return k ? to_sexpr(*k) : std::string("_"); };
  std::string out;
  switch (n.kind) {
    case Node::Kind::Number: return number_text(n.value);
    case Node::Kind::String: return "'" + n.text + "'";
    case Node::Kind::Constant:
    case Node::Kind::Name: return n.text;
    case Node::Kind::Ellipsis: return "...";
    case Node::Kind::Attribute: return "(. " + kid(n.kids[0]) + " " + n.text + ")";
    case Node::Kind::Call: {
      out = "(call " + kid(n.kids[0]);
      for (std::size_t i = 1; i < n.kids.size(); ++i) {
        out += " ";
        if (i > n.positional) out += n.keywords[i - 1 - n.positional] + "=";
        out += kid(n.kids[i]);
      }
      return out + ")";
    }
    case Node::Kind::Index: return "(index " + kid(n.kids[0]) + " " + kid(n.kids[1]) + ")";
    case Node::Kind::Slice: return "(slice " + kid(n.kids[0]) + " " + kid(n.kids[1]) + " " + kid(n.kids[2]) + ")";
    case Node::Kind::Tuple:
    case Node::Kind::List: {
      out = n.kind == Node::Kind::Tuple ? "(tuple" : "(list";
      for (const NodePtr& k : n.kids) {
        out += ' ';
        out += kid(k);
      }
      return out + ")";
    }
    case Node::Kind::Unary: {
      std::string name = n.text == "-" ? "neg" : n.text == "+" ? "pos" : n.text == "not" ? "not" : "inv";
      return "(" + name + " " + kid(n.kids[0]) + ")";
    }
    case Node::Kind::Binary: return "(" + n.text + " " + kid(n.kids[0]) + " " + kid(n.kids[1]) + ")";
  }
  return out;
}

}  // namespace tensor_inspect::expr

namespace tensor_inspect {

std::string expression_tree(std::string_view expr) { return expr::to_sexpr(*expr::parse(expr)); }

}  // namespace tensor_inspect
