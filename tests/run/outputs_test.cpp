#include "rocesim/run/outputs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "../test_util.hpp"
#include "rocesim/analysis/trace.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {

// A small run that asks for every output: records of each message, a profile of the engine, a time series, a
// trace, the HPCC simulator's files, a capture, and a perftest beside an incast.
const char* const kEverything =
    "topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n"
    "nic: {cc: dcqcn}\n"
    "engine: {profile: true}\n"
    "capture: {hosts: [1]}\n"
    "output:\n"
    "  flows: all\n"
    "  timeseries: {interval: 1us, ports: 'switch0:0'}\n"
    "  trace: {nodes: host0}\n"
    "  hpcc: {fct: fct.txt, pfc: pfc.txt, qlen: qlen.txt}\n"
    "workload:\n"
    "  - {type: incast, receiver: 0, senders: [1, 2], size: 64KB}\n"
    "  - {type: perftest, test: write_bw, client: 3, server: 0, sizes: [4KiB], iterations: 20}\n";

std::vector<std::string> names(const OutputFiles& files) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    out.push_back(f.first);
  }
  return out;
}

TEST(OutputKinds, NoTwoKindsShareANameOrAFileName) {
  std::set<std::string> kinds, files;
  for (const OutputKind& k : output_kinds()) {
    EXPECT_TRUE(kinds.insert(k.name).second) << k.name;
    for (const std::string& f : k.files) {
      EXPECT_TRUE(files.insert(f).second) << f << " (" << k.name << ")";
    }
  }
  EXPECT_EQ(files.count("summary.json"), 0u);  // written by the run itself, from every output's part
}

TEST(OutputKinds, EveryFileARunWritesIsOneItsKindDeclaresOrOneTheScenarioNames) {
  auto s = test::run_sim(kEverything);
  const RunInfo info;
  const nlohmann::json summary = summary_json(*s, info);
  const std::vector<std::string> written = names(result_files(*s, info, summary, "everything"));
  std::vector<std::string> allowed = fixed_output_names();
  for (const Scenario::NamedResult& r : s->scenario().named_results) {
    allowed.push_back(r.name);
  }
  for (const std::string& name : written) {
    EXPECT_NE(std::ranges::find(allowed, name), allowed.end()) << name << " is written but declared nowhere";
  }
  for (const char* expected :
       {"flows.csv", "ports.csv", "nics.csv", "engine.json", "fct_buckets.csv", "fct.txt", "pfc.txt", "qlen.txt",
        "timeseries.csv", "trace.json", "perftest.txt", "perftest.csv", "capture.pcapng", "report.html"}) {
    EXPECT_NE(std::ranges::find(written, expected), written.end()) << expected;
  }
  EXPECT_EQ(written.back(), "report.html");  // its page lists the others'
  EXPECT_EQ(std::set<std::string>(written.begin(), written.end()).size(), written.size());
}

TEST(OutputKinds, OutputsTheScenarioDoesNotAskForWriteNothing) {
  auto s = test::run_sim(
      "topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n"
      "output: {flows: off, report: false}\n"
      "workload: [{type: incast, receiver: 0, senders: [1, 2], size: 64KB}]\n");
  const RunInfo info;
  const std::vector<std::string> written = names(result_files(*s, info, summary_json(*s, info), "plain"));
  EXPECT_EQ(written, (std::vector<std::string>{"ports.csv", "nics.csv", "fct_buckets.csv"}));
  EXPECT_EQ(s->output<Trace>(), nullptr);
}

TEST(OutputKinds, EveryFileNameAKindDeclaresIsDocumentedInOutputsMd) {
  const std::string doc = test::slurp(std::string(ROCESIM_SOURCE_DIR) + "/docs/outputs.md");
  for (const std::string& name : fixed_output_names()) {
    EXPECT_NE(doc.find(name), std::string::npos) << name << " is not in docs/outputs.md";
  }
}

TEST(OutputKinds, AFileNameTheScenarioGivesThatAnotherOutputWritesIsAnInputErrorAtItsLine) {
  const std::string yaml =
      "topology: {type: star, hosts: 2}\n"
      "output:\n"
      "  hpcc: {fct: nics.csv}\n";
  try {
    test::make_sim(yaml);
    FAIL() << "accepted output.hpcc.fct: nics.csv";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "output.hpcc.fct");
    EXPECT_EQ(e.line(), 3);
  }
}

TEST(Summary, TwoWorkloadsOfAKindConcatenateTheirRowsAndJoinTheirCsvUnderOneHeader) {
  auto s = test::run_sim(
      "topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n"
      "nic: {cc: none}\n"
      "workload:\n"
      "  - {type: perftest, test: write_bw, client: 0, server: 1, sizes: [4KiB], iterations: 20}\n"
      "  - {type: perftest, test: write_bw, client: 2, server: 3, sizes: [4KiB, 8KiB], iterations: 20}\n");
  const nlohmann::json summary = summary_json(*s, RunInfo{});
  EXPECT_EQ(summary["perftest"].size(), 3u);  // one size, then two
  EXPECT_EQ(summary["workloads"].size(), 2u);
  const OutputFiles files = report_files(*s);
  const auto csv = std::ranges::find_if(files, [](const auto& f) { return f.first == "perftest.csv"; });
  ASSERT_NE(csv, files.end());
  const auto rows = test::csv_rows(csv->second);
  ASSERT_EQ(rows.size(), 3u);  // csv_rows reads the first line as the header: a second header would be a row
  EXPECT_EQ(rows[0].at("client"), "host0");
  EXPECT_EQ(rows[2].at("client"), "host2");
}

}  // namespace
}  // namespace rocesim
