// Tokenizer and recursive-descent parser for the Python expression subset.
//
// Precedence, loosest first (as in Python's grammar):
//   not  |  comparison (< <= > >= == !=, no chaining)  |  ^  &  << >>  + -  * / // % @
//   unary (- + ~)  **  (right-assoc; its right operand may be unary: 2 ** -1)
//   primary: atom followed by .name, (args) and [index] trailers
#include <algorithm>

#include "expr/ast.hpp"
#include "expr/lexer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"

namespace tensor_inspect::expr {

void fail(int col, const std::string& message) {
  throw Error(ErrorCode::BadExpression, "expression: column " + std::to_string(col) + ": " + message);
}

namespace {

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  NodePtr parse_all() {
    if (peek().kind == Token::Kind::End) fail(peek().col, "empty expression");
    NodePtr n = expression();
    if (peek().kind != Token::Kind::End) fail(peek().col, "unexpected " + describe(peek()));
    return n;
  }

 private:
  // Bounds real nesting (parentheses, calls, indexing, unary and ** chains), which is what
  // recursion in the parser, the evaluator and the tree's walks follows; a flat chain
  // like 1+1+...+1 is parsed by a loop and does not count.
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser, int col) : p(parser) {
      if (++p.depth_ > kMaxExpressionDepth)
        fail(col, "expression is nested too deeply (more than " + std::to_string(kMaxExpressionDepth) + " levels)");
    }
    ~DepthGuard() { --p.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  const Token& peek(std::size_t k = 0) const { return toks_[std::min(i_ + k, toks_.size() - 1)]; }
  Token take() { return toks_[i_ < toks_.size() - 1 ? i_++ : i_]; }
  bool is_op(std::string_view op, std::size_t k = 0) const {
    return peek(k).kind == Token::Kind::Op && peek(k).text == op;
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Token::Kind::End: return "end of expression";
      case Token::Kind::Op: return "'" + t.text + "'";
      case Token::Kind::Name: return "name '" + t.text + "'";
      case Token::Kind::Number: return "number";
      case Token::Kind::String: return "string";
    }
    return "token";
  }
  void expect(std::string_view op, const Token& opener) {
    if (is_op(op)) { take(); return; }
    if (peek().kind == Token::Kind::End)
      fail(opener.col, "'" + opener.text + "' was never closed");
    fail(peek().col, "expected '" + std::string(op) + "', got " + describe(peek()));
  }

  // Every node is made here, so the count bounds the tree, and with it the graph the
  // evaluator builds and every walk over them (nesting alone is bounded by DepthGuard).
  NodePtr make(Node::Kind kind, int col, std::string text = {}) {
    if (++nodes_ > kMaxExpressionNodes)
      fail(col, "expression has more than " + std::to_string(kMaxExpressionNodes) +
                    " parts (each name, number, operator and call is one)");
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->col = col;
    n->text = std::move(text);
    return n;
  }
  NodePtr binary(const Token& op, NodePtr a, NodePtr b) {
    NodePtr n = make(Node::Kind::Binary, op.col, op.text);
    n->kids.push_back(std::move(a));
    n->kids.push_back(std::move(b));
    return n;
  }

  // Python's not_test, looser than any comparison: `not x.isnan().any()`, `not a < b`.
  NodePtr expression() {
    if (peek().kind == Token::Kind::Name && peek().text == "not") {
      Token op = take();
      DepthGuard guard(*this, op.col);
      NodePtr n = make(Node::Kind::Unary, op.col, "not");
      n->kids.push_back(expression());
      return n;
    }
    return comparison();
  }

  NodePtr comparison() {
    NodePtr left = bit_or();
    static constexpr std::string_view kCmp[] = {"<", "<=", ">", ">=", "==", "!="};
    for (std::string_view c : kCmp) {
      if (!is_op(c)) continue;
      Token op = take();
      NodePtr right = bit_or();
      for (std::string_view c2 : kCmp)
        if (is_op(c2)) fail(peek().col, "chained comparisons are not supported");
      return binary(op, std::move(left), std::move(right));
    }
    return left;
  }

  template <typename Next>
  NodePtr left_assoc(std::initializer_list<std::string_view> ops, Next next) {
    NodePtr left = (this->*next)();
    for (;;) {
      bool matched = false;
      for (std::string_view op : ops) {
        if (!is_op(op)) continue;
        Token t = take();
        left = binary(t, std::move(left), (this->*next)());
        matched = true;
        break;
      }
      if (!matched) return left;
    }
  }
  NodePtr bit_or() { return left_assoc({"|"}, &Parser::bit_xor); }
  NodePtr bit_xor() { return left_assoc({"^"}, &Parser::bit_and); }
  NodePtr bit_and() { return left_assoc({"&"}, &Parser::shift); }
  NodePtr shift() { return left_assoc({"<<", ">>"}, &Parser::arith); }
  NodePtr arith() { return left_assoc({"+", "-"}, &Parser::term); }
  NodePtr term() { return left_assoc({"*", "/", "//", "%", "@"}, &Parser::factor); }

  NodePtr factor() {
    if (is_op("-") || is_op("+") || is_op("~")) {
      Token op = take();
      DepthGuard guard(*this, op.col);
      NodePtr n = make(Node::Kind::Unary, op.col, op.text);
      n->kids.push_back(factor());
      return n;
    }
    return power();
  }

  NodePtr power() {
    NodePtr base = primary();
    if (!is_op("**")) return base;
    Token op = take();
    DepthGuard guard(*this, op.col);
    return binary(op, std::move(base), factor());
  }

