// perftest: bandwidth and latency against hand-computed bounds and sums; the report's layout; bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {
// Two hosts on one switch: 100 Gb/s links, `delay` each way.
std::string pair_scenario(const std::string& test, const std::string& extra, const std::string& delay = "1us") {
  return "seed: 1\nstop: 200ms\n"
         "topology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: " +
         delay +
         "}}\n"
         "nic: {cc: none, mtu: 4096}\n"
         "workload:\n  - {type: perftest, test: " +
         test + ", client: 0, server: 1" + extra + "}\n";
}

nlohmann::json rows(Simulation& s) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : s.reports()) {
    const nlohmann::json part = r->summary(RunInfo{});
    for (const auto& row : part["perftest"]) {
      all.push_back(row);
    }
  }
  return all;
}

// One-way time of a frame of `frame` bytes across the star: two links of serialisation (frame + 20 B preamble
// and gap at 100 Gb/s, 0.08 ns per byte) and propagation, the switch's latency, and the NIC pipelines.
double one_way_ns(int frame, double delay_ns, double sw_ns, double tx_ns, double rx_ns) {
  return tx_ns + 2 * ((frame + 20) * 0.08 + delay_ns) + sw_ns + rx_ns;
}
}  // namespace

TEST(Perftest, WriteBwAt64KiBReachesTheWireEfficiencyBound) {
  auto s = test::run_sim(pair_scenario("write_bw", ", sizes: [64KiB], iterations: 2000"));
  const auto r = rows(*s);
  ASSERT_EQ(r.size(), 1u);
  // 16 packets of 4096 B: 62 B of headers (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4) and 20 B of
  // preamble and gap each, and a RETH (16 B) on the first.
  const double bound = 100.0 * 65536 / (65536 + 16 * (62 + 20) + 16);  // 98.05 Gb/s
  const double avg = r[0]["bw_average_gbps"];
  EXPECT_LE(avg, bound * 1.0001);
  EXPECT_NEAR(avg, bound, 0.01 * bound);
  EXPECT_LE(static_cast<double>(r[0]["bw_peak_gbps"]), bound * 1.0001);
}

TEST(Perftest, WriteLatOfTwoBytesIsTheSumOfItsLatencyTerms) {
  auto s =
      test::run_sim(pair_scenario("write_lat", ", sizes: [2B], iterations: 50"),
                    {"nic.tx_pipeline=150ns", "nic.rx_pipeline=200ns", "nic.wqe_fetch=250ns", "switch.latency=300ns"});
  const auto r = rows(*s);
  ASSERT_EQ(r.size(), 1u);
  // A 2-byte RDMA WRITE Only: 62 B of headers + RETH 16 + 2 B of payload + 2 B of pad = 82 B. Each half of the
  // ping-pong: the doorbell and WQE fetch, then the frame's one-way time.
  const double expected_ns = 250 + one_way_ns(82, 1000, 300, 150, 200);
  EXPECT_NEAR(static_cast<double>(r[0]["t_typical_us"]) * 1000, expected_ns, 1e-6);
  EXPECT_NEAR(static_cast<double>(r[0]["p99_us"]) * 1000, expected_ns, 1e-6);
}

TEST(Perftest, TheConnectX6PresetGivesItsPublishedLatencyAndMessageRate) {
  // "sub-600ns latency and 215 million messages per second" (ConnectX-6 user manual): the preset's terms add up
  // to 600 ns on top of the wire's time, and its send engine takes a work request per 1 / 215 M s.
  auto lat = test::run_sim(pair_scenario("write_lat", ", sizes: [2B], iterations: 50"), {"nic.preset=connectx-6"});
  EXPECT_NEAR(static_cast<double>(rows(*lat)[0]["t_typical_us"]) * 1000, 250 + one_way_ns(82, 1000, 0, 150, 200), 1e-6);
  // At 400 Gb/s the link would carry 490 M 2-byte WRITEs a second (102 B on the wire each), and 1024 in flight
  // over a round trip of about 1 us allow 1 G: the NIC's rate binds.
  auto bw = test::run_sim(pair_scenario("write_bw", ", sizes: [2B], iterations: 20000, tx_depth: 1024", "10ns"),
                          {"nic.preset=connectx-6", "topology.host_link.rate=400Gbps"});
  const double mpps = rows(*bw)[0]["msg_rate_mpps"];
  EXPECT_LE(mpps, 1e3 / 4.65 * 1.0001);
  EXPECT_GT(mpps, 0.98 * 1e3 / 4.65);
  // A key beside the preset wins.
  auto own = test::run_sim(pair_scenario("write_lat", ", sizes: [2B], iterations: 50"),
                           {"nic.preset=connectx-6", "nic.wqe_fetch=100ns"});
  EXPECT_NEAR(static_cast<double>(rows(*own)[0]["t_typical_us"]) * 1000, 100 + one_way_ns(82, 1000, 0, 150, 200), 1e-6);
}

