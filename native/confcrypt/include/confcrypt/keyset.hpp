// The key set: what every storage format produces and every filter transforms (the thesis's
// architecture: format -> key set -> filters). Also the error types every confcrypt layer throws.
#pragma once

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace confcrypt {

// Every confcrypt failure is an Error (or a subclass), with a message meant for the user.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Malformed input to a storage format. what() is "source:line: message" ("line N: message" when
// the source has no name); line() is 1-based, 0 when the error is not tied to a line.
struct FormatError : Error {
  explicit FormatError(const std::string& message) : Error(message) {}
  FormatError(const std::string& source, size_t line, const std::string& message);
  size_t line() const { return line_; }

 private:
  size_t line_ = 0;
};

// The thesis's type flags (they are also the first byte of its encrypted header block).
enum class ValueType { Binary = 0, String = 1, Null = 2 };

// Metadata names with a meaning to the formats.
// Marks a value for per-value encryption; INI and dotenv keep it as "#@META crypto/encrypt = 1"
// directly above the key.
inline constexpr char kMetaEncrypt[] = "crypto/encrypt";
// JSON only: "1" when the value was a bare literal (number, true, false) rather than a string.
// The value then holds the literal's text with ValueType::String; a changed value is written
// bare again only while this flag is set AND the new value is itself a valid JSON number or
// true/false, so a number that became an encrypted token is written as a string.
inline constexpr char kMetaJsonLiteral[] = "json/literal";

struct Key {
  // Full path. INI "section/name" (no section: "name"); JSON "a/b/0/c" (object members and array
  // indices); dotenv "NAME". Segments are joined by '/'; a '~' or '/' inside a segment (a section,
  // key or member name) is written "~0" / "~1" as in JSON Pointer, so paths are unambiguous.
  std::string path;
  ValueType type = ValueType::String;
  std::string value;                        // bytes: stored form or plaintext, see the filters
  std::map<std::string, std::string> meta;  // e.g. kMetaEncrypt -> "1"
};

// Ordered keys, unique by path.
class KeySet {
 public:
  std::vector<Key>& keys() { return keys_; }
  const std::vector<Key>& keys() const { return keys_; }
  size_t size() const { return keys_.size(); }
  Key* find(const std::string& path);
  const Key* find(const std::string& path) const;
  // Sets value and type of an existing key (its meta is kept) or appends a new key.
  Key& set(const std::string& path, std::string value, ValueType type = ValueType::String);
  // Appends a key; throws Error if its path is already present.
  Key& add(Key key);
  // False when there was no such key.
  bool remove(const std::string& path);

 private:
  std::vector<Key> keys_;
};

// Path segments <-> path, with the ~0 / ~1 escaping described at Key::path.
std::string join_path(const std::vector<std::string>& segments);
// Throws Error on a malformed escape ("~" not followed by 0 or 1).
std::vector<std::string> split_path(const std::string& path);

}  // namespace confcrypt
