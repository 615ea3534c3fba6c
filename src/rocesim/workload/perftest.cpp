// perftest, simulated: the linux-rdma/perftest tests (ib_write_bw, ib_write_lat, ib_send_bw, ib_send_lat,
// ib_read_bw, ib_read_lat) between a client and a server, or between many pairs at once to load a fabric, and
// their report in perftest's own column layout (linux-rdma/perftest src/perftest_parameters.h, RESULT_FMT_G and
// RESULT_FMT_LAT; the statistics of print_report_bw and print_report_lat in src/perftest_parameters.c).
//
// Bandwidth tests keep tx_depth work requests outstanding per QP and post one more at each completion; sizes run
// one after the other. BW average = bytes / (last completion - first post); BW peak = the best rate over windows
// of 100 consecutive messages (perftest's cq_mod) or fewer when a size has fewer iterations; MsgRate = messages /
// the same time. Latency tests are ping-pong for WRITE (each side watches its buffer for the peer's write, as
// ib_write_lat polls the last byte) and SEND (each side waits for its receive completion), and a READ at a time
// for READ; a sample is the time between two posts of the client, halved for the ping-pong tests (perftest
// reports half the round trip). The two largest samples are dropped (perftest's LAT_MEASURE_TAIL); t_typical is
// the median, percentiles are nearest-rank.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "rocesim/cluster/network.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {

// The line of dashes perftest draws above and below its banner and table.
constexpr std::string_view kDashes =
    "---------------------------------------------------------------------------------------\n";
static_assert(kDashes.size() == 88);

struct PerftestParams {
  std::string test, pairs;
  int64_t client = 0, server = 0, device = 0, iterations = 0, qps = 0, tx_depth = 0, priority = 0;
  std::vector<Bytes> sizes;
  Time start;
  static const Schema<PerftestParams>& schema() {
    static const Schema<PerftestParams> s = [] {
      Schema<PerftestParams> sc("perftest workload", "linux-rdma perftest between hosts");
      sc.reserved("type", "perftest")
          .add(&PerftestParams::test, "test", "write_bw",
               "write_bw, write_lat, send_bw, send_lat, read_bw or read_lat (ib_write_bw, ...)",
               one_of({"write_bw", "write_lat", "send_bw", "send_lat", "read_bw", "read_lat"}))
          .add(&PerftestParams::client, "client", "0", "the client host (it posts and measures)", at_least<int64_t>(0),
               "host")
          .add(&PerftestParams::server, "server", "1", "the server host", at_least<int64_t>(0), "host")
          .add(&PerftestParams::device, "device", "-1",
               "-1: client, server and pairs name hosts (NICs); k >= 0: they name servers, and the test runs on NIC "
               "k of each (perftest -d mlx5_k)",
               in_range<int64_t>(-1, 63), "NIC index")
          .add(&PerftestParams::pairs, "pairs", "",
               "instead of client and server: pairs running the test at once, \"CLIENT:SERVER, ...\" (hosts)")
          .add(&PerftestParams::sizes, "sizes", "[65536B]",
               "message sizes, one run each; `all` = 2 B to 8 MiB by powers of two (perftest -a)")
          .add(&PerftestParams::iterations, "iterations", "0",
               "messages per size and QP (perftest -n; 0: perftest's default, 5000 for write_bw, else 1000)",
               in_range<int64_t>(0, 100'000'000))
          .add(&PerftestParams::qps, "qps", "1", "queue pairs per pair of hosts (perftest -q; bandwidth tests)",
               in_range<int64_t>(1, 4096))
          .add(&PerftestParams::tx_depth, "tx_depth", "0",
               "work requests outstanding per QP (perftest -t; 0: 128 for bandwidth tests, 1 for latency tests)",
               in_range<int64_t>(0, 65536))
          .add(&PerftestParams::priority, "priority", "3", "priority of the traffic", in_range<int64_t>(0, 7),
               "priority")
          .add(&PerftestParams::start, "start", "0ns", "when the test starts");
      return sc;
    }();
    return s;
  }
};

