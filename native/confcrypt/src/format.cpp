// The format registry and the line model shared by INI and dotenv.
#include "confcrypt/format.hpp"

#include <algorithm>
#include <unordered_map>

#include "format_util.hpp"

namespace confcrypt {

std::unique_ptr<Format> make_ini_format();
std::unique_ptr<Format> make_json_format();
std::unique_ptr<Format> make_dotenv_format();

std::unique_ptr<Format> format_by_name(const std::string& name) {
  if (name == "ini") return make_ini_format();
  if (name == "json") return make_json_format();
  if (name == "dotenv" || name == "env") return make_dotenv_format();
  throw Error("unknown format '" + name + "' (known: ini, json, dotenv)");
}

std::unique_ptr<Format> format_for_path(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  auto ends_with = [&](const char* suffix) {
    std::string s(suffix);
    return base.size() >= s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".ini") || ends_with(".conf")) return make_ini_format();
  if (ends_with(".json")) return make_json_format();
  if (ends_with(".env") || base == ".env" || base.compare(0, 5, ".env.") == 0) {
    return make_dotenv_format();
  }
  throw Error("cannot tell the format of '" + path + "' from its name (use ini, json or dotenv)");
}

namespace detail {

std::vector<PhysLine> split_lines(const std::string& bytes) {
  std::vector<PhysLine> lines;
  size_t start = 0;
  size_t number = 1;
  while (start < bytes.size()) {
    size_t nl = bytes.find('\n', start);
    PhysLine l;
    l.number = number++;
    if (nl == std::string::npos) {
      l.text = bytes.substr(start);
      lines.push_back(std::move(l));
      break;
    }
    if (nl > start && bytes[nl - 1] == '\r') {
      l.text = bytes.substr(start, nl - 1 - start);
      l.eol = "\r\n";
    } else {
      l.text = bytes.substr(start, nl - start);
      l.eol = "\n";
    }
    lines.push_back(std::move(l));
    start = nl + 1;
  }
  return lines;
}

std::string default_eol(const std::string& bytes) {
  size_t nl = bytes.find('\n');
  return nl != std::string::npos && nl > 0 && bytes[nl - 1] == '\r' ? "\r\n" : "\n";
}

bool lacks_final_newline(const std::string& bytes) {
  return !bytes.empty() && bytes.back() != '\n';
}

std::string join_lines(std::vector<Line> lines, bool no_final_newline, const std::string& eol) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool last = i + 1 == lines.size();
    std::string e = lines[i].eol;
    if (last && no_final_newline) {
      e.clear();
    } else if (e.empty()) {
      e = eol;
    }
    out += lines[i].text;
    out += e;
  }
  return out;
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && is_blank(s[b])) ++b;
  while (e > b && is_blank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

size_t skip_blanks(const std::string& s, size_t i) {
  while (i < s.size() && is_blank(s[i])) ++i;
  return i;
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.compare(0, std::char_traits<char>::length(prefix), prefix) == 0;
}

bool starts_with_tag(const std::string& s, const char* tag) {
  size_t n = std::char_traits<char>::length(tag);
  return starts_with(s, tag) && (s.size() == n || is_blank(s[n]));
}

std::map<std::string, std::string> persisted_meta(const std::map<std::string, std::string>& meta) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : meta) {
    if (starts_with(name, "json/") || starts_with(name, "internal/")) continue;
    out.emplace(name, value);
  }
  return out;
}

std::pair<std::string, std::string> parse_meta_line(const std::string& trimmed,
                                                    const std::string& source, size_t line) {
  const size_t start = std::char_traits<char>::length(kMetaTag);
  const size_t eq = trimmed.find('=', start);
  if (eq == std::string::npos) {
    throw FormatError(source, line, "malformed #@META line (expected '#@META name = value')");
  }
  std::string name = trim(trimmed.substr(start, eq - start));
  if (name.empty()) throw FormatError(source, line, "#@META line without a name");
  return {std::move(name), trim(trimmed.substr(eq + 1))};
}

std::vector<std::string> render_meta(const std::map<std::string, std::string>& meta,
                                     const std::string& path) {
  std::vector<std::string> out;
  for (const auto& [name, value] : persisted_meta(meta)) {
    bool bad_name =
        name.empty() || trim(name) != name || name.find_first_of("=\r\n") != std::string::npos;
    bool bad_value = trim(value) != value || value.find_first_of("\r\n") != std::string::npos;
    if (bad_name || bad_value) {
      throw Error("metadata '" + name + "' of key '" + path +
                  "' cannot be stored as a #@META line");
    }
    out.push_back(std::string(kMetaTag) + " " + name + " = " + value);
  }
  return out;
}

void check_header_text(const std::optional<std::string>& text) {
  if (text && text->find_first_of("\r\n") != std::string::npos) {
    throw Error("the confcrypt header must be a single line");
  }
}

void LineDocument::set_header(std::optional<std::string> text) {
  check_header_text(text);
  if (text && trim(*text) != *text) {
    throw Error("the confcrypt header must not start or end with blanks");
  }
  header_ = std::move(text);
}

