// JSON (RFC 8259) with byte spans: every value and member keeps its position in the input, so
// emit() copies untouched bytes and rewrites only what changed. Leaves (strings, numbers, true,
// false, null) are keys; objects and arrays are structure. A number or boolean is a String key
// holding its literal text with meta json/literal = 1 (see keyset.hpp); null is ValueType::Null.
#include <memory>
#include <set>
#include <unordered_map>

#include "confcrypt/format.hpp"
#include "format_util.hpp"

namespace confcrypt {

namespace {

constexpr char kHeaderMember[] = "#confcrypt";
constexpr int kMaxDepth = 256;

struct Node {
  enum Kind { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull } kind = kNull;
  size_t begin = 0, end = 0;  // the value's bytes; containers include their brackets
  std::string str;            // kString: decoded
  struct Item {
    std::string name;        // objects: decoded member name
    size_t begin = 0;        // member: its name's opening quote; element: its value
    size_t name_end = 0;     // member: after the name's closing quote
    size_t value_begin = 0;  // the value (after ':' and blanks for members)
    int value = -1;          // node index
  };
  std::vector<Item> items;
  bool container() const { return kind == kObject || kind == kArray; }
};

bool is_json_number(const std::string& s) {
  size_t i = 0, n = s.size();
  auto digits = [&] {
    size_t b = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > b;
  };
  if (i < n && s[i] == '-') ++i;
  if (i < n && s[i] == '0') {
    ++i;
  } else if (!(i < n && s[i] >= '1' && s[i] <= '9') || !digits()) {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

// Length of the UTF-8 sequence at s[i], 0 when it is not well-formed.
size_t utf8_len(const std::string& s, size_t i) {
  auto cont = [&](size_t k) { return k < s.size() && (uint8_t(s[k]) & 0xC0) == 0x80; };
  uint8_t c = uint8_t(s[i]);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    uint8_t c1 = uint8_t(s[i + 1]);
    if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
    if (c == 0xED && c1 >= 0xA0) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    uint8_t c1 = uint8_t(s[i + 1]);
    if (c == 0xF0 && c1 < 0x90) return 0;
    if (c == 0xF4 && c1 >= 0x90) return 0;
    return 4;
  }
  return 0;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

std::string json_string(const std::string& v, const std::string& what) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < v.size();) {
    unsigned char c = static_cast<unsigned char>(v[i]);
    if (c >= 0x80) {
      size_t n = utf8_len(v, i);
      if (!n) throw Error("JSON can only store UTF-8 text; " + what + " is not valid UTF-8");
      out.append(v, i, n);
      i += n;
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += char(c);
        }
    }
    ++i;
  }
  return out + "\"";
}

bool literal_flag(const Key& k) {
  auto it = k.meta.find(kMetaJsonLiteral);
  return it != k.meta.end() && it->second == "1";
}

class Parser {
 public:
  Parser(const std::string& src, const std::string& source, std::vector<Node>& nodes)
      : s_(src), source_(source), nodes_(nodes) {}

  int parse_document() {
    size_t start = 0;
    if (detail::starts_with(s_, detail::kBom)) start = 3;
    pos_ = start;
    ws();
    size_t root_at = pos_;
    int root = value(0);
    if (!nodes_[root].container()) {
      fail(root_at, "the top level must be an object or an array");
    }
    ws();
    if (pos_ != s_.size()) fail(pos_, "unexpected text after the end of the JSON value");
    return root;
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& msg) const {
    size_t line = 1;
    for (size_t i = 0; i < at && i < s_.size(); ++i) line += s_[i] == '\n';
    throw FormatError(source_, line, msg);
  }

  void ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool at_end() const { return pos_ >= s_.size(); }