enum class Kind { kBw, kLat };

// One row of the report: a size's result on one pair.
struct Row {
  int64_t bytes = 0, iterations = 0;
  double bw_peak = 0, bw_avg = 0, msg_rate = 0;                        // Gb/s, Gb/s, Mpps
  double t_min = 0, t_max = 0, t_typical = 0, t_avg = 0, t_stdev = 0;  // us
  double p99 = 0, p999 = 0;
};

// The client side: posts, measures, and holds the run until its last size is done.
class PerftestClient final : public Application {
 public:
  PerftestClient(RdmaOp op, Kind kind, std::vector<Bytes> sizes, int64_t iterations, int64_t depth, uint16_t workload,
                 int factor)
      : op_(op),
        kind_(kind),
        sizes_(std::move(sizes)),
        iters_(iterations),
        depth_(depth),
        workload_(workload),
        factor_(factor) {}
  void add_qp(uint32_t handle) {
    if (slot_.size() <= handle) {
      slot_.resize(handle + 1, 0);
    }
    slot_[handle] = qps_.size();
    qps_.push_back(handle);
  }
  const std::vector<Row>& rows() const { return rows_; }
  // perftest stops at the first completion with an error: the size it was at, and the completion's status.
  std::optional<std::pair<int64_t, WcStatus>> failure() const { return failure_; }

  void on_timer(Host& host, uint64_t) override { begin_size(host); }
  void on_completion(Host& host, const Completion& c) override {
    if (failure_) {
      return;
    }
    if (c.status != WcStatus::kSuccess) {
      failure_ = {sizes_[size_].count(), c.status};
      host.release();
      return;
    }
    const bool mine = kind_ == Kind::kBw || op_ == RdmaOp::kRead ? c.kind == WcKind::kSend : c.kind != WcKind::kSend;
    if (!mine) {
      return;
    }
    if (kind_ == Kind::kBw) {
      tcompleted_.push_back(host.now());
      if (const size_t q = slot_[c.qp]; posted_[q] < iters_) {
        post(host, q);
      }
      if (++completed_ == iters_ * static_cast<int64_t>(qps_.size())) {
        end_size(host);
      }
    } else if (++completed_ == iters_) {
      tposted_.push_back(host.now());  // when the next post would be: the last sample's end
      end_size(host);
    } else {
      post(host, 0);
    }
  }

 private:
  WorkRequest request() const {
    WorkRequest wr;
    wr.op = op_;
    wr.size = sizes_[size_];
    wr.workload = workload_;
    wr.signaled = kind_ == Kind::kBw || op_ == RdmaOp::kRead;
    return wr;
  }
  void post(Host& host, size_t q) {
    ++posted_[q];
    tposted_.push_back(host.now());
    host.post(qps_[q], request());
  }
  void begin_size(Host& host) {
    tposted_.clear();
    tcompleted_.clear();
    posted_.assign(qps_.size(), 0);
    completed_ = 0;
    for (size_t q = 0; q < qps_.size(); ++q) {
      for (int64_t i = 0; i < std::min(depth_, iters_); ++i) {
        post(host, q);
      }
    }
  }
  void end_size(Host& host) {
    rows_.push_back(kind_ == Kind::kBw ? bw_row() : lat_row());
    if (++size_ < sizes_.size()) {
      begin_size(host);
    } else {
      host.release();
    }
  }
  Row bw_row() const {
    Row r;
    r.bytes = sizes_[size_].count();
    r.iterations = iters_ * static_cast<int64_t>(qps_.size());  // perftest counts every QP's (num_of_calculated_iters)
    const double n = static_cast<double>(tcompleted_.size());
    const double span = (tcompleted_.back() - tposted_.front()).sec_f();
    r.bw_avg = static_cast<double>(r.bytes) * n * 8 / span / 1e9;
    r.msg_rate = n / span / 1e6;
    const size_t step = std::min<size_t>(100, tcompleted_.size());
    double best = (tcompleted_[0] - tposted_[0]).sec_f();
    for (size_t i = 0; i < tposted_.size(); ++i) {
      for (size_t j = i + step - 1; j < tcompleted_.size(); j += step) {
        best = std::min(best, (tcompleted_[j] - tposted_[i]).sec_f() / static_cast<double>(j - i + 1));
      }
    }
    r.bw_peak = static_cast<double>(r.bytes) * 8 / best / 1e9;
    return r;
  }
  Row lat_row() const {
    Row r;
    r.bytes = sizes_[size_].count();
    r.iterations = iters_;
    std::vector<double> d;
    for (size_t i = 0; i + 1 < tposted_.size(); ++i) {
      d.push_back((tposted_[i + 1] - tposted_[i]).ps() / 1e6 / factor_);
    }
    std::sort(d.begin(), d.end());
    if (d.size() > 2) {
      d.resize(d.size() - 2);  // perftest drops the two largest (LAT_MEASURE_TAIL)
    }
    const size_t n = d.size();
    r.t_min = d.front();
    r.t_max = d.back();
    r.t_typical = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
    double sum = 0, sq = 0;
    for (double x : d) {
      sum += x;
    }
    r.t_avg = sum / static_cast<double>(n);
    for (double x : d) {
      sq += (x - r.t_avg) * (x - r.t_avg);
    }
    r.t_stdev = std::sqrt(sq / static_cast<double>(n));
    const auto rank = [&](double q) { return d[std::max<size_t>(1, static_cast<size_t>(std::ceil(q * n))) - 1]; };
    r.p99 = rank(0.99);
    r.p999 = rank(0.999);
    return r;
  }