  NodePtr primary() {
    NodePtr n = atom();
    for (;;) {
      if (is_op(".")) {
        take();
        if (peek().kind != Token::Kind::Name)
          fail(peek().col, "expected an attribute name after '.', got " + describe(peek()));
        Token name = take();
        NodePtr a = make(Node::Kind::Attribute, name.col, name.text);
        a->kids.push_back(std::move(n));
        n = std::move(a);
      } else if (is_op("(")) {
        n = call(std::move(n));
      } else if (is_op("[")) {
        Token open = take();
        DepthGuard guard(*this, open.col);
        NodePtr idx = make(Node::Kind::Index, open.col);
        idx->kids.push_back(std::move(n));
        idx->kids.push_back(subscript(open));
        expect("]", open);
        n = std::move(idx);
      } else {
        return n;
      }
    }
  }

  NodePtr call(NodePtr callee) {
    Token open = take();
    DepthGuard guard(*this, open.col);
    // The column of a call is its method or function name, where errors point.
    NodePtr n = make(Node::Kind::Call, callee->col);
    n->kids.push_back(std::move(callee));
    std::vector<NodePtr> kw_values;
    while (!is_op(")")) {
      if (peek().kind == Token::Kind::End) fail(open.col, "'(' was never closed");
      if (peek().kind == Token::Kind::Name && is_op("=", 1)) {
        Token name = take();
        take();
        for (const std::string& k : n->keywords)
          if (k == name.text) fail(name.col, "keyword argument repeated: " + name.text);
        n->keywords.push_back(name.text);
        kw_values.push_back(expression());
      } else {
        if (!n->keywords.empty()) fail(peek().col, "positional argument follows keyword argument");
        n->kids.push_back(expression());
        ++n->positional;
      }
      if (is_op(",")) take();
      else if (!is_op(")")) {
        if (peek().kind == Token::Kind::End) fail(open.col, "'(' was never closed");
        fail(peek().col, "expected ',' or ')' in call, got " + describe(peek()));
      }
    }
    take();
    for (NodePtr& v : kw_values) n->kids.push_back(std::move(v));
    return n;
  }

  // One index item: a slice `a:b:c` (any part optional) or an expression.
  NodePtr index_item() {
    int col = peek().col;
    NodePtr start;
    if (!is_op(":")) {
      start = expression();
      if (!is_op(":")) return start;
    }
    NodePtr s = make(Node::Kind::Slice, col);
    take();  // ':'
    NodePtr stop, step;
    if (!is_op(":") && !is_op("]") && !is_op(",")) stop = expression();
    if (is_op(":")) {
      take();
      if (!is_op("]") && !is_op(",")) step = expression();
    }
    s->kids.push_back(std::move(start));
    s->kids.push_back(std::move(stop));
    s->kids.push_back(std::move(step));
    return s;
  }

  NodePtr subscript(const Token& open) {
    if (is_op("]")) fail(peek().col, "empty index");
    NodePtr first = index_item();
    if (!is_op(",")) return first;
    NodePtr tuple = make(Node::Kind::Tuple, first->col);
    tuple->kids.push_back(std::move(first));
    while (is_op(",")) {
      take();
      if (is_op("]")) break;
      if (peek().kind == Token::Kind::End) fail(open.col, "'[' was never closed");
      tuple->kids.push_back(index_item());
    }
    return tuple;
  }

  // Elements of a (...) or [...] display, after the opener.
  NodePtr display(const Token& open, std::string_view close, bool paren) {
    DepthGuard guard(*this, open.col);
    NodePtr n = make(paren ? Node::Kind::Tuple : Node::Kind::List, open.col);
    bool comma = false;
    while (!is_op(close)) {
      if (peek().kind == Token::Kind::End) fail(open.col, "'" + open.text + "' was never closed");
      n->kids.push_back(expression());
      if (is_op(",")) {
        take();
        comma = true;
      } else if (!is_op(close)) {
        if (peek().kind == Token::Kind::End) fail(open.col, "'" + open.text + "' was never closed");
        fail(peek().col, "expected ',' or '" + std::string(close) + "', got " + describe(peek()));
      }
    }
    take();
    if (paren && n->kids.size() == 1 && !comma) return std::move(n->kids[0]);
    return n;
  }

  NodePtr atom() {
    const Token& t = peek();
    switch (t.kind) {
      case Token::Kind::Number: {
        Token tok = take();
        NodePtr n = make(Node::Kind::Number, tok.col);
        n->value = tok.value;
        return n;
      }
      case Token::Kind::String: {
        Token tok = take();
        return make(Node::Kind::String, tok.col, tok.text);
      }
      case Token::Kind::Name: {
        Token tok = take();
        if (tok.text == "True" || tok.text == "False" || tok.text == "None")
          return make(Node::Kind::Constant, tok.col, tok.text);
        static constexpr std::string_view kKeywords[] = {"and", "or", "if", "else", "lambda", "for", "in", "is"};
        for (std::string_view k : kKeywords)
          if (tok.text == k) fail(tok.col, "'" + tok.text + "' is not supported in expressions");
        return make(Node::Kind::Name, tok.col, tok.text);
      }
      case Token::Kind::Op: {
        if (t.text == "(" || t.text == "[") {
          Token open = take();
          return display(open, open.text == "(" ? ")" : "]", open.text == "(");
        }
        if (t.text == "...") {
          Token tok = take();
          return make(Node::Kind::Ellipsis, tok.col);
        }
        fail(t.col, "unexpected " + describe(t));
      }
      case Token::Kind::End: fail(t.col, "unexpected end of expression");
    }
    fail(t.col, "unexpected " + describe(t));
  }

  std::vector<Token> toks_;
  std::size_t i_ = 0;
  int depth_ = 0;
  int nodes_ = 0;
};

}  // namespace

NodePtr parse(std::string_view source) {
  Parser parser(tokenize(source));
  return parser.parse_all();
}

}  // namespace tensor_inspect::expr
