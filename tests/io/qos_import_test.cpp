#include "rocesim/io/qos_import.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "../test_util.hpp"
#include "rocesim/core/error.hpp"
#include "rocesim/core/units.hpp"
#include "rocesim/io/scenario.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

const std::string kDir = std::string(ROCESIM_SOURCE_DIR) + "/tests/io/fixtures/sonic/";

using test::slurp;

// The scenario a user gets by pasting the imported sections into one: resolved, every default filled in.
nlohmann::json resolved_with(const std::string& fragment) {
  YAML::Node root =
      YAML::Load("topology: {type: star, hosts: 2}\nworkload: [{type: incast, receiver: 0, senders: 1, size: 10KB}]");
  const YAML::Node f = YAML::Load(fragment);
  for (const auto& kv : f) {
    root[kv.first.as<std::string>()] = kv.second;
  }
  YAML::Emitter em;
  em << root;
  return Simulation(parse_scenario(em.c_str(), "imported.yaml", ".", {})).resolved();
}

int64_t bytes(const nlohmann::json& v) { return parse_bytes(v.get<std::string>()).count(); }

bool warned(const QosImport& q, const std::string& part) {
  return std::any_of(q.warnings.begin(), q.warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

TEST(SonicImport, TheLosslessPortsQosBecomesTheSwitchSection) {
  const QosImport q = import_sonic_config_db(slurp(kDir + "config_db.json"), "config_db.json", "");
  const nlohmann::json sw = resolved_with(q.yaml)["switch"];
  // The ingress lossless pool with its shared headroom pool (10875072 + 4194112 B).
  EXPECT_EQ(bytes(sw["buffer"]), 15069184);
  // pg_lossless_100000_40m_profile: reserve 1248 B, dynamic_th -3 (alpha 1/8), xoff 177632 B, xon_offset 2288 B.
  EXPECT_EQ(sw["admission"]["type"], "dynamic");
  EXPECT_DOUBLE_EQ(sw["admission"]["alpha"].get<double>(), 0.125);
  EXPECT_EQ(bytes(sw["admission"]["reserved"]), 1248);
  EXPECT_EQ(bytes(sw["pfc"]["headroom"]), 177632);
  EXPECT_EQ(bytes(sw["pfc"]["xon_offset"]), 2288);
  EXPECT_EQ(sw["pfc"]["priorities"], nlohmann::json({3, 4}));
  // AZURE_LOSSLESS: green 1048576..2097152 B, 5 %.
  EXPECT_EQ(bytes(sw["ecn"]["kmin"]), 1048576);
  EXPECT_EQ(bytes(sw["ecn"]["kmax"]), 2097152);
  EXPECT_DOUBLE_EQ(sw["ecn"]["pmax"].get<double>(), 0.05);
  // DWRR weights of queues 0, 1, 3, 4 (40, 30, 25, 5); queue 6 strict; the rest keep rocesim's.
  EXPECT_EQ(sw["ets"]["weights"], nlohmann::json({40, 30, 1, 25, 5, 1, 1, 1}));
  EXPECT_EQ(sw["ets"]["strict"], nlohmann::json({6}));
  EXPECT_EQ(sw["dscp_map"], "0:1, 3:3, 4:4, 8:0, 46:5, 48:6");
  EXPECT_EQ(sw["pfc"]["watchdog"]["enabled"], true);
  EXPECT_EQ(sw["pfc"]["watchdog"]["detect"], "200ms");
  EXPECT_EQ(sw["pfc"]["watchdog"]["restore"], "400ms");
  EXPECT_EQ(sw["pfc"]["watchdog"]["poll"], "100ms");
  // What it cannot honour is said, not dropped.
  for (const char* w : {"CABLE_LENGTH: not used", "DEVICE_METADATA: not used", "BUFFER_QUEUE: not used",
                        "BUFFER_POOL.egress_lossy_pool: not used", "BUFFER_POOL.ingress_lossless_pool.xoff",
                        "pg_lossless_100000_40m_profile.xon:", "AZURE_LOSSLESS.yellow_min_threshold",
                        "PORT_QOS_MAP.Ethernet0.pfc_to_queue_map"}) {
    EXPECT_TRUE(warned(q, w)) << w;
  }
  EXPECT_FALSE(warned(q, "PORT_QOS_MAP.Ethernet4"));  // the same QoS as Ethernet0
  EXPECT_FALSE(warned(q, "tc_to_pg_map"));            // classes 3 and 4 are their own priority groups
  EXPECT_NE(q.yaml.find("pmax: 0.05\n"), std::string::npos) << q.yaml;
}

TEST(SonicImport, BadFilesAreRefusedNamingTheLineOrTheJsonPathAndKey) {
  const auto error = [](const std::string& text, const std::string& port = "") -> std::string {
    try {
      import_sonic_config_db(text, "db.json", port);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error("{\n  \"PORT_QOS_MAP\": {\n    \"x\": 1,,\n}").find("db.json:3: not JSON"), std::string::npos);
  EXPECT_NE(error("{\"PORT\": {}}").find("none of the QoS tables"), std::string::npos);
  EXPECT_NE(error("[1, 2]").find("not a config_db.json"), std::string::npos);
  std::string db = slurp(kDir + "config_db.json");
  std::string bad = db;
  bad.replace(bad.find("\"1248\""), 6, "\"lots\"");
  EXPECT_NE(error(bad).find("BUFFER_PROFILE.pg_lossless_100000_40m_profile.size: 'lots' is not a number"),
            std::string::npos)
      << error(bad);
  bad = db;
  bad.replace(bad.find("[WRED_PROFILE|AZURE_LOSSLESS]"), 29, "NOPE");
  EXPECT_NE(error(bad).find("QUEUE.Ethernet0|3.wred_profile: no WRED_PROFILE named 'NOPE'"), std::string::npos)
      << error(bad);
  bad = db;
  bad.replace(bad.find("\"3,4\""), 5, "\"3,9\"");
  EXPECT_NE(error(bad).find("pfc_enable: '9' is not a priority"), std::string::npos) << error(bad);
  EXPECT_NE(error(db, "Ethernet99").find("--port: 'Ethernet99'"), std::string::npos);
  // Missing numbers and values of the wrong type are named, not read as nothing.
  bad = db;
  bad.replace(bad.find("\"size\": \"10875072\", "), 20, "");
  EXPECT_NE(error(bad).find("BUFFER_POOL.ingress_lossless_pool.size: missing"), std::string::npos) << error(bad);
  bad = db;
  bad.replace(bad.find("\"pfc_enable\": \"3,4\""), 19, "\"pfc_enable\": 34");
  EXPECT_NE(error(bad).find("PORT_QOS_MAP.Ethernet0.pfc_enable: expected a string"), std::string::npos) << error(bad);
  bad = db;
  bad.replace(bad.find("\"dynamic_th\": \"-3\""), 18, "\"dynamic_th\": \"1e20\"");
  EXPECT_NE(error(bad).find("dynamic_th: 1e+20 is not a whole number"), std::string::npos) << error(bad);
}

TEST(SonicImport, APortListedWithOthersInOneKeyGetsThatEntry) {
  // Older templates key PORT_QOS_MAP by port lists: "Ethernet0,Ethernet4".
  const std::string db =
      R"({"PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"pfc_enable": "3", "dscp_to_tc_map": "M"}},
          "DSCP_TO_TC_MAP": {"M": {"26": "3", "48": "6"}}})";
  for (const std::string port : {"", "Ethernet4"}) {
    const QosImport q = import_sonic_config_db(db, "db.json", port);
    const nlohmann::json sw = resolved_with(q.yaml)["switch"];
    EXPECT_EQ(sw["pfc"]["priorities"], nlohmann::json({3})) << port;
    EXPECT_EQ(sw["dscp_map"], "26:3, 48:6") << port;
    EXPECT_FALSE(warned(q, "differs")) << port;
  }
}