  RdmaOp op_;
  Kind kind_;
  std::vector<Bytes> sizes_;
  int64_t iters_, depth_;
  uint16_t workload_;
  int factor_;  // a latency sample is this many one-way times
  std::vector<uint32_t> qps_;
  std::vector<size_t> slot_;  // host QP handle -> index in qps_
  std::vector<int64_t> posted_;
  int64_t completed_ = 0;
  size_t size_ = 0;
  std::vector<Time> tposted_, tcompleted_;
  std::vector<Row> rows_;
  std::optional<std::pair<int64_t, WcStatus>> failure_;
};

// The server side: in the ping-pong tests it answers each message with one of the same size.
class PerftestServer final : public Application {
 public:
  PerftestServer(RdmaOp op, uint16_t workload, bool reply) : op_(op), workload_(workload), reply_(reply) {}
  void on_completion(Host& host, const Completion& c) override {
    if (c.kind == WcKind::kSend || !reply_) {
      return;
    }
    WorkRequest wr;
    wr.op = op_;
    wr.size = Bytes(c.bytes);
    wr.workload = workload_;
    wr.signaled = false;
    host.post(c.qp, wr);
  }

 private:
  RdmaOp op_;
  uint16_t workload_;
  bool reply_;
};

struct Pair {
  uint32_t client = 0, server = 0;
  const PerftestClient* app = nullptr;
};