TEST(Perftest, SendLatCarriesNoRethAndReadLatIsAWholeRoundTrip) {
  const std::vector<std::string> nic = {"nic.tx_pipeline=150ns", "nic.rx_pipeline=200ns", "nic.wqe_fetch=250ns"};
  auto send = test::run_sim(pair_scenario("send_lat", ", sizes: [2B], iterations: 20"), nic);
  // SEND Only, 2 B: 62 + 2 + 2 = 66 B.
  EXPECT_NEAR(static_cast<double>(rows(*send)[0]["t_typical_us"]) * 1000, 250 + one_way_ns(66, 1000, 0, 150, 200),
              1e-6);
  auto read = test::run_sim(pair_scenario("read_lat", ", sizes: [2B], iterations: 20"), nic);
  // The request (62 + RETH 16 = 78 B) out, the response (62 + AETH 4 + 2 + 2 = 70 B) back; the responder's
  // NIC answers with no work request of its own.
  const double rtt = 250 + one_way_ns(78, 1000, 0, 150, 200) + one_way_ns(70, 1000, 0, 150, 200);
  EXPECT_NEAR(static_cast<double>(rows(*read)[0]["t_typical_us"]) * 1000, rtt, 1e-6);
}

TEST(Perftest, SmallMessageBandwidthIsCappedByTheWorkRequestRate) {
  const std::string sc = pair_scenario("write_bw", ", sizes: [64B], iterations: 5000", "100ns");
  auto capped = test::run_sim(sc, {"nic.wqe_gap=20ns"});
  const auto r = rows(*capped);
  // One work request per 20 ns: 50 M messages/s, 64 B each = 25.6 Gb/s, below what the wire carries.
  EXPECT_NEAR(static_cast<double>(r[0]["msg_rate_mpps"]), 50.0, 0.5);
  EXPECT_NEAR(static_cast<double>(r[0]["bw_average_gbps"]), 25.6, 0.26);
  auto free = test::run_sim(sc);
  EXPECT_GT(static_cast<double>(rows(*free)[0]["msg_rate_mpps"]), 60.0);
}

TEST(Perftest, SendAndReadBandwidthTestsComplete) {
  for (const std::string t : {"send_bw", "read_bw"}) {
    auto s = test::run_sim(pair_scenario(t, ", sizes: [4KiB, 1MiB], iterations: 200, qps: 2"));
    const auto r = rows(*s);
    ASSERT_EQ(r.size(), 2u) << t;
    const double bound = 100.0 * 1048576 / (1048576 + 256 * (62 + 20));  // (no RETH on SEND or READ responses)
    EXPECT_NEAR(static_cast<double>(r[1]["bw_average_gbps"]), bound, 0.02 * bound) << t;
    EXPECT_EQ(test::unfinished(s->net()), 0) << t;
    EXPECT_EQ(s->net().flows().size(), 2u * 200 * 2) << t;
  }
}

TEST(Perftest, ReportUsesPerftestsColumns) {
  auto s = test::run_sim(pair_scenario("write_bw", ", sizes: [2B, 4KiB], iterations: 100"));
  const auto files = report_files(*s);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].first, "perftest.txt");
  EXPECT_NE(files[0].second.find(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"),
            std::string::npos);
  EXPECT_NE(files[0].second.find("\n 4096       100 "), std::string::npos);
  EXPECT_EQ(files[1].first, "perftest.csv");
  EXPECT_EQ(std::count(files[1].second.begin(), files[1].second.end(), '\n'), 3);
}

TEST(Perftest, AllSizesRunFromTwoBytesToEightMebibytes) {
  auto s = test::run_sim(pair_scenario("write_lat", ", sizes: all, iterations: 2"));
  const auto r = rows(*s);
  ASSERT_EQ(r.size(), 23u);
  EXPECT_EQ(r[0]["bytes"], 2);
  EXPECT_EQ(r[22]["bytes"], 8 << 20);
}

// perftest 4.5's own format strings (src/perftest_parameters.h, REPORT_FMT and RESULT_FMT_G; ctx_print_test_info in
// src/perftest_parameters.c), as Debian 12's perftest package prints them with --report_gbits.
TEST(Perftest, TheTableAndBannerArePerftestsOwnLines) {
  auto s = test::run_sim(pair_scenario("write_bw", ", sizes: [4KiB], iterations: 100, qps: 2"));
  const std::string txt = report_files(*s).at(0).second;
  const auto r = rows(*s).at(0);
  // A row: bytes, iterations of every QP, peak and average with two decimals, then two tabs and three spaces.
  EXPECT_NE(txt.find(fmt::format("\n 4096       200              {:<7.2f}            {:<7.2f}\t\t   {:<7.6f}\n",
                                 r["bw_peak_gbps"].get<double>(), r["bw_average_gbps"].get<double>(),
                                 r["msg_rate_mpps"].get<double>())),
            std::string::npos)
      << txt;
  const std::string dashes(87, '-');
  EXPECT_NE(txt.find(dashes + "\n                    RDMA_Write BW Test\n"
                              " Dual-port       : OFF\t\tDevice         : mlx5_0\n"
                              " Number of qps   : 2\t\tTransport type : IB\n"
                              " Connection type : RC\t\tUsing SRQ      : OFF\n"),
            std::string::npos)
      << txt;
  EXPECT_NE(txt.find(" TX depth        : 128\n"), std::string::npos);
  EXPECT_NE(txt.find(" Mtu             : 4096[B]\n Link type       : Ethernet\n"), std::string::npos) << txt;
  EXPECT_NE(txt.find(" rdma_cm QPs\t : OFF\n Data ex. method : Ethernet\n" + dashes + "\n #bytes"), std::string::npos)
      << txt;
  // On InfiniBand the link type says so; a READ test gives its outstanding reads instead of inline data.
  auto ib = test::run_sim(pair_scenario("read_lat", ", sizes: [64B], iterations: 10"),
                          {"fabric=infiniband", "switch.pfc.priorities=[]"});
  const std::string ib_txt = report_files(*ib).at(0).second;
  EXPECT_NE(ib_txt.find("                    RDMA_Read Latency Test\n"), std::string::npos) << ib_txt;
  EXPECT_NE(ib_txt.find(" Link type       : IB\n Outstand reads  : 16\n"), std::string::npos) << ib_txt;
  EXPECT_NE(ib_txt.find("no jitter is modelled"), std::string::npos);
}

