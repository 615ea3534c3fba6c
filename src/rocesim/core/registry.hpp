// The implementations of one extension point (congestion control, topology builder, workload, ...), each
// registered once with its name, a one-line summary, its parameter declaration and its factory. The scenario
// selects one by name (`type:`); the list of names, `rocesim params`, docs/scenario-reference.md and the
// unknown-type error all come from the registry.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rocesim/core/params.hpp"

namespace rocesim {

// One implementation: what the registry knows of it. `describe` appends its parameters under a prefix such as
// `topology[star]` (empty: it has none).
template <class Factory>
struct Registered {
  std::string name;
  std::string summary;
  Factory make;
  std::function<void(std::vector<ParamDoc>&, const std::string&)> describe;
};

// The `describe` of an implementation whose parameters are declared by P::schema().
template <class P>
std::function<void(std::vector<ParamDoc>&, const std::string&)> describe_schema() {
  return [](std::vector<ParamDoc>& out, const std::string& prefix) { P::schema().describe(prefix, out); };
}

template <class Factory>
class Registrar;

// Contract: filled before main, by a Registrar in each implementation's own file, and read-only afterwards; names
// are unique (a second registration of a name ends the program at start-up) and listed in alphabetical order, so
// the order files are linked in never shows.
template <class Factory>
class Registry {
 public:
  using Entry = Registered<Factory>;
  // `path`: the scenario key of the section (e.g. "nic.cc"); `default_name`: the type when the key is absent
  // (empty: the type is required).
  Registry(std::string path, std::string default_name) : path_(std::move(path)), default_(std::move(default_name)) {}
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) {
      out.push_back(e.name);
    }
    return out;
  }
  const Entry* find(const std::string& name) const {
    for (const auto& e : entries_) {
      if (e.name == name) {
        return &e;
      }
    }
    return nullptr;
  }
  // The implementation `n` names (a scalar, or a mapping's `type`); an unknown or missing name is an InputError
  // at `path`.type listing the known ones. `path` defaults to the registry's own.
  const Entry& select(const YAML::Node& n, const ParseCtx& ctx, const std::string& path = "") const {
    return *find(read_type(n, ctx, path.empty() ? path_ : path, names(), default_));
  }
  // The `type` row (every name with its summary), then each implementation's parameters under `base[name]`
  // (`base` defaults to the registry's path; a list such as `workload` documents `workload[].type` and
  // `workload[incast].size`).
  void describe(std::vector<ParamDoc>& out, const std::string& type_key = "", const std::string& base = "") const {
    std::string doc;
    for (const auto& e : entries_) {
      doc += (doc.empty() ? "" : ", ") + e.name + " (" + e.summary + ")";
    }
    out.push_back(ParamDoc{type_key.empty() ? path_ + ".type" : type_key, "string", default_, "", doc});
    for (const auto& e : entries_) {
      if (e.describe) {
        e.describe(out, (base.empty() ? path_ : base) + "[" + e.name + "]");
      }
    }
  }

 private:
  friend class Registrar<Factory>;
  void add(Entry e) {
    if (find(e.name)) {
      throw std::logic_error("registry " + path_ + ": '" + e.name + "' registered twice");
    }
    const auto at = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& x) { return x.name > e.name; });
    entries_.insert(at, std::move(e));
  }
  std::string path_;
  std::string default_;
  std::vector<Entry> entries_;
};

// Registers one implementation from its own file, before main:
//   const Registrar<CcFactory> registered(cc_registry(), {"name", "summary", factory, describe_schema<P>()});
// A library linked as objects keeps every file's registrar (CMakeLists.txt: rocesim_lib is an OBJECT library).
template <class Factory>
class Registrar {
 public:
  Registrar(Registry<Factory>& r, Registered<Factory> e) { r.add(std::move(e)); }
};

// The implementation `n` selects (core: Registry::select), made from its mapping, or from no parameters when `n`
// is a bare name or absent.
template <class Factory>
auto make_selected(const Registry<Factory>& r, const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
  return r.select(n, ctx, path).make(n.IsDefined() && n.IsMap() ? n : YAML::Node(), ctx, path);
}

// The doc of a `type` key whose choices are a registry's: "a (summary), b (summary)".
template <class Factory>
std::string registry_doc(const Registry<Factory>& r) {
  std::string doc;
  for (const std::string& n : r.names()) {
    doc += (doc.empty() ? "" : ", ") + n + " (" + r.find(n)->summary + ")";
  }
  return doc;
}

// An algorithm of the family `Interface` (CcAlgorithm, TcpCcAlgorithm, BalanceAlgorithm) configured by `Params`, whose
// keys Params::schema() declares: it keeps its parameters and dumps them under its type name. Contract: a derived
// algorithm is constructible from (Params, type name) and implements the family's `make`; its dump() is the schema's
// dump of its parameters plus `type`, which the run's config.json records.
template <class Interface, class Params>
class ConfiguredAlgorithm : public Interface {
 public:
  ConfiguredAlgorithm(Params p, std::string type) : p_(std::move(p)), type_(std::move(type)) {}
  nlohmann::json dump() const override {
    auto j = Params::schema().dump(p_);
    j["type"] = type_;
    return j;
  }

 protected:
  const Params& params() const { return p_; }

 private:
  Params p_;
  std::string type_;
};

// The registry entry of `Algorithm`, constructed as Algorithm(Params, name) from the parameters the scenario gives
// (`Factory` is the family's factory type, `name` a string that outlives the registry).
template <class Factory, class Algorithm, class Params>
Registered<Factory> configured_entry(const char* name, const char* summary) {
  return {name, summary,
          [name](const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
            return std::make_unique<Algorithm>(Params::schema().parse(n, ctx, path), name);
          },
          describe_schema<Params>()};
}

}  // namespace rocesim