TEST(MlnxQosImport, TheNicsReportAndDcqcnParametersBecomeTheNicSection) {
  const QosImport q = import_mlnx_qos(slurp(kDir + "mlnx_qos.txt"), "mlnx_qos.txt");
  const nlohmann::json r = resolved_with(q.yaml);
  const nlohmann::json& cc = r["nic"]["cc"];
  EXPECT_EQ(cc["type"], "dcqcn");
  EXPECT_EQ(cc["rate_ai"], "10Mbps");
  EXPECT_EQ(cc["rate_hai"], "100Mbps");
  EXPECT_EQ(cc["min_rate"], "1Mbps");
  EXPECT_EQ(cc["rate_increase_period"], "300us");
  EXPECT_EQ(bytes(cc["byte_counter"]), 32767);
  EXPECT_EQ(cc["fast_recovery_steps"], 1);
  EXPECT_DOUBLE_EQ(cc["min_dec_factor"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(cc["g"].get<double>(), 5.0 / 1024);  // dce_tcp_g 1019: g = (1024 - 1019) / 1024
  EXPECT_DOUBLE_EQ(cc["initial_alpha"].get<double>(), 1023.0 / 1024);
  EXPECT_EQ(cc["alpha_update_period"], "1us");
  EXPECT_EQ(cc["min_time_between_cnps"], "4us");
  EXPECT_EQ(cc["clamp_target_rate"], false);
  EXPECT_EQ(r["nic"]["cnp_priority"], 6);
  EXPECT_EQ(bytes(r["nic"]["rx_buffer"]), 130944);
  EXPECT_EQ(r["switch"]["pfc"]["priorities"], nlohmann::json({3}));
  for (const char* w : {"rpg_gd: not modelled", "cnp_dscp: not modelled", "tc: the NIC's ETS", "DCBX mode: not"}) {
    EXPECT_TRUE(warned(q, w)) << w;
  }
}

TEST(MlnxQosImport, BadLinesNameTheLineAndKey) {
  const auto error = [](const std::string& text) -> std::string {
    try {
      import_mlnx_qos(text, "q.txt");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error("rpg_ai_rate 5\nrpg_hai_rate fast\n").find("q.txt:2: rpg_hai_rate: 'fast' is not a number"),
            std::string::npos);
  EXPECT_NE(error("PFC configuration:\n priority 0 1 2 3 4 5 6 7\n enabled 0 0 0 2 0 0 0 0\n").find("q.txt:3"),
            std::string::npos);
  EXPECT_NE(error("DCBX mode: OS controlled\n").find("neither mlnx_qos output nor DCQCN parameters"),
            std::string::npos);
  EXPECT_NE(error("rpg_min_dec_fac 250\n").find("min_dec_factor"), std::string::npos);  // 2.5 is not a fraction
}

TEST(SonicImport, SizesThatAreNegativeFractionalOrHugeAreRefusedNamingTheirKey) {
  const auto error = [](const std::string& text) -> std::string {
    try {
      import_sonic_config_db(text, "db.json", "");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string db = slurp(kDir + "config_db.json");
  for (const char* v : {"-5", "1e19", "12.5"}) {
    std::string bad = db;
    bad.replace(bad.find("\"10875072\""), 10, std::string("\"") + v + "\"");
    EXPECT_NE(error(bad).find("BUFFER_POOL.ingress_lossless_pool.size:"), std::string::npos) << v << error(bad);
    EXPECT_NE(error(bad).find("not a size in bytes"), std::string::npos) << v << error(bad);
  }
}

TEST(MlnxQosImport, AFileWithNothingRocesimModelsIsAnError) {
  try {
    import_mlnx_qos("rpg_gd 11\ncnp_dscp 48\n", "q.txt");
    ADD_FAILURE() << "imported nothing without an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nothing in it that rocesim models"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rocesim