// perftest.txt and perftest.csv (the tables ib_write_bw and its kin print), and summary.json's perftest rows.
class PerftestReport final : public Output {
 public:
  PerftestReport(std::string test, Kind kind, std::vector<Pair> pairs, const Network& net, int64_t qps, int64_t depth,
                 std::string workload, std::vector<Bytes> sizes)
      : test_(std::move(test)),
        kind_(kind),
        pairs_(std::move(pairs)),
        qps_(qps),
        depth_(depth),
        workload_(std::move(workload)),
        sizes_(std::move(sizes)) {
    for (const Pair& p : pairs_) {
      names_.push_back({net.nics()[p.client]->name(), net.nics()[p.server]->name()});
      csv_names_.push_back({csv_field(names_.back().first), csv_field(names_.back().second)});
      const Host& h = net.server_of(p.client);
      for (size_t k = 0; k < h.num_nics(); ++k) {
        if (h.endpoint(k) == p.client) {
          devices_.push_back("mlx5_" + std::to_string(k));
        }
      }
    }
    mtu_ = net.mtu();
    infiniband_ = net.fabric() == wire::Fabric::kInfiniband;
    max_rd_atomic_ = net.nic_params().max_rd_atomic;
  }
  OutputFiles files(const OutputContext&) override {
    std::string txt, csv =
                         "test,client,server,bytes,iterations,bw_peak_gbps,bw_average_gbps,msg_rate_mpps,t_min_us,"
                         "t_max_us,t_typical_us,t_avg_us,t_stdev_us,p99_us,p999_us\n";
    for (size_t i = 0; i < pairs_.size(); ++i) {
      const auto& [cn, sn] = names_[i];
      txt += fmt::format("# ib_{} (rocesim): client {} (host {}), server {} (host {}){}\n", test_, cn, pairs_[i].client,
                         sn, pairs_[i].server,
                         kind_ == Kind::kLat ? "; no jitter is modelled: on an idle path every iteration takes the "
                                               "same time (t_min = t_max, t_stdev 0)"
                                             : "");
      txt += banner(i);
      txt += kDashes;
      if (kind_ == Kind::kBw) {
        txt += " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n";
      } else {
        txt +=
            " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   "
            "99% percentile[usec]   99.9% percentile[usec] \n";
      }
      for (const Row& r : pairs_[i].app->rows()) {
        if (kind_ == Kind::kBw) {
          // REPORT_FMT, or REPORT_FMT_EXT below 0.1 Gb/s (perftest 4.5, print_full_bw_report).
          txt += r.bw_avg < 0.1
                     ? fmt::format(" {:<7}    {}           {:<7.6f}            {:<7.6f}            {:<7.6f}\n", r.bytes,
                                   r.iterations, r.bw_peak, r.bw_avg, r.msg_rate)
                     : fmt::format(" {:<7}    {:<10}       {:<7.2f}            {:<7.2f}\t\t   {:<7.6f}\n", r.bytes,
                                   r.iterations, r.bw_peak, r.bw_avg, r.msg_rate);
          csv += fmt::format("{},{},{},{},{},{:.4f},{:.4f},{:.6f},,,,,,,\n", test_, csv_names_[i].first,
                             csv_names_[i].second, r.bytes, r.iterations, r.bw_peak, r.bw_avg, r.msg_rate);
        } else {
          txt += fmt::format(
              " {:<7} {}          {:<7.2f}        {:<7.2f}      {:<7.2f}  \t       {:<7.2f}     \t{:<7.2f}\t\t{:<7.2f} "
              "\t\t{:<7.2f}\n",
              r.bytes, r.iterations, r.t_min, r.t_max, r.t_typical, r.t_avg, r.t_stdev, r.p99, r.p999);
          csv += fmt::format("{},{},{},{},{},,,,{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f}\n", test_,
                             csv_names_[i].first, csv_names_[i].second, r.bytes, r.iterations, r.t_min, r.t_max,
                             r.t_typical, r.t_avg, r.t_stdev, r.p99, r.p999);
        }
      }
      if (const auto f = pairs_[i].app->failure()) {
        txt += fmt::format(" Completion with error at client ({}, at {} bytes): the test stopped\n",
                           to_string(f->second), f->first);
      }
      txt += kDashes;
    }
    return {{"perftest.txt", txt}, {"perftest.csv", csv}};
  }
  nlohmann::json summary(const RunInfo&) const override {
    nlohmann::json j = nlohmann::json::array();
    for (size_t i = 0; i < pairs_.size(); ++i) {
      for (const Row& r : pairs_[i].app->rows()) {
        nlohmann::json row = {{"test", test_},
                              {"client", names_[i].first},
                              {"server", names_[i].second},
                              {"bytes", r.bytes},
                              {"iterations", r.iterations}};
        if (kind_ == Kind::kBw) {
          row["bw_peak_gbps"] = r.bw_peak;
          row["bw_average_gbps"] = r.bw_avg;
          row["msg_rate_mpps"] = r.msg_rate;
        } else {
          row["t_typical_us"] = r.t_typical;
          row["t_avg_us"] = r.t_avg;
          row["p99_us"] = r.p99;
          row["p999_us"] = r.p999;
        }
        j.push_back(row);
      }
    }
    nlohmann::json out = {{"perftest", j}};
    if (const std::vector<std::string> cut = notes(); !cut.empty()) {
      out["warnings"] = cut;
    }
    return out;
  }
  // Sizes the run's stop came before (perftest itself always runs every size).
  std::vector<std::string> notes() const override {
    std::vector<std::string> out;
    for (size_t i = 0; i < pairs_.size(); ++i) {
      const size_t done = pairs_[i].app->rows().size();
      if (pairs_[i].app->failure() || done >= sizes_.size()) {
        continue;
      }
      std::string cut;
      for (size_t k = done; k < sizes_.size(); ++k) {
        cut += (cut.empty() ? "" : ", ") + std::to_string(sizes_[k].count());
      }
      out.push_back(fmt::format("{} (ib_{} {} -> {}): the run's stop came before sizes {} B were done; raise stop",
                                workload_, test_, names_[i].first, names_[i].second, cut));
    }
    return out;
  }

