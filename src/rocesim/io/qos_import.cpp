#include "rocesim/io/qos_import.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "rocesim/core/error.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/io/scenario.hpp"

namespace rocesim {
namespace {

using json = nlohmann::json;

// What a scenario with these sections says about them: the importer's output must pass rocesim's own checks.
void check_sections(const YAML::Node& sections, const std::string& file) {
  YAML::Node root = YAML::Load("topology: {type: star, hosts: 2}");
  for (const auto& kv : sections) {
    root[kv.first.as<std::string>()] = kv.second;
  }
  YAML::Emitter em;
  em << root;
  try {
    parse_scenario(em.c_str(), file, ".", {});
  } catch (const InputError& e) {
    throw InputError(file, 0, e.key(), "becomes a value rocesim refuses: " + e.problem());
  }
}

std::string emit(const YAML::Node& sections, const std::string& header, const std::vector<std::string>& warnings) {
  YAML::Emitter em;
  em << sections;
  std::string out = header + std::string(em.c_str()) + "\n";
  for (const std::string& w : warnings) {
    std::string line = printable(w);  // a key with a line break cannot end the comment
    std::replace(line.begin(), line.end(), '\n', ' ');
    out += "# warning: " + line + "\n";
  }
  return out;
}

// ---- SONiC config_db.json ----

class ConfigDb {
 public:
  ConfigDb(const std::string& text, std::string file) : file_(std::move(file)) {
    try {
      db_ = json::parse(text);
    } catch (const json::parse_error& e) {
      const size_t upto = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
      const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(upto), '\n'));
      throw InputError(file_, line, "",
                       "not JSON: " + std::string(e.what()).substr(std::string(e.what()).find(':') + 2));
    }
    if (!db_.is_object()) {
      throw InputError(file_, 0, "", "not a config_db.json (a JSON object of tables expected)");
    }
  }

  const std::string& file() const { return file_; }
  bool has(const std::string& table) const { return db_.contains(table) && db_[table].is_object(); }
  const json& table(const std::string& t) const {
    static const json empty = json::object();
    return has(t) ? db_[t] : empty;
  }
  std::vector<std::string> tables() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : db_.items()) {
      out.push_back(k);
    }
    return out;
  }
  // A field of an entry: SONiC stores every value as a string.
  std::optional<std::string> field(const std::string& t, const std::string& entry, const std::string& key) const {
    const json& tb = table(t);
    if (!tb.contains(entry) || !tb[entry].is_object() || !tb[entry].contains(key)) {
      return std::nullopt;
    }
    const json& v = tb[entry][key];
    if (!v.is_string()) {
      throw InputError(file_, 0, t + "." + entry + "." + key, "expected a string, as SONiC writes every value");
    }
    return v.get<std::string>();
  }
  double number(const std::string& t, const std::string& entry, const std::string& key) const {
    const auto f = field(t, entry, key);
    if (!f) {
      throw InputError(file_, 0, t + "." + entry + "." + key, "missing");
    }
    const std::string v = *f;
    try {
      size_t used = 0;
      const double d = std::stod(v, &used);
      if (used == v.size() && std::isfinite(d)) {
        return d;
      }
    } catch (const std::exception&) {
    }
    throw InputError(file_, 0, t + "." + entry + "." + key, "'" + v + "' is not a number");
  }

 private:
  std::string file_;
  json db_;
};

// A number that must be whole and within [lo, hi].
int whole(const ConfigDb& db, const std::string& t, const std::string& entry, const std::string& key, int lo, int hi) {
  const double v = db.number(t, entry, key);
  if (!(v >= lo && v <= hi) || v != std::floor(v)) {
    throw InputError(db.file(), 0, t + "." + entry + "." + key,
                     fmt::format("{} is not a whole number from {} to {}", v, lo, hi));
  }
  return static_cast<int>(v);
}

// A size in bytes: whole, not negative, and at most 1 PB (far above any switch's buffer).
int64_t size_field(const ConfigDb& db, const std::string& t, const std::string& entry, const std::string& key) {
  const double v = db.number(t, entry, key);
  if (!(v >= 0 && v <= 1e15) || v != std::floor(v)) {
    throw InputError(db.file(), 0, t + "." + entry + "." + key,
                     fmt::format("{} is not a size in bytes (a whole number from 0 to 10^15)", v));
  }
  return static_cast<int64_t>(v);
}