std::string LineDocument::emit() const {
  std::unordered_map<std::string, const Key*> current;
  for (const Key& k : keys_.keys()) current.emplace(k.path, &k);

  // New keys by group, groups in order of first appearance.
  std::vector<std::string> group_order;
  std::map<std::string, std::vector<std::vector<std::string>>> added;  // group -> line blocks
  for (const Key& k : keys_.keys()) {
    if (original_.count(k.path)) continue;
    auto [group, line] = render_new(k);
    std::vector<std::string> block = render_meta(k.meta, k.path);
    block.push_back(std::move(line));
    if (!added.count(group)) group_order.push_back(group);
    added[group].push_back(std::move(block));
  }

  // Where each group's new keys go: after its last key, else as the format decides.
  std::map<std::string, size_t> last_key;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].kind == Entry::kKey) last_key[entries_[i].group] = i;
  }
  const size_t npos = std::string::npos;
  std::multimap<size_t, std::string> before;  // entry index -> groups inserted before it
  std::vector<std::string> at_end_new_section;
  for (const std::string& g : group_order) {
    auto it = last_key.find(g);
    size_t anchor = it != last_key.end() ? it->second + 1 : empty_group_anchor(g);
    if (anchor == npos) {
      at_end_new_section.push_back(g);
    } else {
      before.emplace(anchor, g);
    }
  }

  std::vector<Line> out;
  auto push_group = [&](const std::string& g) {
    for (const auto& block : added.at(g)) {
      for (const auto& line : block) out.push_back({line, eol_});
    }
  };

  if (header_ && !original_header_) {
    out.push_back({std::string(kHeaderTag) + " " + *header_, eol_});
  }

  for (size_t i = 0; i <= entries_.size(); ++i) {
    auto range = before.equal_range(i);
    for (auto it = range.first; it != range.second; ++it) push_group(it->second);
    if (i == entries_.size()) break;
    const Entry& e = entries_[i];
    std::string text = e.text;
    switch (e.kind) {
      case Entry::kHeader:
        if (header_) {
          if (*header_ != *original_header_) text = std::string(kHeaderTag) + " " + *header_;
          out.push_back({text, e.eol});
        }
        break;
      case Entry::kMeta:
        break;  // written with its key
      case Entry::kKey: {
        auto it = current.find(e.path);
        if (it == current.end()) break;
        const Key& k = *it->second;
        const Key& o = original_.at(e.path);
        if (persisted_meta(k.meta) == persisted_meta(o.meta)) {
          for (size_t m = e.meta_begin; m < i; ++m) {
            out.push_back({entries_[m].text, entries_[m].eol});
          }
        } else {
          for (auto& line : render_meta(k.meta, k.path)) out.push_back({line, eol_});
        }
        if (k.type == o.type && k.value == o.value) {
          out.push_back({text, e.eol});
        } else {
          out.push_back({render_changed(e, k), e.eol});
        }
        break;
      }
      default:
        out.push_back({text, e.eol});
    }
  }

  for (const std::string& g : at_end_new_section) {
    if (!out.empty() && !trim(out.back().text).empty()) out.push_back({"", eol_});
    out.push_back({section_line(g), eol_});
    push_group(g);
  }
  // A byte-order mark stays the first bytes of the file, whatever line comes first now.
  return (bom_ ? std::string(kBom) : std::string()) +
         join_lines(std::move(out), no_final_newline_, eol_);
}

MarkerLines::Kind MarkerLines::take(const std::string& raw, const std::string& trimmed, bool is_key,
                                    size_t line, size_t entry_index, const std::string& source) {
  const bool is_meta = starts_with_tag(trimmed, kMetaTag);
  if (!pending_.empty() && !is_meta && !is_key)
    throw FormatError(source, pending_line_, "#@META line is not directly followed by a key");
  if (trimmed.empty()) return kOther;
  if (starts_with_tag(trimmed, kHeaderTag)) {
    if (header_) throw FormatError(source, line, "second #@CONFCRYPT line");
    if (line != 1) throw FormatError(source, line, "the #@CONFCRYPT line must be the first line");
    const std::string text = trimmed.substr(sizeof(kHeaderTag) - 1);
    if (raw != trimmed || text.size() < 2 || text[0] != ' ' || text[1] == ' ') {
      throw FormatError(source, line,
                        "the #@CONFCRYPT line must be exactly '#@CONFCRYPT <text>' (no other "
                        "blanks)");
    }
    header_ = text.substr(1);
    return kHeader;
  }
  if (!is_meta) return kOther;
  auto [name, value] = parse_meta_line(trimmed, source, line);
  if (pending_.empty()) pending_begin_ = entry_index;
  pending_line_ = line;
  if (!pending_.emplace(name, value).second)
    throw FormatError(source, line, "metadata '" + name + "' given twice");
  return kMeta;
}

std::map<std::string, std::string> MarkerLines::take_meta() {
  std::map<std::string, std::string> out = std::move(pending_);
  pending_.clear();
  return out;
}

void MarkerLines::finish(const std::string& source) const {
  if (!pending_.empty())
    throw FormatError(source, pending_line_, "#@META line is not directly followed by a key");
}

}  // namespace detail

}  // namespace confcrypt