 private:
  std::string test_;
  Kind kind_;
  std::vector<Pair> pairs_;
  std::vector<std::pair<std::string, std::string>> names_;      // (client, server) per pair
  std::vector<std::pair<std::string, std::string>> csv_names_;  // the same as CSV fields
  int64_t qps_, depth_;
  std::string workload_;
  std::vector<Bytes> sizes_;
  std::vector<std::string> devices_;  // per pair: the client's NIC as perftest's -d names it
  int64_t mtu_ = 0, max_rd_atomic_ = 0;
  bool infiniband_ = false;

  // perftest's banner (ctx_print_test_info, perftest 4.5 as Debian 12 ships it): the test, the device, the queue
  // pairs, MTU and link type, after a line of dashes (the caller adds the one that closes it).
  std::string banner(size_t pair) const {
    const std::string verb = test_.substr(0, test_.find('_'));
    std::string t(kDashes);
    t += fmt::format("                    {} {} Test\n",
                     verb == "write"  ? "RDMA_Write"
                     : verb == "read" ? "RDMA_Read"
                                      : "Send",
                     kind_ == Kind::kBw ? "BW" : "Latency");
    t += fmt::format(" Dual-port       : OFF\t\tDevice         : {}\n", devices_[pair]);
    t += fmt::format(" Number of qps   : {}\t\tTransport type : IB\n", qps_);
    t += " Connection type : RC\t\tUsing SRQ      : OFF\n";
    t += " PCIe relax order: ON\n";
    t += " ibv_wr* API     : ON\n";
    t += fmt::format(" TX depth        : {}\n", depth_);
    if (kind_ == Kind::kBw) {
      t += " CQ Moderation   : 1\n";  // every work request signaled, as the model completes each
    }
    t += fmt::format(" Mtu             : {}[B]\n", mtu_);
    t += fmt::format(" Link type       : {}\n", infiniband_ ? "IB" : "Ethernet");
    t += verb == "read" ? fmt::format(" Outstand reads  : {}\n", max_rd_atomic_) : " Max inline data : 0[B]\n";
    t += " rdma_cm QPs\t : OFF\n";
    t += " Data ex. method : Ethernet\n";
    return t;
  }
};