// Whether a PORT_QOS_MAP key ("Ethernet0" or "Ethernet0,Ethernet4") names `port`.
bool names_port(const std::string& key, const std::string& port) {
  std::stringstream ports(key);
  for (std::string p; std::getline(ports, p, ',');) {
    if (p == port) {
      return true;
    }
  }
  return false;
}

// "Ethernet0,Ethernet4|3-4" -> ports and the indices of the range.
bool key_matches(const std::string& key, const std::string& port, int index) {
  const size_t bar = key.find('|');
  if (bar == std::string::npos) {
    return false;
  }
  std::stringstream ports(key.substr(0, bar));
  bool port_in = false;
  for (std::string p; std::getline(ports, p, ',');) {
    port_in = port_in || p == port;
  }
  if (!port_in) {
    return false;
  }
  const std::string range = key.substr(bar + 1);
  const size_t dash = range.find('-');
  try {
    const int lo = std::stoi(range.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(range.substr(dash + 1));
    return index >= lo && index <= hi;
  } catch (const std::exception&) {
    return false;
  }
}

// "[BUFFER_PROFILE|name]" or "name" -> "name".
std::string reference(std::string ref) {
  if (!ref.empty() && ref.front() == '[' && ref.back() == ']') {
    ref = ref.substr(1, ref.size() - 2);
    const size_t bar = ref.find('|');
    ref = bar == std::string::npos ? ref : ref.substr(bar + 1);
  }
  return ref;
}

// The entry of `table` whose key names `port` and covers `index`, if any.
std::optional<std::string> entry_for(const ConfigDb& db, const std::string& table, const std::string& port, int index) {
  for (const auto& [key, v] : db.table(table).items()) {
    if (key_matches(key, port, index)) {
      return key;
    }
  }
  return std::nullopt;
}

}  // namespace

