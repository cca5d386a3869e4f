// Internal to the storage formats: the line model INI and dotenv share.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "confcrypt/format.hpp"
#include "confcrypt/keyset.hpp"

namespace confcrypt {
namespace detail {

inline constexpr char kHeaderTag[] = "#@CONFCRYPT";
inline constexpr char kMetaTag[] = "#@META";
inline constexpr char kBom[] = "\xEF\xBB\xBF";

// One output line: its text (no line ending; a multi-line dotenv value keeps its inner line
// breaks) and the line ending that followed it in the input ("" for a last line without one).
struct Line {
  std::string text;
  std::string eol;
};

struct PhysLine {
  std::string text;
  std::string eol;
  size_t number;  // 1-based
};

std::vector<PhysLine> split_lines(const std::string& bytes);
// "\r\n" when the first line ending of the input is CRLF, else "\n".
std::string default_eol(const std::string& bytes);
bool lacks_final_newline(const std::string& bytes);
// Joins lines; every line but the last gets a line ending, the last one only if the input had one.
std::string join_lines(std::vector<Line> lines, bool no_final_newline, const std::string& eol);

bool is_blank(char c);
std::string trim(const std::string& s);
size_t skip_blanks(const std::string& s, size_t i);
bool starts_with(const std::string& s, const char* prefix);
// `s` starts with `tag` followed by a blank or nothing.
bool starts_with_tag(const std::string& s, const char* tag);

// Metadata a line format stores as "#@META name = value" lines.
std::map<std::string, std::string> persisted_meta(const std::map<std::string, std::string>& meta);
// "#@META name = value" -> (name, value); throws FormatError.
std::pair<std::string, std::string> parse_meta_line(const std::string& trimmed,
                                                    const std::string& source, size_t line);
// The meta lines for `meta` (persisted entries only); throws Error for unstorable entries.
std::vector<std::string> render_meta(const std::map<std::string, std::string>& meta,
                                     const std::string& path);
void check_header_text(const std::optional<std::string>& text);

// The part of INI and dotenv that is the same: a file is a list of entries (raw lines, the header
// line, meta lines, key lines, sections); emit() keeps every entry's bytes unless its key changed.
struct Entry {
  enum Kind { kRaw, kHeader, kMeta, kKey, kSection } kind = kRaw;
  std::string text;  // without the final line ending
  std::string eol;
  // kKey: the key's path and its text split around the value token.
  std::string path;
  std::string prefix, suffix;
  size_t meta_begin = 0;  // kKey: its meta entries are [meta_begin, this index)
  // kKey and kSection: the group (INI section name; "" for keys outside any section / dotenv).
  std::string group;
};

class LineDocument : public Document {
 public:
  KeySet& keys() override { return keys_; }
  const KeySet& keys() const override { return keys_; }
  std::optional<std::string> header() const override { return header_; }
  void set_header(std::optional<std::string> text) override;
  std::string emit() const override;

 protected:
  // Text of a changed key's line (the entry holds the original prefix and suffix).
  virtual std::string render_changed(const Entry& entry, const Key& key) const = 0;
  // Group and line text of a key that was not in the input.
  virtual std::pair<std::string, std::string> render_new(const Key& key) const = 0;
  // Where the new keys of a group go when no key of the group exists: the index of the entry they
  // are inserted BEFORE, or entries_.size() for the end. For a group with no section at all,
  // return npos: the group is created at the end with section_line().
  virtual size_t empty_group_anchor(const std::string& group) const = 0;
  virtual std::string section_line(const std::string& group) const = 0;

  KeySet keys_;
  std::optional<std::string> header_;
  std::optional<std::string> original_header_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, Key>
      original_;  // path -> key as parsed (looked up, never walked)
  bool no_final_newline_ = false;
  bool bom_ = false;  // the input started with a UTF-8 byte-order mark (not part of any entry)
  std::string eol_ = "\n";
};

// The marker lines INI and dotenv share: one "#@CONFCRYPT <text>" header line, and "#@META name =
// value" lines that belong to the key directly below them.
class MarkerLines {
 public:
  enum Kind { kHeader, kMeta, kOther };
  // Classifies one line (`raw`, and `trimmed` without its blanks; `is_key`: the format reads it
  // as a key line) and keeps what a marker line says. Throws FormatError for #@META lines not
  // followed by a key, a header that is not the first line or not exactly "#@CONFCRYPT <text>"
  // (docs/confcrypt.md, "The header"), a second header line, or a metadata name given twice.
  Kind take(const std::string& raw, const std::string& trimmed, bool is_key, size_t line,
            size_t entry_index, const std::string& source);
  // For a key line: the metadata above it (moved out), and the index of the entry where its
  // #@META lines begin (`entry_index`, the key's own, when it has none).
  std::map<std::string, std::string> take_meta();
  size_t meta_begin(size_t entry_index) const {
    return pending_.empty() ? entry_index : pending_begin_;
  }
  // At the end of the file: throws when #@META lines are left without a key.
  void finish(const std::string& source) const;
  const std::optional<std::string>& header() const { return header_; }

 private:
  std::map<std::string, std::string> pending_;
  size_t pending_begin_ = 0, pending_line_ = 0;
  std::optional<std::string> header_;
};

// A format is its name and its document type: Doc has a default constructor and
// parse(bytes, source).
template <typename Doc>
class DocumentFormat : public Format {
 public:
  explicit DocumentFormat(const char* name) : name_(name) {}
  std::string name() const override { return name_; }
  std::unique_ptr<Document> parse(const std::string& bytes,
                                  const std::string& source = "") const override {
    auto doc = std::make_unique<Doc>();
    doc->parse(bytes, source);
    return doc;
  }
  void check_value(const Key& key) const override { Doc::check_value(key); }

 private:
  const char* name_;
};

}  // namespace detail
}  // namespace confcrypt
