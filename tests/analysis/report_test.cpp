#include "rocesim/analysis/report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/io/report_html.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {

TEST(ReportData, ACdfKeepsEveryValueWhenItFitsAndEvenlySpacedRanksWhenNot) {
  const auto small = cdf_points({1, 2, 3, 4}, 10);
  ASSERT_EQ(small.size(), 4u);
  EXPECT_EQ(small[0], nlohmann::json({1.0, 0.25}));
  EXPECT_EQ(small[3], nlohmann::json({4.0, 1.0}));
  std::vector<double> v;
  for (int i = 1; i <= 10001; ++i) {
    v.push_back(i);
  }
  const auto big = cdf_points(v, 101);
  ASSERT_EQ(big.size(), 101u);
  EXPECT_EQ(big.front(), nlohmann::json({1.0, 1.0 / 10001}));
  EXPECT_EQ(big.back(), nlohmann::json({10001.0, 1.0}));
  EXPECT_EQ(big[50][0], 5001.0);  // the median rank
  EXPECT_TRUE(cdf_points({}, 10).empty());
}

// One 1 MB WRITE from host1 to host0 on a 4-host 100 Gb/s star, no congestion control.
std::unique_ptr<Simulation> lone_flow() {
  return test::run_sim(
      "topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\nnic: {cc: none}\n"
      "workload: [{type: incast, receiver: 0, senders: [1], size: 1MB}]\n");
}

double utilisation(const nlohmann::json& topo, const std::string& from, const std::string& to) {
  const auto& n = topo["nodes"];
  for (const auto& l : topo["links"]) {
    if (n[l["from"].get<size_t>()]["name"] == from && n[l["to"].get<size_t>()]["name"] == to) {
      return l["utilisation"].get<double>();
    }
  }
  throw std::runtime_error("no link " + from + " -> " + to);
}

TEST(ReportData, ALoneFlowAtLineRateKeepsItsPathBusyForAllButAboutOneRoundTrip) {
  auto s = lone_flow();
  const nlohmann::json d = report_data(s->net(), s->now(), Time(), nullptr, summary_json(*s, RunInfo{}), "lone");
  const auto& topo = d["topology"];
  EXPECT_EQ(topo["nodes"].size(), 5u);      // 4 NICs, 1 switch
  EXPECT_EQ(topo["links"].size(), 8u);      // each link both ways
  EXPECT_EQ(topo["nodes"][4]["level"], 1);  // the switch above the NICs
  // The run ends with the flow: its data kept host1's link and the switch's port to host0 busy but for the
  // first packet's way there and the last ACK's way back (about 4 us of the 85 us a 1 MB message takes at 100G).
  const double fct_ns = s->net().flows()[0].end.ps() / 1000.0;
  const double lo = 1.0 - 6000.0 / fct_ns;
  for (const auto& [from, to] : {std::pair{"host1", "switch0"}, std::pair{"switch0", "host0"}}) {
    const double u = utilisation(topo, from, to);
    EXPECT_GT(u, lo) << from << "->" << to;
    EXPECT_LE(u, 1.0) << from << "->" << to;
  }
  EXPECT_EQ(utilisation(topo, "host2", "switch0"), 0.0);
  EXPECT_LT(utilisation(topo, "host0", "switch0"), 0.05);  // ACKs only
  EXPECT_EQ(d["cdf"]["flows"], 1);
  EXPECT_EQ(d["top_flows"][0]["src"], "host1");
  EXPECT_EQ(d["top_ports"].size(), 0u);  // nothing paused
}

// A run's report data as `rocesim run` writes it.
nlohmann::json lone_run() {
  auto s = lone_flow();
  return report_data(s->net(), s->now(), Time(), nullptr, summary_json(*s, RunInfo{}), "lone");
}