  int value(int depth) {
    if (depth > kMaxDepth) fail(pos_, "nesting too deep");
    if (at_end()) fail(pos_, "unexpected end of input, expected a value");
    Node n;
    n.begin = pos_;
    char c = s_[pos_];
    if (c == '{' || c == '[') {
      bool obj = c == '{';
      n.kind = obj ? Node::kObject : Node::kArray;
      ++pos_;
      ws();
      std::set<std::string> names;
      char close = obj ? '}' : ']';
      if (!at_end() && s_[pos_] == close) {
        ++pos_;
      } else {
        for (;;) {
          Node::Item item;
          item.begin = pos_;
          if (obj) {
            if (at_end() || s_[pos_] != '"') fail(pos_, "expected a member name in quotes");
            item.name = string_token();
            item.name_end = pos_;
            if (!names.insert(item.name).second) {
              fail(item.begin, "duplicate member \"" + item.name + "\"");
            }
            ws();
            if (at_end() || s_[pos_] != ':') fail(pos_, "expected ':' after a member name");
            ++pos_;
            ws();
          }
          item.value_begin = pos_;
          item.value = value(depth + 1);
          n.items.push_back(std::move(item));
          ws();
          if (at_end())
            fail(pos_, std::string("unexpected end of input, expected ',' or '") + close + "'");
          if (s_[pos_] == ',') {
            ++pos_;
            ws();
            if (!at_end() && s_[pos_] == close) fail(pos_, "trailing comma");
            continue;
          }
          if (s_[pos_] != close) fail(pos_, std::string("expected ',' or '") + close + "'");
          ++pos_;
          break;
        }
      }
    } else if (c == '"') {
      n.kind = Node::kString;
      n.str = string_token();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      n.kind = Node::kNumber;
      size_t b = pos_;
      while (!at_end() && std::string("+-.eE0123456789").find(s_[pos_]) != std::string::npos) {
        ++pos_;
      }
      if (!is_json_number(s_.substr(b, pos_ - b))) fail(b, "malformed number");
    } else if (s_.compare(pos_, 4, "true") == 0) {
      n.kind = Node::kTrue;
      pos_ += 4;
    } else if (s_.compare(pos_, 5, "false") == 0) {
      n.kind = Node::kFalse;
      pos_ += 5;
    } else if (s_.compare(pos_, 4, "null") == 0) {
      n.kind = Node::kNull;
      pos_ += 4;
    } else {
      fail(pos_, std::string("unexpected character '") + c + "'");
    }
    n.end = pos_;
    nodes_.push_back(std::move(n));
    return int(nodes_.size() - 1);
  }