QosImport import_sonic_config_db(const std::string& text, const std::string& file, const std::string& port_arg) {
  const ConfigDb db(text, file);
  static const std::set<std::string> kRead = {
      "BUFFER_POOL",     "BUFFER_PROFILE", "BUFFER_PG", "PORT_QOS_MAP", "DSCP_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP",
      "TC_TO_QUEUE_MAP", "WRED_PROFILE",   "SCHEDULER", "QUEUE",        "PFC_WD"};
  if (!db.has("PORT_QOS_MAP") && !db.has("BUFFER_PROFILE") && !db.has("WRED_PROFILE") && !db.has("SCHEDULER")) {
    throw InputError(
        file, 0, "",
        "holds none of the QoS tables rocesim reads (PORT_QOS_MAP, BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, "
        "DSCP_TO_TC_MAP, WRED_PROFILE, SCHEDULER, QUEUE, PFC_WD)");
  }
  QosImport out;
  const auto warn = [&](const std::string& key, const std::string& what) {
    out.warnings.push_back(file + ": " + key + ": " + what);
  };
  // The port whose QoS every port of the simulated switches gets.
  std::string port = port_arg;
  if (port.empty()) {
    for (const auto& [k, v] : db.table("PORT_QOS_MAP").items()) {
      if (k != "global" && port.empty() && v.is_object() && v.contains("pfc_enable")) {
        port = k.substr(0, k.find(','));
      }
    }
    for (const auto& [k, v] : db.table("PORT_QOS_MAP").items()) {
      if (k != "global" && port.empty()) {
        port = k.substr(0, k.find(','));
      }
    }
  }
  // The port's PORT_QOS_MAP entry: its own key, or one that lists it with others.
  std::string qos_key = "global";
  for (const auto& [k, v] : db.table("PORT_QOS_MAP").items()) {
    if (k != "global" && qos_key == "global" && names_port(k, port)) {
      qos_key = k;
    }
  }
  if (!port_arg.empty() && qos_key == "global" && !entry_for(db, "BUFFER_PG", port, 3) &&
      !entry_for(db, "QUEUE", port, 3)) {
    throw InputError(file, 0, "--port", "'" + port + "' is in no PORT_QOS_MAP, BUFFER_PG or QUEUE entry");
  }
  for (const auto& [k, v] : db.table("PORT_QOS_MAP").items()) {
    if (!v.is_object()) {
      throw InputError(file, 0, "PORT_QOS_MAP." + k, "expected an object of fields");
    }
    for (const auto& [f, x] : v.items()) {
      if (!x.is_string()) {
        throw InputError(file, 0, "PORT_QOS_MAP." + k + "." + f, "expected a string, as SONiC writes every value");
      }
    }
  }
  YAML::Node sw(YAML::NodeType::Map);
  // PORT_QOS_MAP: the port's entry over the global one.
  json qos = db.table("PORT_QOS_MAP").value("global", json::object());
  const json own = db.table("PORT_QOS_MAP").value(qos_key, json::object());
  for (const auto& [k, v] : own.items()) {
    qos[k] = v;
  }
  std::vector<int> lossless;
  if (qos.contains("pfc_enable")) {
    std::stringstream ss(qos["pfc_enable"].get<std::string>());
    for (std::string p; std::getline(ss, p, ',');) {
      try {
        const int v = std::stoi(p);
        if (v < 0 || v > 7) {
          throw std::out_of_range("priority");
        }
        lossless.push_back(v);
      } catch (const std::exception&) {
        throw InputError(file, 0, "PORT_QOS_MAP." + qos_key + ".pfc_enable", "'" + p + "' is not a priority 0..7");
      }
    }
    sw["pfc"]["priorities"] = lossless;
    sw["pfc"]["priorities"].SetStyle(YAML::EmitterStyle::Flow);
  }
  // Classes must stay themselves (all of them for queues; the lossless ones for priority groups, as PFC acts on
  // the group).
  const auto identity_map = [&](const std::string& key, const std::string& table, bool lossless_only) {
    if (!qos.contains(key)) {
      return;
    }
    const std::string name = reference(qos[key].get<std::string>());
    const json map = db.table(table).value(name, json::object());
    for (const auto& [from, to] : map.items()) {
      const bool matters = !lossless_only || std::any_of(lossless.begin(), lossless.end(),
                                                         [&](int p) { return std::to_string(p) == from; });
      if (matters && to.is_string() && to.get<std::string>() != from) {
        warn("PORT_QOS_MAP." + qos_key + "." + key,
             table + "." + name + " maps " + from + " to " + to.get<std::string>() +
                 ": rocesim's priority is the traffic class, its queue and its priority group");
        return;
      }
    }
  };
  identity_map("tc_to_queue_map", "TC_TO_QUEUE_MAP", false);
  identity_map("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP", true);
  for (const char* k : {"pfc_to_queue_map", "pfc_to_pg_map"}) {
    if (qos.contains(k)) {
      warn("PORT_QOS_MAP." + qos_key + "." + k, "not used: a PFC frame pauses the priority it names");
    }
  }
  // DSCP_TO_TC_MAP -> switch.dscp_map.
  if (qos.contains("dscp_to_tc_map")) {
    const std::string name = reference(qos["dscp_to_tc_map"].get<std::string>());
    if (!db.table("DSCP_TO_TC_MAP").contains(name)) {
      throw InputError(file, 0, "PORT_QOS_MAP." + qos_key + ".dscp_to_tc_map",
                       "no DSCP_TO_TC_MAP named '" + name + "'");
    }
    std::map<int, std::string> m;
    for (const auto& [d, tc] : db.table("DSCP_TO_TC_MAP")[name].items()) {
      const std::string at = "DSCP_TO_TC_MAP." + name + "." + d;
      int dscp = -1, t = -1;
      try {
        dscp = std::stoi(d);
        t = tc.is_string() ? std::stoi(tc.get<std::string>()) : -1;
      } catch (const std::exception&) {
      }
      if (dscp < 0 || dscp > 63 || t < 0 || t > 7) {
        throw InputError(file, 0, at, "expected DSCP 0..63 to a traffic class 0..7");
      }
      m[dscp] = std::to_string(t);
    }
    std::string s;
    for (const auto& [d, t] : m) {
      s += (s.empty() ? "" : ", ") + std::to_string(d) + ":" + t;
    }
    sw["dscp_map"] = s;
  }
  // The lossless priority group's buffer profile -> admission and headroom; its pool -> the buffer.
  const int pg = lossless.empty() ? 3 : lossless.front();
  if (const auto pg_key = entry_for(db, "BUFFER_PG", port, pg)) {
    const auto prof_field = db.field("BUFFER_PG", *pg_key, "profile");
    if (!prof_field) {
      throw InputError(file, 0, "BUFFER_PG." + *pg_key + ".profile", "missing");
    }
    const std::string prof = reference(*prof_field);
    const std::string at = "BUFFER_PROFILE." + prof;
    if (prof == "NULL") {
      warn("BUFFER_PG." + *pg_key + ".profile",
           "NULL (the dynamic buffer model computes headroom from speed and cable): headroom stays auto");
    } else if (!db.table("BUFFER_PROFILE").contains(prof)) {
      throw InputError(file, 0, "BUFFER_PG." + *pg_key + ".profile", "no BUFFER_PROFILE named '" + prof + "'");
    } else {
      if (db.field("BUFFER_PROFILE", prof, "size")) {
        sw["admission"]["reserved"] = fmt::format("{}B", size_field(db, "BUFFER_PROFILE", prof, "size"));
      }
      if (db.field("BUFFER_PROFILE", prof, "dynamic_th")) {
        sw["admission"]["type"] = "dynamic";
        sw["admission"]["alpha"] =
            fmt::format("{}", std::ldexp(1.0, whole(db, "BUFFER_PROFILE", prof, "dynamic_th", -10, 6)));
      } else if (db.field("BUFFER_PROFILE", prof, "static_th")) {
        sw["admission"]["type"] = "static";
        sw["admission"]["static_limit"] = fmt::format("{}B", size_field(db, "BUFFER_PROFILE", prof, "static_th"));
      }
      if (db.field("BUFFER_PROFILE", prof, "xoff")) {
        sw["pfc"]["headroom"] = fmt::format("{}B", size_field(db, "BUFFER_PROFILE", prof, "xoff"));
      }
      if (db.field("BUFFER_PROFILE", prof, "xon_offset")) {
        sw["pfc"]["xon_offset"] = fmt::format("{}B", size_field(db, "BUFFER_PROFILE", prof, "xon_offset"));
      }
      for (const auto& [k, v] : db.table("BUFFER_PROFILE")[prof].items()) {
        if (k == "xon") {
          warn(at + ".xon", "not used: rocesim resumes xon_offset below the pause threshold");
        } else if (k != "pool" && k != "size" && k != "dynamic_th" && k != "static_th" && k != "xoff" &&
                   k != "xon_offset") {
          warn(at + "." + k, "not modelled");
        }
      }
      if (const auto pool = db.field("BUFFER_PROFILE", prof, "pool")) {
        const std::string p = reference(*pool);
        if (!db.table("BUFFER_POOL").contains(p)) {
          throw InputError(file, 0, at + ".pool", "no BUFFER_POOL named '" + p + "'");
        }
        int64_t size = size_field(db, "BUFFER_POOL", p, "size");
        if (db.field("BUFFER_POOL", p, "xoff")) {
          size += size_field(db, "BUFFER_POOL", p, "xoff");
          warn("BUFFER_POOL." + p + ".xoff",
               "a shared headroom pool; rocesim sets headroom aside per port and priority: added to the buffer");
        }
        sw["buffer"] = fmt::format("{}B", size);
        for (const auto& [name, v] : db.table("BUFFER_POOL").items()) {
          if (name != p) {
            warn("BUFFER_POOL." + name, "not used: rocesim's switch has one shared buffer (" + p + ")");
          }
        }
      }
    }
  } else if (db.has("BUFFER_PG")) {
    warn("BUFFER_PG", "no entry for " + port + " priority group " + std::to_string(pg) + ": buffer defaults kept");
  }
  // QUEUE: schedulers -> ETS; the lossless queue's WRED profile -> ECN.
  std::vector<int> weights{50, 1, 1, 50, 1, 1, 1, 1}, strict;
  bool any_scheduler = false;
  std::string wred_used;
  for (int q = 0; q < 8; ++q) {
    const auto key = entry_for(db, "QUEUE", port, q);
    if (!key) {
      continue;
    }
    if (const auto sched = db.field("QUEUE", *key, "scheduler")) {
      const std::string name = reference(*sched);
      if (!db.table("SCHEDULER").contains(name)) {
        throw InputError(file, 0, "QUEUE." + *key + ".scheduler", "no SCHEDULER named '" + name + "'");
      }
      any_scheduler = true;
      const std::string type = db.field("SCHEDULER", name, "type").value_or("DWRR");
      if (type == "STRICT") {
        strict.push_back(q);
      } else if (type == "DWRR" || type == "WRR") {
        if (db.field("SCHEDULER", name, "weight")) {
          weights[static_cast<size_t>(q)] = whole(db, "SCHEDULER", name, "weight", 0, 10000);
        }
      } else {
        throw InputError(file, 0, "SCHEDULER." + name + ".type", "'" + type + "' is not STRICT, DWRR or WRR");
      }
      for (const auto& [k, v] : db.table("SCHEDULER")[name].items()) {
        if (k != "type" && k != "weight") {
          warn("SCHEDULER." + name + "." + k, "not modelled (meters and shapers)");
        }
      }
    }
    const auto wred = db.field("QUEUE", *key, "wred_profile");
    if (!wred || std::find(lossless.begin(), lossless.end(), q) == lossless.end()) {
      if (wred) {
        warn("QUEUE." + *key + ".wred_profile", "on a lossy queue: rocesim marks every queue by one curve");
      }
      continue;
    }
    const std::string name = reference(*wred);
    if (!wred_used.empty()) {
      if (name != wred_used) {
        warn("QUEUE." + *key + ".wred_profile", "differs from " + wred_used + ": rocesim uses " + wred_used);
      }
      continue;
    }
    wred_used = name;
    if (!db.table("WRED_PROFILE").contains(name)) {
      throw InputError(file, 0, "QUEUE." + *key + ".wred_profile", "no WRED_PROFILE named '" + name + "'");
    }
    const std::string at = "WRED_PROFILE." + name;
    const std::string ecn = db.field("WRED_PROFILE", name, "ecn").value_or("ecn_none");
    if (ecn == "ecn_none") {
      sw["ecn"]["type"] = "none";
      warn(at + ".ecn", "ecn_none: no marking (rocesim does not model WRED drops)");
    } else {
      if (ecn != "ecn_all" && ecn != "ecn_green" && ecn != "ecn_green_yellow" && ecn != "ecn_green_red") {
        throw InputError(file, 0, at + ".ecn", "'" + ecn + "' is not ecn_none, ecn_all or ecn_green...");
      }
      for (const char* k : {"green_min_threshold", "green_max_threshold", "green_drop_probability"}) {
        if (!db.field("WRED_PROFILE", name, k)) {
          throw InputError(file, 0, at + "." + k, "missing: ECN marking needs the green thresholds");
        }
      }
      sw["ecn"]["type"] = "red";
      sw["ecn"]["kmin"] = fmt::format("{}B", size_field(db, "WRED_PROFILE", name, "green_min_threshold"));
      sw["ecn"]["kmax"] = fmt::format("{}B", size_field(db, "WRED_PROFILE", name, "green_max_threshold"));
      sw["ecn"]["pmax"] = fmt::format("{}", db.number("WRED_PROFILE", name, "green_drop_probability") / 100.0);
    }
    for (const auto& [k, v] : db.table("WRED_PROFILE")[name].items()) {
      if (k.rfind("yellow_", 0) == 0 || k.rfind("red_", 0) == 0 || k == "wred_yellow_enable" ||
          k == "wred_red_enable") {
        warn(at + "." + k, "not used: RoCE traffic is green");
      } else if (k != "ecn" && k.rfind("green_", 0) != 0 && k != "wred_green_enable") {
        warn(at + "." + k, "not modelled");
      }
    }
  }
  if (any_scheduler) {
    sw["ets"]["weights"] = weights;
    sw["ets"]["weights"].SetStyle(YAML::EmitterStyle::Flow);
    sw["ets"]["strict"] = strict;
    sw["ets"]["strict"].SetStyle(YAML::EmitterStyle::Flow);
  }
  // PFC_WD -> the watchdog.
  if (db.table("PFC_WD").contains(port)) {
    sw["pfc"]["watchdog"]["enabled"] = true;
    const auto ms = [&](const std::string& entry, const std::string& k, const std::string& to) {
      if (db.field("PFC_WD", entry, k)) {
        sw["pfc"]["watchdog"][to] = fmt::format("{}ms", db.number("PFC_WD", entry, k));
      }
    };
    if (const auto action = db.field("PFC_WD", port, "action")) {
      if (*action != "drop" && *action != "forward" && *action != "alert") {
        throw InputError(file, 0, "PFC_WD." + port + ".action", "'" + *action + "' is not drop, forward or alert");
      }
      sw["pfc"]["watchdog"]["action"] = *action;
    }
    ms(port, "detection_time", "detect");
    ms(port, "restoration_time", "restore");
    ms("GLOBAL", "POLL_INTERVAL", "poll");
  }
  // Tables and ports not taken.
  for (const std::string& t : db.tables()) {
    if (!kRead.count(t)) {
      warn(t, "not used by rocesim");
    }
  }
  for (const auto& [k, v] : db.table("PORT_QOS_MAP").items()) {
    if (k != "global" && k != qos_key && v != own) {
      warn("PORT_QOS_MAP." + k, "differs from " + port + "'s: every simulated port gets " + port + "'s QoS");
    }
  }
  YAML::Node sections(YAML::NodeType::Map);
  sections["switch"] = sw;
  check_sections(sections, file);
  out.yaml =
      emit(sections, "# The QoS of " + port + " in " + file + ", imported by rocesim import sonic.\n", out.warnings);
  return out;
}

