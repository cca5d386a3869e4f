// dotenv: "NAME=value" lines (optionally "export NAME=value"), '#' comments. Values are unquoted
// (up to a " #" comment, surrounding blanks dropped), single-quoted (literal, may span lines) or
// double-quoted (escapes \n \r \t \" \\ \' \$, may span lines).
#include <memory>

#include "confcrypt/format.hpp"
#include "format_util.hpp"

namespace confcrypt {

namespace {

using detail::Entry;

bool name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }
bool valid_name(const std::string& n) {
  if (n.empty() || !name_start(n[0])) return false;
  for (char c : n) {
    if (!name_char(c)) return false;
  }
  return true;
}

// Characters that mean nothing to dotenv parsers or shells, so a value made of them needs no
// quotes (the Base64 alphabet and the usual token punctuation are among them).
bool plain_char(char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  return std::string("_-./:@%+,=^").find(c) != std::string::npos;
}

std::string render_value(const Key& key) {
  if (key.type == ValueType::Null) {
    throw Error("dotenv cannot store a null value (key '" + key.path + "')");
  }
  if (key.type == ValueType::Binary) {
    throw Error("dotenv cannot store a binary value (key '" + key.path +
                "'): encode it as text first");
  }
  const std::string& v = key.value;
  if (v.find('\0') != std::string::npos) {
    throw Error("dotenv cannot store a NUL byte (key '" + key.path + "')");
  }
  bool plain = true;
  for (char c : v) plain = plain && plain_char(c);
  if (plain) return v;
  // Single quotes are literal for every dotenv reader and for the shell: preferred.
  if (v.find_first_of("'\\\r\n") == std::string::npos) return "'" + v + "'";
  std::string out = "\"";
  for (char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
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
      default:
        out += c;
    }
  }
  return out + "\"";
}

class DotenvDocument : public detail::LineDocument {
 public:
  void parse(const std::string& input, const std::string& source);
  static void check_value(const Key& key) { render_value(key); }

 protected:
  std::string render_changed(const Entry& e, const Key& key) const override {
    return e.prefix + render_value(key) + e.suffix;
  }

  std::pair<std::string, std::string> render_new(const Key& key) const override {
    if (!valid_name(key.path)) {
      throw Error("'" + key.path + "' is not a valid dotenv name ([A-Za-z_][A-Za-z0-9_.-]*)");
    }
    return {"", export_ + key.path + "=" + render_value(key)};
  }

  size_t empty_group_anchor(const std::string&) const override { return entries_.size(); }
  std::string section_line(const std::string&) const override { return ""; }

 private:
  std::string export_;  // "export " when the file's first key uses it
};