// "0:1, 2:3" -> pairs; errors name the key.
std::vector<Pair> parse_pairs(const PerftestParams& p, const YAML::Node& n, const ParseCtx& ctx,
                              const std::string& path, const WorkloadContext& wc) {
  std::vector<Pair> out;
  const bool servers = p.device >= 0;
  const auto count = static_cast<int64_t>(servers ? wc.server_nics.size() : wc.hosts);
  const auto check = [&](int64_t h, const std::string& key, const YAML::Node& at) {
    if (h < 0 || h >= count) {
      throw InputError(ctx.file, line_of(at), path + "." + key,
                       std::string(servers ? "server " : "host ") + std::to_string(h) + " does not exist (0.." +
                           std::to_string(count - 1) + ")");
    }
    if (servers && p.device >= static_cast<int64_t>(wc.server_nics[h].size())) {
      throw InputError(ctx.file, line_of(n["device"]), path + ".device",
                       "server " + std::to_string(h) + " has " + std::to_string(wc.server_nics[h].size()) +
                           " NIC(s), mlx5_0..mlx5_" + std::to_string(wc.server_nics[h].size() - 1) +
                           "; there is no mlx5_" + std::to_string(p.device));
    }
  };
  if (p.pairs.empty()) {
    check(p.client, "client", n["client"]);
    check(p.server, "server", n["server"]);
    out.push_back({static_cast<uint32_t>(p.client), static_cast<uint32_t>(p.server)});
  } else {
    std::stringstream ss(p.pairs);
    std::string item;
    while (std::getline(ss, item, ',')) {
      int64_t c = -1, s = -1;
      char colon = 0, extra = 0;
      std::stringstream is(item);
      if (!(is >> c >> colon >> s) || colon != ':' || (is >> extra)) {
        throw InputError(ctx.file, line_of(n["pairs"]), path + ".pairs",
                         "'" + item + "' is not CLIENT:SERVER (host numbers, e.g. \"0:8, 1:9\")");
      }
      check(c, "pairs", n["pairs"]);
      check(s, "pairs", n["pairs"]);
      for (const Pair& seen : out) {
        if (seen.client == static_cast<uint32_t>(c) && seen.server == static_cast<uint32_t>(s)) {
          throw InputError(ctx.file, line_of(n["pairs"]), path + ".pairs",
                           "pair " + std::to_string(c) + ":" + std::to_string(s) +
                               " is given twice; give each once (qps sets queue pairs per pair)");
        }
      }
      out.push_back({static_cast<uint32_t>(c), static_cast<uint32_t>(s)});
    }
  }
  if (servers) {  // server numbers become the chosen NIC of each
    for (Pair& pr : out) {
      pr.client = wc.server_nics[pr.client][static_cast<size_t>(p.device)];
      pr.server = wc.server_nics[pr.server][static_cast<size_t>(p.device)];
    }
  }
  for (const Pair& pr : out) {
    if (pr.client == pr.server) {
      throw InputError(ctx.file, line_of(n), path + (p.pairs.empty() ? ".server" : ".pairs"),
                       "client and server are the same host (" + std::to_string(pr.client) + ")");
    }
  }
  return out;
}

