#include "rocesim/analysis/report.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/io/report_html.hpp"

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
  const nlohmann::json d = report_data(*s, summary_json(*s, RunInfo{}), "lone");
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

TEST(ReportHtml, TheRunDataRoundTripsThroughThePageEvenWhenItHoldsAClosingScriptTag) {
  const nlohmann::json run = {{"name", "a</script><script>alert(1)</script><!--<script>"}, {"x", {1, 2.5, nullptr}}};
  const std::string html = report_html({run, run});
  // No "<" in the data at all: it can neither end its element early nor open a comment that hides the end.
  const size_t from = html.find("id=\"rocesim-data\">") + 18, to = html.find("</script>", from);
  EXPECT_EQ(html.substr(from, to - from).find('<'), std::string::npos);
  const auto back = report_runs(html, "r.html");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0], run);
  EXPECT_THROW(report_runs("<html></html>", "r.html"), InputError);
}

}  // namespace
}  // namespace rocesim
