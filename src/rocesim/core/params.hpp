// Parameter declarations. Each component declares its parameters once, in a Schema next to the code that
// uses them: key, default (as the user would write it), unit, one-line doc, and an optional check. From that
// one declaration come the YAML parser, unknown-key errors with suggestions, `rocesim params`, the resolved
// scenario in summary.json, and docs/scenario-reference.md.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "rocesim/core/error.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

// Where the input came from, for error messages.
struct ParseCtx {
  std::string file;
  // Where the files read while parsing are listed (no output may replace one); null: not listed.
  std::vector<std::string>* inputs = nullptr;
  void read(const std::string& path) const {
    if (inputs != nullptr) {
      inputs->push_back(path);
    }
  }
};

inline int line_of(const YAML::Node& n) { return n.IsDefined() && n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }

// One row of `rocesim params` and of the scenario reference.
struct ParamDoc {
  std::string key;  // full dotted path, e.g. "switch.ecn.kmin"
  std::string type;
  std::string default_text;
  std::string unit;
  std::string doc;
};

// Value conversions between YAML scalars and the parameter types.
template <class V>
struct ParamTraits;

template <>
struct ParamTraits<Time> {
  static constexpr const char* type = "time";
  static constexpr const char* unit = "ps..s";
  static Time parse(const std::string& s) { return parse_time(s); }
  static nlohmann::json dump(const Time& v) { return to_string(v); }
  static std::string text(const Time& v) { return to_string(v); }
};
template <>
struct ParamTraits<Bytes> {
  static constexpr const char* type = "size";
  static constexpr const char* unit = "B, KB, KiB..";
  static Bytes parse(const std::string& s) { return parse_bytes(s); }
  static nlohmann::json dump(const Bytes& v) { return to_string(v); }
  static std::string text(const Bytes& v) { return to_string(v); }
};
template <>
struct ParamTraits<Rate> {
  static constexpr const char* type = "rate";
  static constexpr const char* unit = "bps..Tbps";
  static Rate parse(const std::string& s) { return parse_rate(s); }
  static nlohmann::json dump(const Rate& v) { return to_string(v); }
  static std::string text(const Rate& v) { return to_string(v); }
};
template <>
struct ParamTraits<double> {
  static constexpr const char* type = "number";
  static constexpr const char* unit = "";
  static double parse(const std::string& s);
  static nlohmann::json dump(const double& v) { return v; }
  static std::string text(const double& v);
};
template <>
struct ParamTraits<int64_t> {
  static constexpr const char* type = "integer";
  static constexpr const char* unit = "";
  static int64_t parse(const std::string& s);
  static nlohmann::json dump(const int64_t& v) { return v; }
  static std::string text(const int64_t& v) { return std::to_string(v); }
};
template <>
struct ParamTraits<bool> {
  static constexpr const char* type = "bool";
  static constexpr const char* unit = "";
  static bool parse(const std::string& s);
  static nlohmann::json dump(const bool& v) { return v; }
  static std::string text(const bool& v) { return v ? "true" : "false"; }
};
template <>
struct ParamTraits<std::string> {
  static constexpr const char* type = "string";
  static constexpr const char* unit = "";
  static std::string parse(const std::string& s) { return s; }
  static nlohmann::json dump(const std::string& v) { return v; }
  static std::string text(const std::string& v) { return v; }
};
template <>
struct ParamTraits<std::vector<int64_t>> {
  static constexpr const char* type = "list of integers";
  static constexpr const char* unit = "";
  static std::vector<int64_t> parse(const std::string& s);  // "[3, 4]" or "3,4"
  static nlohmann::json dump(const std::vector<int64_t>& v) { return v; }
  static std::string text(const std::vector<int64_t>& v);
};