WorkloadFlows generate_perftest(const YAML::Node& node, const ParseCtx& ctx, const std::string& path,
                                const WorkloadContext& wc, Rng&) {
  // `sizes: all` is expanded in the scenario's own tree (a clone would lose the line numbers errors name).
  YAML::Node n = node;
  if (n["sizes"] && n["sizes"].IsScalar() && n["sizes"].Scalar() == "all") {  // perftest -a: 2 B .. 8 MiB
    YAML::Node all(YAML::NodeType::Sequence);
    for (int i = 1; i < 24; ++i) {
      all.push_back(std::to_string(int64_t{1} << i) + "B");
    }
    n["sizes"] = all;
  }
  PerftestParams p = PerftestParams::schema().parse(n, ctx, path);
  const bool bw = p.test.size() > 3 && p.test.substr(p.test.size() - 3) == "_bw";
  if (p.sizes.empty()) {
    throw InputError(ctx.file, line_of(n["sizes"]), path + ".sizes", "needs at least one size");
  }
  for (Bytes b : p.sizes) {
    if (b.count() < 1 || b.count() > kMaxMessageBytes) {
      throw InputError(ctx.file, line_of(n["sizes"]), path + ".sizes",
                       to_string(b) + " is not a message size (1 B to 2 GiB, the RDMA message limit)");
    }
  }
  if (!bw && p.qps > 1) {
    throw InputError(ctx.file, line_of(n["qps"]), path + ".qps", "perftest's latency tests use one queue pair");
  }
  if (p.iterations == 0) {
    p.iterations = p.test == "write_bw" ? 5000 : 1000;
  }
  if (p.tx_depth == 0) {
    p.tx_depth = bw ? 128 : 1;
  }
  if (!bw && p.tx_depth != 1) {
    throw InputError(ctx.file, line_of(n["tx_depth"]), path + ".tx_depth",
                     "latency tests keep one message in flight (tx_depth 1)");
  }
  if (!bw && p.iterations < 2) {
    throw InputError(ctx.file, line_of(n["iterations"]), path + ".iterations",
                     "a latency test needs at least 2 iterations (a sample is the time between two posts)");
  }
  const std::vector<Pair> pairs = parse_pairs(p, n, ctx, path, wc);
  WorkloadFlows out;
  out.resolved = PerftestParams::schema().dump(p);
  const std::string verb = p.test.substr(0, p.test.find('_'));
  const RdmaOp op = verb == "write" ? RdmaOp::kWrite : verb == "send" ? RdmaOp::kSend : RdmaOp::kRead;
  const Kind kind = bw ? Kind::kBw : Kind::kLat;
  out.install = [p, pairs, op, kind](Network& net, uint16_t workload) -> std::shared_ptr<Output> {
    std::vector<Pair> done = pairs;
    const int factor = kind == Kind::kLat && op != RdmaOp::kRead ? 2 : 1;  // a ping-pong's reply
    const int64_t messages = p.iterations * static_cast<int64_t>(p.sizes.size());
    for (Pair& pr : done) {
      Host& ch = net.server_of(pr.client);
      Host& sh = net.server_of(pr.server);
      auto client = std::make_unique<PerftestClient>(op, kind, p.sizes, p.iterations, p.tx_depth, workload, factor);
      PerftestClient* c = client.get();
      const uint32_t capp = ch.add_app(std::move(client));
      const uint32_t sapp = sh.add_app(std::make_unique<PerftestServer>(op, workload, kind == Kind::kLat));
      Network::ConnectOptions o;
      o.priority = static_cast<int>(p.priority);
      o.a_sends = op != RdmaOp::kRead;
      o.b_sends = kind == Kind::kLat && op != RdmaOp::kRead;
      o.a_reads = op == RdmaOp::kRead;
      o.notify_landed = kind == Kind::kLat && op == RdmaOp::kWrite;
      for (int64_t q = 0; q < p.qps; ++q) {
        const auto [qa, qb] = net.connect(pr.client, capp, pr.server, sapp, o);
        c->add_qp(qa);
        if (op == RdmaOp::kSend) {  // receive buffers for every SEND, posted before the test
          sh.post_recv(qb, messages, Time());
          if (o.b_sends) {
            ch.post_recv(qa, messages, Time());
          }
        }
      }
      ch.hold();  // released when the last size is done
      ch.after(p.start, capp, 0);
      pr.app = c;
    }
    // What the test will post, for `rocesim validate`: every size's iterations on every QP of every pair, and a
    // ping-pong's replies.
    ExpectedTraffic e;
    const double per_size = static_cast<double>(p.iterations * p.qps * factor);
    for (const Pair& pr : done) {
      const auto hops = static_cast<double>(net.path(pr.client, pr.server, 0).size());
      for (Bytes b : p.sizes) {
        e.perftest_messages += per_size;
        e.perftest_bytes += per_size * static_cast<double>(b.count());
        e.packet_hops += per_size * static_cast<double>((b.count() + net.mtu() - 1) / net.mtu()) * hops;
      }
    }
    net.expect(e);
    return std::make_shared<PerftestReport>(p.test, kind, done, net, p.qps, p.tx_depth,
                                            "workload." + std::to_string(workload), p.sizes);
  };
  return out;
}

}  // namespace

static WorkloadEntry perftest_workload() {
  return {"perftest", "linux-rdma perftest: ib_write_bw, ib_read_lat, ...", generate_perftest,
          describe_schema<PerftestParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> perftest_workload_registered(workload_registry(), perftest_workload());
}  // namespace

}  // namespace rocesim