TEST(Perftest, ASlowRateUsesPerftestsSixDecimalRow) {
  // Below 0.1 Gb/s perftest prints REPORT_FMT_EXT: six decimals. 2 B messages one at a time, each fetched 1 us
  // after its post: a few Mb/s.
  auto bw =
      test::run_sim(pair_scenario("write_bw", ", sizes: [2B], iterations: 50, tx_depth: 1"), {"nic.wqe_fetch=1us"});
  const auto r = rows(*bw).at(0);
  ASSERT_LT(r["bw_average_gbps"].get<double>(), 0.1);
  EXPECT_NE(report_files(*bw).at(0).second.find(fmt::format("\n 2          50           {:<7.6f}            {:<7.6f}",
                                                            r["bw_peak_gbps"].get<double>(),
                                                            r["bw_average_gbps"].get<double>())),
            std::string::npos)
      << report_files(*bw).at(0).second;
}

TEST(Perftest, EverySizeOfAllFinishesWithTheScenariosStop) {
  auto s = test::run_sim(test::slurp(std::string(ROCESIM_SOURCE_DIR) + "/scenarios/perftest.yaml"),
                         {"workload.0.sizes=all", "workload.0.iterations=20"});
  EXPECT_EQ(rows(*s).size(), 23u);
  EXPECT_EQ(summary_json(*s, RunInfo{})["warnings"].size(), 0u);
}

TEST(Perftest, AStopBeforeTheLastSizeIsAWarningNamingTheSizesCut) {
  auto s = test::run_sim(pair_scenario("write_lat", ", sizes: [64B, 1MiB, 4MiB], iterations: 100"), {"stop=1ms"});
  const auto r = rows(*s);
  ASSERT_EQ(r.size(), 1u);  // 64 B: 100 x ~4 us; 1 MiB: 100 x ~90 us, cut
  const nlohmann::json w = summary_json(*s, RunInfo{})["warnings"];
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "workload.0 (ib_write_lat host0 -> host1): the run's stop came before sizes 1048576, 4194304 B were "
            "done; raise stop");
}

TEST(Perftest, BadInputNamesTheKey) {
  const auto key_of = [](const std::string& set) {
    try {
      test::make_sim(pair_scenario("write_bw", ""), {set});
    } catch (const InputError& e) {
      return e.key();
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(key_of("workload.0.sizes=[0B]"), "workload.0.sizes");
  EXPECT_EQ(key_of("workload.0.sizes=[3GiB]"), "workload.0.sizes");
  EXPECT_EQ(key_of("workload.0.server=5"), "workload.0.server");
  EXPECT_EQ(key_of("workload.0.server=0"), "workload.0.server");
  EXPECT_EQ(key_of("workload.0.pairs=0:1, 1"), "workload.0.pairs");
  EXPECT_EQ(key_of("workload.0.test=foo"), "workload.0.test");
  EXPECT_EQ(key_of("workload.0.sizes=[2GiB]"), "(accepted)");
}

}  // namespace rocesim

namespace rocesim {
TEST(Perftest, StopsAtTheFirstErrorCompletionAsPerftestDoes) {
  // The server's link fails during the second size: the QPs run out of retries, the client stops there, and the
  // report keeps the first size's row and says why it ended.
  auto s = test::run_sim(pair_scenario("write_bw", ", sizes: [4KiB, 1MiB, 2MiB], iterations: 100") +
                             "events:\n  - {at: 100us, type: link_down, link: host1}\n",
                         {"nic.retransmit_timeout=100us", "nic.retry_count=1"});
  const auto files = report_files(*s);
  ASSERT_EQ(rows(*s).size(), 1u);
  EXPECT_EQ(rows(*s)[0]["bytes"], 4096);
  EXPECT_NE(files[0].second.find(" Completion with error at client (retry_exceeded, at 1048576 bytes)"),
            std::string::npos);
  EXPECT_LT(s->sim().now(), Time::ms(1));  // the run ends with the failure, not at `stop`
}
}  // namespace rocesim