// ---- mlnx_qos and DCQCN parameters ----

namespace {

struct NicParam {
  const char* name;  // sysfs / mlxconfig name
  const char* key;   // nic.cc key
  std::function<std::string(double)> value;
};

const std::vector<NicParam>& nic_params() {
  static const std::vector<NicParam> p = {
      {"rpg_ai_rate", "rate_ai", [](double v) { return fmt::format("{}Mbps", v); }},
      {"rpg_hai_rate", "rate_hai", [](double v) { return fmt::format("{}Mbps", v); }},
      {"rpg_min_rate", "min_rate", [](double v) { return fmt::format("{}Mbps", v); }},
      {"rpg_time_reset", "rate_increase_period", [](double v) { return fmt::format("{}us", v); }},
      {"rpg_byte_reset", "byte_counter", [](double v) { return fmt::format("{}B", v); }},
      {"rpg_threshold", "fast_recovery_steps", [](double v) { return fmt::format("{}", v); }},
      {"rpg_min_dec_fac", "min_dec_factor", [](double v) { return fmt::format("{}", v / 100); }},
      {"rate_reduce_monitor_period", "rate_reduce_monitor_period", [](double v) { return fmt::format("{}us", v); }},
      {"dce_tcp_g", "g", [](double v) { return fmt::format("{}", (1024 - v) / 1024); }},
      {"dce_tcp_rtt", "alpha_update_period", [](double v) { return fmt::format("{}us", v); }},
      {"initial_alpha_value", "initial_alpha", [](double v) { return fmt::format("{}", v / 1024); }},
      {"clamp_tgt_rate", "clamp_target_rate", [](double v) { return v != 0 ? "true" : "false"; }},
      {"min_time_between_cnps", "min_time_between_cnps", [](double v) { return fmt::format("{}us", v); }},
  };
  return p;
}

}  // namespace