template <>
struct ParamTraits<std::vector<Bytes>> {
  static constexpr const char* type = "list of sizes";
  static constexpr const char* unit = "B, KB, KiB..";
  static std::vector<Bytes> parse(const std::string& s);  // "[2B, 64KiB]" or "2B,64KiB"
  static nlohmann::json dump(const std::vector<Bytes>& v);
  static std::string text(const std::vector<Bytes>& v);
};
template <>
struct ParamTraits<std::vector<std::string>> {
  static constexpr const char* type = "list of strings";
  static constexpr const char* unit = "";
  static std::vector<std::string> parse(const std::string& s);  // "[a, b]" or "a,b"
  static nlohmann::json dump(const std::vector<std::string>& v) { return v; }
  static std::string text(const std::vector<std::string>& v);
};

// A number of things, or the list of them (`senders: 8` or `senders: [1, 5, 9]`).
struct CountOrList {
  int64_t count = 0;          // when `list` is empty
  std::vector<int64_t> list;  // the items, if given
  bool is_list() const { return !list.empty(); }
};
template <>
struct ParamTraits<CountOrList> {
  static constexpr const char* type = "integer or list of integers";
  static constexpr const char* unit = "";
  static CountOrList parse(const std::string& s);  // "8", or "[3, 4]"
  static nlohmann::json dump(const CountOrList& v) {
    return v.is_list() ? nlohmann::json(v.list) : nlohmann::json(v.count);
  }
  static std::string text(const CountOrList& v) {
    return v.is_list() ? ParamTraits<std::vector<int64_t>>::text(v.list) : std::to_string(v.count);
  }
};

// Reads a value of type V from a YAML node; throws InputError naming `key`.
template <class V>
V read_value(const YAML::Node& n, const ParseCtx& ctx, const std::string& key) {
  try {
    if constexpr (std::is_same_v<V, std::vector<int64_t>> || std::is_same_v<V, std::vector<Bytes>> ||
                  std::is_same_v<V, std::vector<std::string>>) {
      if (n.IsSequence()) {
        V out;
        for (const auto& item : n) {
          if (!item.IsScalar()) {
            throw UnitError{std::string("expected a ") + ParamTraits<V>::type};
          }
          out.push_back(ParamTraits<typename V::value_type>::parse(item.Scalar()));
        }
        return out;
      }
    }
    if constexpr (std::is_same_v<V, CountOrList>) {
      if (n.IsSequence()) {
        CountOrList v;
        v.list = read_value<std::vector<int64_t>>(n, ctx, key);
        if (v.list.empty()) {
          throw UnitError{"an empty list"};
        }
        return v;
      }
    }
    if (!n.IsScalar()) {
      throw UnitError{std::string("expected a ") + ParamTraits<V>::type + ", got a " +
                      (n.IsMap()        ? "mapping"
                       : n.IsSequence() ? "list"
                                        : "null")};
    }
    return ParamTraits<V>::parse(n.Scalar());
  } catch (const UnitError& e) {
    throw InputError(ctx.file, line_of(n), key, e.message);
  }
}

// A check on a parsed value: returns an error message, or nothing if the value is fine.
template <class V>
using Check = std::function<std::optional<std::string>(const V&)>;

template <class V>
Check<V> at_least(V lo) {
  return [lo](const V& v) -> std::optional<std::string> {
    if (v < lo) {
      return "must be at least " + ParamTraits<V>::text(lo);
    }
    return std::nullopt;
  };
}
template <class V>
Check<V> in_range(V lo, V hi) {
  return [lo, hi](const V& v) -> std::optional<std::string> {
    if (v < lo || hi < v) {
      return "must be between " + ParamTraits<V>::text(lo) + " and " + ParamTraits<V>::text(hi);
    }
    return std::nullopt;
  };
}
Check<std::string> one_of(std::vector<std::string> choices);
// Text that is one of `keywords` or that `parser` reads (it throws UnitError on text it cannot read). The error is
// the parser's message, after "must be 'k1', 'k2' or <what>: " when there are keywords.
Check<std::string> parses(std::function<void(const std::string&)> parser, std::vector<std::string> keywords = {},
                          std::string what = {});

// The parameters of one component type T (a plain struct of values).
template <class T>
class Schema {
 public:
  Schema(std::string name, std::string doc) : name_(std::move(name)), doc_(std::move(doc)) {}

