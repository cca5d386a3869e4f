// Storage formats: bytes -> Document (a key set plus what is needed to re-emit untouched bytes
// exactly) -> bytes. See docs/confcrypt.md, "Storage formats".
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "confcrypt/keyset.hpp"

namespace confcrypt {

// A parsed file: the key set plus what the format needs to re-emit untouched bytes exactly.
class Document {
 public:
  virtual ~Document() = default;
  virtual KeySet& keys() = 0;
  virtual const KeySet& keys() const = 0;
  // One opaque single-line, text-safe string the crypto layer keeps in the file (version, file
  // id, wrapped data keys, MAC). INI and dotenv keep it as a comment line "#@CONFCRYPT <text>"
  // at the top; JSON as a top-level member "#confcrypt": "<text>" placed first.
  virtual std::optional<std::string> header() const = 0;
  // Throws Error if the text contains a line break, or (JSON) the top level is not an object.
  virtual void set_header(std::optional<std::string> text) = 0;
  // The file's bytes for the current key set: every line, comment, whitespace, order of untouched
  // keys byte-identical to the input; changed values rewritten in place; new keys appended (INI:
  // to their section, created at the end if missing; JSON: to their parent object, created if
  // missing); removed keys' lines dropped. INI and dotenv write each key's metadata (except names
  // starting with "json/" or "internal/") as lines "#@META name = value" directly above the key;
  // JSON does not store metadata in the file. Throws Error for a key set the format cannot
  // represent (a line break in an INI value, a binary value, a path of the wrong shape, ...).
  virtual std::string emit() const = 0;
};

class Format {
 public:
  virtual ~Format() = default;
  virtual std::string name() const = 0;  // "ini", "json", "dotenv"
  // Throws FormatError("<source>:12: ...") with a line number for malformed input; `source` is
  // the file name used in messages (may be empty).
  virtual std::unique_ptr<Document> parse(const std::string& bytes,
                                          const std::string& source = "") const = 0;
  // Throws Error, with the message emit() would give, when the format cannot store this value
  // (its type or its bytes: a line break in INI, a NUL in dotenv, invalid UTF-8 in JSON).
  virtual void check_value(const Key& key) const = 0;
};

// "ini", "json", "dotenv" (also "env"); throws Error for an unknown name.
std::unique_ptr<Format> format_by_name(const std::string& name);
// By file name: *.ini, *.conf -> ini; *.json -> json; *.env, .env, .env.* -> dotenv. Throws Error
// when the name says nothing.
std::unique_ptr<Format> format_for_path(const std::string& path);

}  // namespace confcrypt
