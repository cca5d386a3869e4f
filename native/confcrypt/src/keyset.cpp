#include "confcrypt/keyset.hpp"

#include <utility>

namespace confcrypt {

namespace {

std::string where(const std::string& source, size_t line) {
  std::string w =
      source.empty() ? "line " + std::to_string(line) : source + ":" + std::to_string(line);
  return w;
}

}  // namespace

FormatError::FormatError(const std::string& source, size_t line, const std::string& message)
    : Error(where(source, line) + ": " + message), line_(line) {}

Key* KeySet::find(const std::string& path) {
  for (Key& k : keys_) {
    if (k.path == path) return &k;
  }
  return nullptr;
}

const Key* KeySet::find(const std::string& path) const {
  for (const Key& k : keys_) {
    if (k.path == path) return &k;
  }
  return nullptr;
}

Key& KeySet::set(const std::string& path, std::string value, ValueType type) {
  if (Key* k = find(path)) {
    k->value = std::move(value);
    k->type = type;
    return *k;
  }
  Key k;
  k.path = path;
  k.value = std::move(value);
  k.type = type;
  keys_.push_back(std::move(k));
  return keys_.back();
}

Key& KeySet::add(Key key) {
  if (find(key.path)) throw Error("duplicate key '" + key.path + "'");
  keys_.push_back(std::move(key));
  return keys_.back();
}

bool KeySet::remove(const std::string& path) {
  for (auto it = keys_.begin(); it != keys_.end(); ++it) {
    if (it->path == path) {
      keys_.erase(it);
      return true;
    }
  }
  return false;
}

std::string join_path(const std::vector<std::string>& segments) {
  std::string out;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i) out += '/';
    for (char c : segments[i]) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
  }
  return out;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> segs(1);
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == '/') {
      segs.emplace_back();
    } else if (c == '~') {
      if (i + 1 < path.size() && path[i + 1] == '0') {
        segs.back() += '~';
      } else if (i + 1 < path.size() && path[i + 1] == '1') {
        segs.back() += '/';
      } else {
        throw Error("bad key path '" + path + "': '~' must be followed by 0 or 1");
      }
      ++i;
    } else {
      segs.back() += c;
    }
  }
  return segs;
}

}  // namespace confcrypt