  const std::string& name() const { return name_; }
  const std::string& doc() const { return doc_; }

  // A leaf parameter. `default_text` is parsed with the same parser as user input, so docs and behaviour
  // cannot disagree.
  template <class V>
  Schema& add(V T::*member, std::string key, std::string default_text, std::string doc,
              std::type_identity_t<Check<V>> check = {}, std::string unit_override = {}) {
    const V dflt = ParamTraits<V>::parse(default_text);
    Entry e;
    e.key = key;
    e.doc = ParamDoc{key, ParamTraits<V>::type, default_text,
                     unit_override.empty() ? ParamTraits<V>::unit : unit_override, std::move(doc)};
    e.set_default = [member, dflt](T& obj) { obj.*member = dflt; };
    e.parse = [member, key, check](T& obj, const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
      V v = read_value<V>(n, ctx, path);
      if (check) {
        if (auto err = check(v)) {
          throw InputError(ctx.file, line_of(n), path, *err);
        }
      }
      obj.*member = std::move(v);
    };
    e.dump = [member](const T& obj) { return ParamTraits<V>::dump(obj.*member); };
    entries_.push_back(std::move(e));
    return *this;
  }

  // A nested section, parsed with its own schema.
  template <class S>
  Schema& sub(S T::*member, std::string key, const Schema<S>& schema) {
    Entry e;
    e.key = key;
    e.is_section = true;
    e.set_default = [member, &schema](T& obj) { schema.set_defaults(obj.*member); };
    e.parse = [member, &schema](T& obj, const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
      schema.parse_into(obj.*member, n, ctx, path);
    };
    e.dump = [member, &schema](const T& obj) { return schema.dump(obj.*member); };
    e.describe = [&schema](const std::string& prefix, std::vector<ParamDoc>& out) { schema.describe(prefix, out); };
    entries_.push_back(std::move(e));
    return *this;
  }

  // A key this schema accepts and leaves to code (e.g. `type`, chosen before this schema was picked).
  Schema& reserved(std::string key, std::string doc) {
    Entry e;
    e.key = key;
    e.doc = ParamDoc{key, "string", "", "", std::move(doc)};
    e.is_reserved = true;
    entries_.push_back(std::move(e));
    return *this;
  }

  // A key this schema no longer takes, with the key that replaced it: an error that says what to write instead.
  Schema& renamed(std::string old_key, std::string new_key, std::string why) {
    renamed_.push_back({std::move(old_key), std::move(new_key) + ": " + std::move(why)});
    return *this;
  }

  // A whole-object check, run after parsing (e.g. kmin <= kmax). Returns the offending key and problem.
  Schema& validate(std::function<std::optional<std::pair<std::string, std::string>>(const T&)> f) {
    validators_.push_back(std::move(f));
    return *this;
  }

  // A check that also needs to know which keys the user wrote (e.g. two keys that exclude each other).
  Schema& validate_keys(
      std::function<std::optional<std::pair<std::string, std::string>>(const T&, const YAML::Node&)> f) {
    key_validators_.push_back(std::move(f));
    return *this;
  }

  void set_defaults(T& obj) const {
    for (const auto& e : entries_) {
      if (e.set_default) {
        e.set_default(obj);
      }
    }
  }

  T parse(const YAML::Node& n, const ParseCtx& ctx, const std::string& path) const {
    T obj{};
    parse_into(obj, n, ctx, path);
    return obj;
  }

