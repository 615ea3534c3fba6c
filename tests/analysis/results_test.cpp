// Result files a spreadsheet or a CSV reader opens: node names from a topology file that hold commas and quotes stay
// one field each (RFC 4180 quoting).
#include "rocesim/analysis/results.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_util.hpp"
#include "rocesim/analysis/fabric_report.hpp"

namespace rocesim {
namespace {

// Each line of `csv` split as RFC 4180 reads it has as many fields as its header.
void expect_rectangular(const std::string& what, const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  const size_t columns = csv_split(line).size();
  int rows = 0;
  while (std::getline(in, line)) {
    EXPECT_EQ(csv_split(line).size(), columns) << what << ": " << line;
    ++rows;
  }
  EXPECT_GT(rows, 0) << what;
}

TEST(Results, NodeNamesWithCommasAndQuotesAreOneQuotedFieldInEveryCsv) {
  const std::string dir = "/tmp/rocesim_names_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/t.txt") << "host a,b\nhost q\"x\nswitch s,w\n"
                                   "link a,b s,w 100Gbps 1us\nlink q\"x s,w 100Gbps 1us\n";
  Simulation s(
      parse_scenario("stop: 1ms\ntopology: {type: file, path: t.txt}\n"
                     "workload: [{type: incast, receiver: 0, senders: 1, size: 100KB}]\n",
                     "t.yaml", dir, {}));
  s.run();
  expect_rectangular("flows.csv", flows_csv(s.net()));
  expect_rectangular("ports.csv", ports_csv(s.net(), s.sim().now()));
  expect_rectangular("nics.csv", nics_csv(s.net(), s.sim().now()));
  expect_rectangular("port map", port_map_csv(s.net()));
  const auto flows = test::csv_rows(flows_csv(s.net()));
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].at("src_name"), "q\"x");  // read back as written in the topology file
  EXPECT_EQ(flows[0].at("dst_name"), "a,b");
  EXPECT_EQ(test::csv_rows(nics_csv(s.net(), s.sim().now()))[0].at("name"), "a,b");
  EXPECT_EQ(test::csv_rows(ports_csv(s.net(), s.sim().now()))[0].at("switch"), "s,w");
  std::filesystem::remove_all(dir);
}

TEST(Results, NodeNamesWithControlBytesOrBytesThatAreNotUtf8AreRefusedNamingTheLine) {
  const std::string dir = "/tmp/rocesim_badnames_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  for (const std::string& name : {std::string("esc\x1b[31mred"), std::string("bad\xff"), std::string("del\x7f")}) {
    std::ofstream(dir + "/t.txt") << "host a\nhost " << name << "\nswitch s\nlink a s 100Gbps 1us\n";
    try {
      parse_scenario("topology: {type: file, path: t.txt}\n", "t.yaml", dir, {});
      ADD_FAILURE() << "accepted: " << printable(name);
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("t.txt:2: host"), std::string::npos) << e.what();
      EXPECT_TRUE(is_plain_text(e.what())) << printable(e.what());
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rocesim