QosImport import_mlnx_qos(const std::string& text, const std::string& file) {
  QosImport out;
  YAML::Node nic(YAML::NodeType::Map), cc(YAML::NodeType::Map), pfc(YAML::NodeType::Map);
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  bool in_pfc = false, any = false;
  const auto warn = [&](const std::string& key, const std::string& what) {
    out.warnings.push_back(fmt::format("{}:{}: {}: {}", file, lineno, key, what));
  };
  while (std::getline(in, line)) {
    ++lineno;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') {
      continue;
    }
    // Parameters: ".../params/NAME:VALUE", "NAME=VALUE", "NAME VALUE".
    std::string name, value;
    if (t[0] == '/' || t.find("/params/") != std::string::npos) {
      const size_t slash = t.rfind('/'), colon = t.find(':', t.rfind('/'));
      if (colon != std::string::npos) {
        name = t.substr(slash + 1, colon - slash - 1);
        value = trim(t.substr(colon + 1));
      }
    } else if (const size_t eq = t.find('='); eq != std::string::npos) {
      name = trim(t.substr(0, eq));
      value = trim(t.substr(eq + 1));
    } else if (t.find(':') == std::string::npos) {
      std::istringstream ss(t);
      std::string extra;
      ss >> name >> value >> extra;
      if (!extra.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
        name.clear();
      }
    }
    if (name.empty() || value.empty()) {
      // A line of mlnx_qos's report.
      const auto starts = [&](const char* p) { return t.rfind(p, 0) == 0; };
      if (starts("Priority trust state:")) {
        any = true;
        const std::string trust = trim(t.substr(21));
        if (trust != "dscp") {
          warn("trust", trust + ": rocesim classifies by DSCP (mlnx_qos --trust dscp)");
        }
      } else if (starts("PFC configuration")) {
        any = in_pfc = true;
      } else if (in_pfc && starts("enabled")) {
        std::istringstream ss(t.substr(7));
        std::vector<int> prios;
        int v = 0, p = 0;
        while (ss >> v) {
          if (v != 0 && v != 1) {
            throw InputError(file, lineno, "PFC enabled", "expected 0 or 1 per priority");
          }
          if (v == 1) {
            prios.push_back(p);
          }
          ++p;
        }
        if (p != 8) {
          throw InputError(file, lineno, "PFC enabled", "expected 8 values, one per priority");
        }
        pfc["priorities"] = prios;
        pfc["priorities"].SetStyle(YAML::EmitterStyle::Flow);
      } else if (in_pfc && (starts("priority") || starts("buffer"))) {
        // the table's header; the mapping of priorities to the NIC's receive buffers
      } else if (starts("Cable len:")) {
        any = true;
        nic["cable_length"] = trim(t.substr(10));
      } else if (starts("Receive buffer size (bytes):")) {
        any = true;
        std::stringstream ss(t.substr(28));
        int64_t most = 0;
        for (std::string b; std::getline(ss, b, ',');) {
          try {
            most = std::max<int64_t>(most, std::stoll(b));
          } catch (const std::exception&) {
          }
        }
        nic["rx_buffer"] = fmt::format("{}B", most);
      } else if (starts("tc:")) {
        any = true;
        warn("tc", "the NIC's ETS and rate limits are not modelled (" + t + ")");
      } else if (starts("dscp2prio mapping") || starts("prio:")) {
        any = true;
        if (starts("prio:")) {
          warn("dscp2prio", "the NIC's receive classification is not modelled; switch.dscp_map classifies");
        }
      } else if (!starts("priority:") && !starts("default priority")) {
        warn(t.substr(0, t.find(':')), "not modelled");
      }
      if (!starts("PFC configuration") && !starts("priority") && !starts("buffer") && !starts("enabled")) {
        in_pfc = false;
      }
      continue;
    }
    double v = 0;
    try {
      size_t used = 0;
      v = std::stod(value, &used);
      if (used != value.size()) {
        throw std::invalid_argument("trailing");
      }
    } catch (const std::exception&) {
      throw InputError(file, lineno, name, "'" + value + "' is not a number");
    }
    any = true;
    const auto& params = nic_params();
    const auto it = std::find_if(params.begin(), params.end(), [&](const NicParam& p) { return name == p.name; });
    if (it != params.end()) {
      cc[it->key] = it->value(v);
    } else if (name == "cnp_802p_prio") {
      if (!(v >= 0 && v <= 7) || v != std::floor(v)) {
        throw InputError(file, lineno, name, "must be a priority 0..7");
      }
      nic["cnp_priority"] = static_cast<int>(v);
    } else if (name == "rate_to_set_on_first_cnp" && v == 0) {
      // 0: the rate is not set on the first CNP, which is rocesim's behaviour
    } else {
      warn(name, "not modelled");
    }
  }
  if (!any) {
    throw InputError(file, 0, "", "holds neither mlnx_qos output nor DCQCN parameters");
  }
  if (cc.size() > 0) {
    YAML::Node typed(YAML::NodeType::Map);
    typed["type"] = "dcqcn";
    for (const auto& kv : cc) {
      typed[kv.first] = kv.second;
    }
    nic["cc"] = typed;
  }
  YAML::Node sections(YAML::NodeType::Map);
  if (nic.size() > 0) {
    sections["nic"] = nic;
  }
  if (pfc.size() > 0) {
    sections["switch"]["pfc"] = pfc;
  }
  if (sections.size() == 0) {
    throw InputError(file, 0, "",
                     "nothing in it that rocesim models: no PFC, trust or ETS setting, no DCQCN parameter it takes");
  }
  check_sections(sections, file);
  out.yaml =
      emit(sections, "# The NIC QoS and DCQCN parameters in " + file + ", imported by rocesim import mlnx-qos.\n",
           out.warnings);
  return out;
}

}  // namespace rocesim