  uint32_t hex4(size_t at) {
    if (at + 4 > s_.size()) fail(at, "truncated \\u escape");
    uint32_t v = 0;
    for (size_t i = at; i < at + 4; ++i) {
      char c = s_[i];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= uint32_t(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= uint32_t(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= uint32_t(c - 'A' + 10);
      } else {
        fail(at, "malformed \\u escape");
      }
    }
    return v;
  }

  std::string string_token() {
    size_t open = pos_++;
    std::string out;
    for (;;) {
      if (at_end()) fail(open, "unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail(pos_, "control character in a string (must be escaped)");
      if (c >= 0x80) {
        size_t n = utf8_len(s_, pos_);
        if (!n) fail(pos_, "invalid UTF-8 in a string");
        out.append(s_, pos_, n);
        pos_ += n;
        continue;
      }
      if (c != '\\') {
        out += char(c);
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= s_.size()) fail(open, "unterminated string");
      char e = s_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = hex4(pos_);
          size_t at = pos_ - 2;
          pos_ += 4;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.compare(pos_, 2, "\\u") != 0) fail(at, "unpaired surrogate in \\u escape");
            uint32_t lo = hex4(pos_ + 2);
            if (lo < 0xDC00 || lo > 0xDFFF) fail(at, "unpaired surrogate in \\u escape");
            pos_ += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail(at, "unpaired surrogate in \\u escape");
          }
          append_utf8(out, cp);
          break;
        }
        default:
          fail(pos_ - 2, std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  const std::string& s_;
  const std::string& source_;
  std::vector<Node>& nodes_;
  size_t pos_ = 0;
};

// Keys that are not in the input, arranged as the subtrees they create.
struct NewTree {
  const Key* leaf = nullptr;
  std::vector<std::pair<std::string, std::unique_ptr<NewTree>>> children;
  NewTree* child(const std::string& name) {
    for (auto& [n, t] : children) {
      if (n == name) return t.get();
    }
    children.emplace_back(name, std::make_unique<NewTree>());
    return children.back().second.get();
  }
};

class JsonDocument : public Document {
 public:
  void parse(const std::string& bytes, const std::string& source);
  static void check_value(const Key& k) {
    if (k.type == ValueType::Binary) {
      throw Error("JSON cannot store a binary value (key '" + k.path +
                  "'): encode it as text first");
    }
    if (k.type == ValueType::String) json_string(k.value, "the value of '" + k.path + "'");
  }
  KeySet& keys() override { return keys_; }
  const KeySet& keys() const override { return keys_; }
  std::optional<std::string> header() const override { return header_; }
  void set_header(std::optional<std::string> text) override {
    detail::check_header_text(text);
    if (text && nodes_[root_].kind != Node::kObject) {
      throw Error("a JSON file whose top level is an array cannot hold the confcrypt header");
    }
    header_ = std::move(text);
  }
  std::string emit() const override;

 private:
  struct EmitState {
    std::unordered_map<std::string, const Key*> current;
    std::map<int, NewTree> additions;  // container node -> keys added below it
  };

  void collect(int node, const std::string& path);
  std::string render(int node, const std::string& path, EmitState& st) const;
  std::string render_scalar(const Key& k) const;
  std::string render_new(const NewTree& t, const std::string& indent) const;
  std::string indent_of(size_t pos) const;
  static std::string after_last_newline(const std::string& ws);

  std::string src_;
  std::string source_;
  std::vector<Node> nodes_;
  int root_ = -1;
  KeySet keys_;
  std::map<std::string, Key> original_;
  std::map<std::string, int> containers_;  // path -> node, for placing new keys
  std::optional<std::string> header_, original_header_;
  int header_item_ = -1;  // index of "#confcrypt" among the root's items
  bool pretty_ = false;
  std::string eol_ = "\n", unit_ = "  ", colon_ = ": ";
};

void JsonDocument::collect(int node, const std::string& path) {
  const Node& n = nodes_[node];
  containers_[path] = node;
  for (size_t i = 0; i < n.items.size(); ++i) {
    const Node::Item& item = n.items[i];
    if (node == root_ && n.kind == Node::kObject && item.name == kHeaderMember) {
      const Node& v = nodes_[item.value];
      if (v.kind != Node::kString) {
        size_t line = 1;
        for (size_t k = 0; k < item.begin; ++k) line += src_[k] == '\n';
        throw FormatError(source_, line, "\"#confcrypt\" must be a string");
      }
      header_item_ = int(i);
      original_header_ = v.str;
      continue;
    }
    std::string seg = n.kind == Node::kObject ? item.name : std::to_string(i);
    std::string p =
        path.empty() && node == root_ ? join_path({seg}) : path + "/" + join_path({seg});
    const Node& v = nodes_[item.value];
    if (v.container()) {
      collect(item.value, p);
      continue;
    }
    Key k;
    k.path = p;
    switch (v.kind) {
      case Node::kString:
        k.value = v.str;
        break;
      case Node::kNull:
        k.type = ValueType::Null;
        break;
      default:
        k.value = src_.substr(v.begin, v.end - v.begin);
        k.meta[kMetaJsonLiteral] = "1";
    }
    original_.emplace(k.path, k);
    keys_.keys().push_back(std::move(k));
  }
}

void JsonDocument::parse(const std::string& bytes, const std::string& source) {
  src_ = bytes;
  Parser parser(src_, source, nodes_);
  root_ = parser.parse_document();
  source_ = source;
  collect(root_, "");
  header_ = original_header_;
  const Node& root = nodes_[root_];
  pretty_ = src_.find('\n', root.begin) < root.end;
  if (src_.find("\r\n") != std::string::npos) eol_ = "\r\n";
  // Indentation unit and member separator: copied from the first place the file shows them.
  for (size_t i = 0; i < src_.size(); ++i) {
    if (src_[i] == '\n' && i + 1 < src_.size() && detail::is_blank(src_[i + 1])) {
      size_t e = detail::skip_blanks(src_, i + 1);
      unit_ = src_.substr(i + 1, e - i - 1);
      break;
    }
  }
  colon_ = pretty_ ? ": " : ":";
  for (const Node& n : nodes_) {
    if (n.kind == Node::kObject && !n.items.empty()) {
      colon_ = src_.substr(n.items[0].name_end, n.items[0].value_begin - n.items[0].name_end);
      break;
    }
  }
}

std::string JsonDocument::indent_of(size_t pos) const {
  size_t line_start = src_.rfind('\n', pos == 0 ? 0 : pos - 1);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  if (pos == 0) line_start = 0;
  size_t e = detail::skip_blanks(src_, line_start);
  return src_.substr(line_start, std::min(e, pos) - line_start);
}

std::string JsonDocument::after_last_newline(const std::string& ws) {
  size_t nl = ws.rfind('\n');
  return nl == std::string::npos ? std::string() : ws.substr(nl + 1);
}

std::string JsonDocument::render_scalar(const Key& k) const {
  switch (k.type) {
    case ValueType::Null:
      return "null";
    case ValueType::Binary:
      throw Error("JSON cannot store a binary value (key '" + k.path +
                  "'): encode it as text first");
    case ValueType::String:
      break;
  }
  if (literal_flag(k) && (is_json_number(k.value) || k.value == "true" || k.value == "false")) {
    return k.value;
  }
  return json_string(k.value, "the value of '" + k.path + "'");
}

std::string JsonDocument::render_new(const NewTree& t, const std::string& indent) const {
  if (t.leaf) return render_scalar(*t.leaf);
  std::string inner = indent + unit_;
  std::string out = "{";
  for (size_t i = 0; i < t.children.size(); ++i) {
    if (i) out += ",";
    if (pretty_) out += eol_ + inner;
    out += json_string(t.children[i].first, "a member name") + colon_ +
           render_new(*t.children[i].second, inner);
  }
  if (pretty_) out += eol_ + indent;
  return out + "}";
}

std::string JsonDocument::render(int node, const std::string& path, EmitState& st) const {
  const Node& n = nodes_[node];
  bool obj = n.kind == Node::kObject;
  bool root = node == root_;
  struct Out {
    int orig = -1;  // index among n.items, -1 for new
    std::string body;
  };
  std::vector<Out> outs;

  auto prefix_of = [&](const Node::Item& item) {
    return src_.substr(item.begin, item.value_begin - item.begin);
  };
  if (root && header_ && header_item_ < 0) {
    outs.push_back({-1, json_string(kHeaderMember, "") + colon_ +
                            json_string(*header_, "the confcrypt header")});
  }
  size_t removed_at = std::string::npos;
  for (size_t i = 0; i < n.items.size(); ++i) {
    const Node::Item& item = n.items[i];
    if (root && int(i) == header_item_) {
      if (!header_) continue;
      const Node& v = nodes_[item.value];
      std::string value = *header_ == *original_header_
                              ? src_.substr(v.begin, v.end - v.begin)
                              : json_string(*header_, "the confcrypt header");
      outs.push_back({int(i), prefix_of(item) + value});
      continue;
    }
    std::string seg = obj ? item.name : std::to_string(i);
    std::string p = root ? join_path({seg}) : path + "/" + join_path({seg});
    const Node& v = nodes_[item.value];
    std::string body;
    if (v.container()) {
      body = render(item.value, p, st);
    } else {
      auto it = st.current.find(p);
      if (it == st.current.end()) {
        if (removed_at == std::string::npos) removed_at = i;
        continue;
      }
      const Key& k = *it->second;
      const Key& o = original_.at(p);
      bool same = k.type == o.type && k.value == o.value && literal_flag(k) == literal_flag(o);
      body = same ? src_.substr(v.begin, v.end - v.begin) : render_scalar(k);
    }
    if (!obj && removed_at != std::string::npos) {
      throw Error("removing '" + path + "/" + std::to_string(removed_at) +
                  "' would renumber the array elements after it; remove from the end");
    }
    outs.push_back({int(i), prefix_of(item) + body});
  }

  // Whitespace before item i when it follows a comma.
  auto lead_of = [&](size_t i) {
    size_t from = i == 0 ? n.begin + 1 : nodes_[n.items[i - 1].value].end;
    std::string pre = src_.substr(from, n.items[i].begin - from);
    size_t comma = pre.find(',');
    return comma == std::string::npos ? pre : pre.substr(comma + 1);
  };
  std::string container_indent = indent_of(n.begin);
  std::string new_lead = n.items.empty()
                             ? (pretty_ ? eol_ + container_indent + unit_ : std::string())
                             : lead_of(n.items.size() - 1);
  std::string new_indent =
      n.items.empty() ? container_indent + unit_ : after_last_newline(new_lead);

  auto add = st.additions.find(node);
  if (add != st.additions.end()) {
    size_t next_index = 0;
    for (const Out& o : outs) next_index += o.orig >= 0;
    for (const auto& [name, tree] : add->second.children) {
      std::string body;
      if (obj) {
        body = json_string(name, "a member name") + colon_;
      } else if (name != std::to_string(next_index++)) {
        throw Error("cannot add '" + path + "/" + name + "': the array has " +
                    std::to_string(next_index - 1) + " elements; add them in order");
      }
      outs.push_back({-1, body + render_new(*tree, new_indent)});
    }
  }

  std::string out(1, src_[n.begin]);
  if (outs.empty()) {
    if (n.items.empty()) return src_.substr(n.begin, n.end - n.begin);
    size_t last_end = nodes_[n.items.back().value].end;
    return out + src_.substr(last_end, n.end - last_end);
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const Out& o = outs[k];
    if (k == 0) {
      out += o.orig >= 0 ? lead_of(size_t(o.orig)) : (n.items.empty() ? new_lead : lead_of(0));
    } else if (o.orig > 0 && outs[k - 1].orig == o.orig - 1) {
      size_t from = nodes_[n.items[size_t(o.orig) - 1].value].end;
      out += src_.substr(from, n.items[size_t(o.orig)].begin - from);
    } else {
      out += ",";
      out += o.orig >= 0 ? lead_of(size_t(o.orig)) : new_lead;
    }
    out += o.body;
  }
  if (n.items.empty()) {
    out += pretty_ ? eol_ + container_indent : "";
  } else {
    size_t last_end = nodes_[n.items.back().value].end;
    out += src_.substr(last_end, n.end - 1 - last_end);
  }
  return out + src_[n.end - 1];
}

std::string JsonDocument::emit() const {
  EmitState st;
  for (const Key& k : keys_.keys()) st.current.emplace(k.path, &k);
  for (const Key& k : keys_.keys()) {
    if (original_.count(k.path)) continue;
    std::vector<std::string> segs = split_path(k.path);
    int node = root_;
    size_t i = 0;
    while (i < segs.size()) {
      const Node& n = nodes_[node];
      int found = -1;
      for (size_t j = 0; j < n.items.size(); ++j) {
        bool match =
            n.kind == Node::kObject ? n.items[j].name == segs[i] : std::to_string(j) == segs[i];
        if (match && !(node == root_ && int(j) == header_item_)) found = n.items[j].value;
        if (match && node == root_ && int(j) == header_item_) {
          throw Error("the key name \"#confcrypt\" is reserved at the top level");
        }
      }
      if (found < 0) break;
      if (!nodes_[found].container()) {
        throw Error("cannot add '" + k.path + "': '" +
                    join_path(std::vector<std::string>(segs.begin(), segs.begin() + i + 1)) +
                    "' is a value, not an object");
      }
      node = found;
      ++i;
    }
    if (i == segs.size()) {
      throw Error("'" + k.path + "' is an object or array in the file, not a value");
    }
    if (node == root_ && segs[0] == kHeaderMember && nodes_[root_].kind == Node::kObject) {
      throw Error("the key name \"#confcrypt\" is reserved at the top level");
    }
    NewTree* t = &st.additions[node];
    for (size_t j = i; j < segs.size(); ++j) {
      if (t->leaf) {
        throw Error("cannot add '" + k.path + "': a value is being added at '" + t->leaf->path +
                    "'");
      }
      t = t->child(segs[j]);
    }
    if (t->leaf || !t->children.empty()) {
      throw Error("cannot add '" + k.path + "': it is both a value and an object");
    }
    t->leaf = &k;
  }
  const Node& root = nodes_[root_];
  return src_.substr(0, root.begin) + render(root_, "", st) + src_.substr(root.end);
}

}  // namespace

std::unique_ptr<Format> make_json_format() {
  return std::make_unique<detail::DocumentFormat<JsonDocument>>("json");
}

}  // namespace confcrypt