TEST(ReportHtml, TheRunDataRoundTripsThroughThePageEvenWhenItHoldsAClosingScriptTag) {
  nlohmann::json run = lone_run();
  run["name"] = "a</script><script>alert(1)</script><!--<script>";
  run["x"] = {1, 2.5, nullptr};
  const std::string html = report_html({run, run});
  // No "<" in the data at all: it can neither end its element early nor open a comment that hides the end.
  const size_t from = html.find("id=\"rocesim-data\">") + 18, to = html.find("</script>", from);
  EXPECT_EQ(html.substr(from, to - from).find('<'), std::string::npos);
  const auto back = report_runs(html, "r.html");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0], run);
  EXPECT_THROW(report_runs("<html></html>", "r.html"), InputError);
}

// The message report_runs gives for a page holding `runs`, "" if it reads them.
std::string report_error(const nlohmann::json& runs) {
  try {
    report_runs(report_html(runs.get<std::vector<nlohmann::json>>()), "r.html");
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "r.html");
    return e.key() + ": " + e.problem();
  }
  return "";
}

TEST(ReportHtml, EveryRunInTheDataBlockIsCheckedAndABadOneIsAnInputErrorNamingItsPlace) {
  const nlohmann::json good = lone_run();
  EXPECT_EQ(report_error(nlohmann::json::array({good, good})), "");
  // `runs: [5]` used to end `rocesim report` with a JSON type error (status 1).
  EXPECT_EQ(report_error(nlohmann::json::array({5})).rfind("runs.0: not a rocesim report", 0), 0u)
      << report_error(nlohmann::json::array({5}));
  EXPECT_EQ(report_error(nlohmann::json::array({good, "x"})).rfind("runs.1:", 0), 0u)
      << report_error(nlohmann::json::array({good, "x"}));
  const auto with = [&](const nlohmann::json::json_pointer& at, const nlohmann::json& v) {
    nlohmann::json r = good;
    r[at] = v;
    return report_error(nlohmann::json::array({good, r}));
  };
  const auto without = [&](const char* key) {
    nlohmann::json r = good;
    r.erase(key);
    return report_error(nlohmann::json::array({r}));
  };
  EXPECT_EQ(with("/name"_json_pointer, 5).rfind("runs.1.name:", 0), 0u);
  EXPECT_EQ(with("/summary"_json_pointer, "x").rfind("runs.1.summary:", 0), 0u);
  EXPECT_EQ(with("/cdf/fct_ns"_json_pointer, 3).rfind("runs.1.cdf.fct_ns:", 0), 0u);
  EXPECT_EQ(with("/cdf/slowdown"_json_pointer, nlohmann::json::array({nlohmann::json::array({1.0, "x"})}))
                .rfind("runs.1.cdf.slowdown.0:", 0),
            0u);
  EXPECT_EQ(with("/top_flows"_json_pointer, nlohmann::json::array({1})).rfind("runs.1.top_flows.0:", 0), 0u);
  EXPECT_EQ(with("/topology/links/0/to"_json_pointer, 99).rfind("runs.1.topology.links.0.to:", 0), 0u);
  EXPECT_EQ(
      with("/timeseries"_json_pointer, {{"t_ns", nlohmann::json::array()}, {"series", nlohmann::json::array({7})}})
          .rfind("runs.1.timeseries.series.0:", 0),
      0u);
  EXPECT_EQ(without("topology").rfind("runs.0.topology:", 0), 0u);
  EXPECT_EQ(without("cdf").rfind("runs.0.cdf:", 0), 0u);
}

TEST(ReportHtml, ReportOnAPageWhoseRunsAreNotObjectsExitsTwoNamingTheFile) {
  const auto d = std::filesystem::temp_directory_path() / ("rocesim_report_bad_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d / "run");
  std::ofstream(d / "run" / "report.html")
      << "<script type=\"application/json\" id=\"rocesim-data\">{\"runs\": [5]}</script>\n";
  const auto r =
      test::shell(std::string(ROCESIM_BINARY) + " report " + (d / "run").string() + " -o " + (d / "out.html").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find((d / "run" / "report.html").string() + ": runs.0: not a rocesim report"), std::string::npos)
      << r.out;
  EXPECT_FALSE(std::filesystem::exists(d / "out.html"));
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace rocesim
