// INI: "[section]" lines, "name = value" lines, comments starting with '#' or ';'. Values are
// stored as they are (no quoting, no escapes): everything after '=' minus surrounding blanks.
#include <memory>

#include "confcrypt/format.hpp"
#include "format_util.hpp"

namespace confcrypt {

namespace {

using detail::Entry;

bool is_comment(const std::string& trimmed) {
  return !trimmed.empty() && (trimmed[0] == '#' || trimmed[0] == ';');
}

void check_ini_value(const Key& key) {
  if (key.type == ValueType::Null) {
    throw Error("INI cannot store a null value (key '" + key.path + "')");
  }
  if (key.type == ValueType::Binary) {
    throw Error("INI cannot store a binary value (key '" + key.path +
                "'): encode it as text first");
  }
  const std::string& v = key.value;
  if (v.find_first_of(std::string("\r\n\0", 3)) != std::string::npos) {
    throw Error("INI cannot store a line break or NUL byte in a value (key '" + key.path + "')");
  }
  if (detail::trim(v) != v) {
    throw Error("INI cannot store leading or trailing blanks in a value (key '" + key.path + "')");
  }
}

class IniDocument : public detail::LineDocument {
 public:
  void parse(const std::string& input, const std::string& source);
  static void check_value(const Key& key) { check_ini_value(key); }

 protected:
  std::string render_changed(const Entry& e, const Key& key) const override {
    check_ini_value(key);
    std::string prefix = e.prefix;
    const Key& orig = original_.at(e.path);
    // "name =" that gets a value reads better as "name = value" when the file spaces its '='.
    if (orig.value.empty() && !key.value.empty() && prefix.size() >= 2 && prefix.back() == '=' &&
        prefix[prefix.size() - 2] == ' ') {
      prefix += ' ';
    }
    return prefix + key.value + e.suffix;
  }

  std::pair<std::string, std::string> render_new(const Key& key) const override {
    std::vector<std::string> segs = split_path(key.path);
    if (segs.size() > 2) {
      throw Error("INI key '" + key.path + "' has more than two levels (section/name)");
    }
    std::string group = segs.size() == 2 ? segs[0] : "";
    const std::string& name = segs.back();
    if (segs.size() == 2 && (group.empty() || detail::trim(group) != group ||
                             group.find_first_of("\r\n") != std::string::npos)) {
      throw Error("INI cannot store the section name of key '" + key.path + "'");
    }
    if (name.empty() || detail::trim(name) != name ||
        name.find_first_of(std::string("=\r\n\0", 4)) != std::string::npos || name[0] == '#' ||
        name[0] == ';' || name[0] == '[') {
      throw Error("INI cannot store the key name of '" + key.path + "'");
    }
    check_value(key);
    std::string line = key.value.empty() ? name + detail::trim(sep_) : name + sep_ + key.value;
    return {group, line};
  }

  size_t empty_group_anchor(const std::string& group) const override {
    if (group.empty()) {
      // Keys outside any section go before the first section, and before the comment lines
      // directly above it (they describe the section).
      for (size_t i = 0; i < entries_.size(); ++i) {
        if (entries_[i].kind != Entry::kSection) continue;
        while (i > 0 && entries_[i - 1].kind == Entry::kRaw &&
               is_comment(detail::trim(entries_[i - 1].text))) {
          --i;
        }
        return i;
      }
      return entries_.size();
    }
    size_t anchor = std::string::npos;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].kind == Entry::kSection && entries_[i].group == group) anchor = i + 1;
    }
    return anchor;
  }

  std::string section_line(const std::string& group) const override { return "[" + group + "]"; }

 private:
  std::string sep_ = " = ";
};

void IniDocument::parse(const std::string& input, const std::string& source) {
  std::string bytes = input;
  if (detail::starts_with(bytes, detail::kBom)) {
    bom_ = true;
    bytes.erase(0, 3);
  }
  no_final_newline_ = detail::lacks_final_newline(bytes);
  eol_ = detail::default_eol(bytes);
  std::map<std::string, size_t> sep_count;  // how the file writes "name = value", by frequency
  std::vector<std::string> sep_order;
  bool in_section = false;
  std::string section;
  std::unordered_map<std::string, size_t> key_line;  // path -> line number, for duplicate messages
  detail::MarkerLines markers;

  for (detail::PhysLine& pl : detail::split_lines(bytes)) {
    Entry e;
    e.text = std::move(pl.text);  // the entry keeps the line; t reads it until e is stored
    e.eol = std::move(pl.eol);
    const std::string& t = e.text;
    std::string tt = detail::trim(t);
    bool is_key = !tt.empty() && !is_comment(tt) && tt[0] != '[';
    const detail::MarkerLines::Kind marker =
        markers.take(t, tt, is_key, pl.number, entries_.size(), source);
    if (marker == detail::MarkerLines::kHeader) {
      e.kind = Entry::kHeader;
    } else if (marker == detail::MarkerLines::kMeta) {
      e.kind = Entry::kMeta;
    } else if (tt.empty()) {
      e.kind = Entry::kRaw;
    } else if (is_comment(tt)) {
      e.kind = Entry::kRaw;
    } else if (tt[0] == '[') {
      if (tt.back() != ']') throw FormatError(source, pl.number, "section header lacks ']'");
      section = detail::trim(tt.substr(1, tt.size() - 2));
      if (section.empty()) throw FormatError(source, pl.number, "empty section name");
      in_section = true;
      e.kind = Entry::kSection;
      e.group = section;
    } else {
      size_t eq = t.find('=');
      if (eq == std::string::npos) {
        throw FormatError(source, pl.number, "expected 'name = value', '[section]' or a comment");
      }
      std::string name = detail::trim(t.substr(0, eq));
      if (name.empty()) throw FormatError(source, pl.number, "key without a name");
      size_t vb = detail::skip_blanks(t, eq + 1);
      size_t ve = t.size();
      while (ve > vb && detail::is_blank(t[ve - 1])) --ve;
      Key k;
      k.path = in_section ? join_path({section, name}) : join_path({name});
      k.value = t.substr(vb, ve - vb);
      const size_t meta_begin = markers.meta_begin(entries_.size());
      k.meta = markers.take_meta();
      auto [it, fresh] = key_line.emplace(k.path, pl.number);
      if (!fresh) {
        throw FormatError(
            source, pl.number,
            "duplicate key '" + k.path + "' (first on line " + std::to_string(it->second) + ")");
      }
      e.kind = Entry::kKey;
      e.path = k.path;
      e.prefix = t.substr(0, vb);
      e.suffix = t.substr(ve);
      e.meta_begin = meta_begin;
      e.group = in_section ? section : "";
      if (vb < ve) {
        size_t name_end = t.find_last_not_of(" \t", eq - 1) + 1;
        std::string sep = t.substr(name_end, vb - name_end);
        if (sep_count[sep]++ == 0) sep_order.push_back(sep);
      }
      original_.emplace(k.path, k);
      keys_.keys().push_back(std::move(k));
    }
    entries_.push_back(std::move(e));
  }
  markers.finish(source);
  original_header_ = markers.header();
  // New keys are written the way most of the file's keys are (the first such way on a tie).
  size_t best = 0;
  for (const std::string& sep : sep_order) {
    if (sep_count[sep] > best) {
      best = sep_count[sep];
      sep_ = sep;
    }
  }
  header_ = original_header_;
}

}  // namespace

std::unique_ptr<Format> make_ini_format() {
  return std::make_unique<detail::DocumentFormat<IniDocument>>("ini");
}

}  // namespace confcrypt