  void parse_into(T& obj, const YAML::Node& n, const ParseCtx& ctx, const std::string& path) const {
    set_defaults(obj);
    if (!n.IsDefined() || n.IsNull()) {
      run_validators(obj, n, ctx, path);
      return;
    }
    if (!n.IsMap()) {
      throw InputError(ctx.file, line_of(n), path, "expected a mapping of " + name_ + " parameters");
    }
    for (const auto& kv : n) {
      if (!kv.first.IsScalar()) {
        throw InputError(ctx.file, line_of(kv.first), path, "keys must be plain names");
      }
      const std::string key = kv.first.Scalar();
      const Entry* e = find(key);
      const std::string full = path.empty() ? key : path + "." + key;
      for (const auto& [old_key, hint] : renamed_) {
        if (key == old_key) {
          throw InputError(ctx.file, line_of(kv.first), full, "renamed to " + hint);
        }
      }
      if (!e) {
        std::vector<std::string> keys;
        for (const auto& x : entries_) {
          keys.push_back(x.key);
        }
        std::string msg = "unknown key for " + name_;
        const std::string sug = did_you_mean(key, keys);
        if (!sug.empty()) {
          msg += "; did you mean '" + sug + "'?";
        }
        throw InputError(ctx.file, line_of(kv.first), full, msg);
      }
      if (e->parse) {
        e->parse(obj, kv.second, ctx, full);
      }
    }
    run_validators(obj, n, ctx, path);
  }

  nlohmann::json dump(const T& obj) const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& e : entries_) {
      if (e.dump) {
        j[e.key] = e.dump(obj);
      }
    }
    return j;
  }

  void describe(const std::string& prefix, std::vector<ParamDoc>& out) const {
    for (const auto& e : entries_) {
      const std::string full = prefix.empty() ? e.key : prefix + "." + e.key;
      if (e.is_section) {
        e.describe(full, out);
      } else {
        ParamDoc d = e.doc;
        d.key = full;
        out.push_back(d);
      }
    }
  }

 private:
  struct Entry {
    std::string key;
    ParamDoc doc;
    bool is_section = false;
    bool is_reserved = false;
    std::function<void(T&)> set_default;
    std::function<void(T&, const YAML::Node&, const ParseCtx&, const std::string&)> parse;
    std::function<nlohmann::json(const T&)> dump;
    std::function<void(const std::string&, std::vector<ParamDoc>&)> describe;
  };

  const Entry* find(const std::string& key) const {
    for (const auto& e : entries_) {
      if (e.key == key) {
        return &e;
      }
    }
    return nullptr;
  }

  void run_validators(const T& obj, const YAML::Node& n, const ParseCtx& ctx, const std::string& path) const {
    std::vector<std::optional<std::pair<std::string, std::string>>> errs;
    for (const auto& v : validators_) {
      errs.push_back(v(obj));
    }
    for (const auto& v : key_validators_) {
      errs.push_back(v(obj, n));
    }
    for (const auto& err : errs) {
      if (err) {
        const YAML::Node at = n.IsMap() && n[err->first] ? n[err->first] : n;
        const std::string full = path.empty() ? err->first : path + "." + err->first;
        throw InputError(ctx.file, line_of(at), full, err->second);
      }
    }
  }

  std::string name_;
  std::string doc_;
  std::vector<Entry> entries_;
  std::vector<std::pair<std::string, std::string>> renamed_;  // old key, "new key: why"
  std::vector<std::function<std::optional<std::pair<std::string, std::string>>(const T&)>> validators_;
  std::vector<std::function<std::optional<std::pair<std::string, std::string>>(const T&, const YAML::Node&)>>
      key_validators_;
};

// A file the scenario names at `key` (relative paths resolve against `base_dir`), opened for reading; throws
// InputError naming the key if it cannot be opened.
struct InputFile {
  std::ifstream in;
  std::string path;
};
InputFile open_input(const std::string& name, const std::string& base_dir, const ParseCtx& ctx, const YAML::Node& at,
                     const std::string& key);

// The largest input file read (a scenario, a flow or topology file, a CDF): 1 GiB.
inline constexpr uintmax_t kMaxInputBytes = uintmax_t{1} << 30;
// Refuses what cannot be an input file: a directory, a device (/dev/zero would be read forever), a file larger
// than kMaxInputBytes. Errors name `file`, `line` and `key` (where the path was given). A missing file passes:
// opening it reports that.
void check_input_file(const std::filesystem::path& p, const std::string& file, int line, const std::string& key);

// The `type` key of a polymorphic section (topology, workload, cc), with a suggestion if it is unknown.
std::string read_type(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                      const std::vector<std::string>& known, const std::string& default_type = "");

}  // namespace rocesim