void DotenvDocument::parse(const std::string& input, const std::string& source) {
  std::string bytes = input;
  if (detail::starts_with(bytes, detail::kBom)) {
    bom_ = true;
    bytes.erase(0, 3);
  }
  no_final_newline_ = detail::lacks_final_newline(bytes);
  eol_ = detail::default_eol(bytes);
  std::vector<detail::PhysLine> lines = detail::split_lines(bytes);
  bool first_key = true;
  std::unordered_map<std::string, size_t> key_line;
  detail::MarkerLines markers;

  for (size_t li = 0; li < lines.size(); ++li) {
    const detail::PhysLine& pl = lines[li];
    Entry e;
    e.text = pl.text;
    e.eol = pl.eol;
    std::string tt = detail::trim(pl.text);
    bool is_key = !tt.empty() && tt[0] != '#';
    const detail::MarkerLines::Kind marker =
        markers.take(pl.text, tt, is_key, pl.number, entries_.size(), source);
    if (marker == detail::MarkerLines::kHeader) {
      e.kind = Entry::kHeader;
    } else if (marker == detail::MarkerLines::kMeta) {
      e.kind = Entry::kMeta;
    } else if (tt.empty()) {
      e.kind = Entry::kRaw;
    } else if (tt[0] == '#') {
      e.kind = Entry::kRaw;
    } else {
      std::string t = pl.text;
      size_t p = detail::skip_blanks(t, 0);
      size_t key_begin = p;
      if (t.compare(p, 6, "export") == 0 && p + 6 < t.size() && detail::is_blank(t[p + 6])) {
        p = detail::skip_blanks(t, p + 6);
      }
      size_t name_begin = p;
      while (p < t.size() && name_char(t[p])) ++p;
      std::string name = t.substr(name_begin, p - name_begin);
      if (!valid_name(name)) {
        throw FormatError(source, pl.number, "expected NAME=value or a comment");
      }
      p = detail::skip_blanks(t, p);
      if (p >= t.size() || t[p] != '=') {
        throw FormatError(source, pl.number, "expected '=' after " + name);
      }
      size_t vb = detail::skip_blanks(t, p + 1);
      size_t ve;
      std::string value;
      if (vb < t.size() && (t[vb] == '"' || t[vb] == '\'')) {
        char quote = t[vb];
        size_t q = vb + 1;
        for (;;) {
          if (q >= t.size()) {
            // The value goes on: join the next physical line, keeping the line break in it.
            if (li + 1 >= lines.size()) {
              throw FormatError(source, pl.number, "unterminated quoted value of " + name);
            }
            value += lines[li].eol;
            t += lines[li].eol + lines[li + 1].text;
            e.eol = lines[li + 1].eol;
            ++li;
            q += lines[li - 1].eol.size();
            continue;
          }
          char c = t[q];
          if (c == quote) break;
          if (quote == '"' && c == '\\' && q + 1 < t.size()) {
            char n = t[q + 1];
            switch (n) {
              case 'n':
                value += '\n';
                break;
              case 'r':
                value += '\r';
                break;
              case 't':
                value += '\t';
                break;
              case '"':
              case '\\':
              case '\'':
              case '$':
                value += n;
                break;
              default:
                value += '\\';
                value += n;
            }
            q += 2;
            continue;
          }
          value += c;
          ++q;
        }
        ve = q + 1;
        size_t rest = detail::skip_blanks(t, ve);
        if (rest < t.size() && t[rest] != '#') {
          throw FormatError(source, lines[li].number,
                            "unexpected text after the closing quote of " + name);
        }
      } else {
        ve = t.size();
        for (size_t c = vb; c < t.size(); ++c) {
          if (t[c] == '#' && c > 0 && detail::is_blank(t[c - 1])) {
            ve = c;
            break;
          }
        }
        while (ve > vb && detail::is_blank(t[ve - 1])) --ve;
        value = t.substr(vb, ve - vb);
      }
      auto [it, fresh] = key_line.emplace(name, pl.number);
      if (!fresh) {
        throw FormatError(
            source, pl.number,
            "duplicate key '" + name + "' (first on line " + std::to_string(it->second) + ")");
      }
      if (first_key) {
        export_ = name_begin > key_begin ? t.substr(key_begin, name_begin - key_begin) : "";
        first_key = false;
      }
      Key k;
      k.path = name;
      k.value = std::move(value);
      const size_t meta_begin = markers.meta_begin(entries_.size());
      k.meta = markers.take_meta();
      e.kind = Entry::kKey;
      e.text = t;
      e.path = name;
      e.prefix = t.substr(0, vb);
      e.suffix = t.substr(ve);
      e.meta_begin = meta_begin;
      original_.emplace(k.path, k);
      keys_.keys().push_back(std::move(k));
    }
    entries_.push_back(std::move(e));
  }
  markers.finish(source);
  original_header_ = markers.header();
  header_ = original_header_;
}

}  // namespace

std::unique_ptr<Format> make_dotenv_format() {
  return std::make_unique<detail::DocumentFormat<DotenvDocument>>("dotenv");
}

}  // namespace confcrypt
