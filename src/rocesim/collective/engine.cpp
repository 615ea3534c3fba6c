#include "rocesim/collective/engine.hpp"

#include <algorithm>
#include <map>

#include "rocesim/cluster/network.hpp"

namespace rocesim {

// A directed connection between two ranks: one ring edge of one channel, or one pair of an all-to-all.
struct CollLink {
  uint32_t from = 0, to = 0;        // ranks
  bool net = false;                 // between servers: over a queue pair
  uint32_t qp_from = 0, qp_to = 0;  // the queue pair's handles at the two servers
};

class CollectiveApp;

class CollectiveGroup {
 public:
  std::vector<RankPlace> ranks;
  ProtocolParams proto;
  bool gpudirect = true;
  Time memcpy_latency;
  std::vector<std::vector<uint32_t>> rings;     // per channel: ranks in ring order
  std::vector<std::vector<uint32_t>> ring_pos;  // per channel: rank -> position
  std::vector<std::vector<uint32_t>> ring_out;  // per channel: rank -> its link to the next rank
  std::vector<uint32_t> pair_link;              // all-to-all: from x n + to -> link
  std::vector<CollLink> links;
  size_t instances = 0;
  std::vector<const CollectiveApp*> apps;  // per server of the group, for results
  std::vector<uint32_t> servers;
};

namespace {

// Cookie of a transfer or timer: what it is and whose.
enum Tag : uint64_t { kPassDone, kArrive, kCredit, kPhaseTimer, kBegin };
uint64_t cookie(Tag t, uint64_t v) { return v << 4 | t; }

// Near-equal blocks of `total` in `parts`, each a multiple of `unit` bytes where possible.
std::vector<int64_t> split(int64_t total, size_t parts, int64_t unit) {
  std::vector<int64_t> out(parts, 0);
  const int64_t units = total / unit, rest = total % unit;
  for (size_t i = 0; i < parts; ++i) {
    out[i] =
        (units / static_cast<int64_t>(parts) + (static_cast<int64_t>(i) < units % static_cast<int64_t>(parts))) * unit;
  }
  out.back() += rest;
  return out;
}

}  // namespace

class CollectiveApp final : public Application {
 public:
  CollectiveApp(const CollectiveGroup& g, std::vector<uint32_t> local_ranks, std::vector<Phase> program,
                uint32_t server)
      : g_(g), program_(std::move(program)), server_(server) {
    for (uint32_t r : local_ranks) {
      RankState s;
      s.rank = r;
      ranks_.push_back(std::move(s));
    }
    link_.resize(g.links.size());
    times_.resize(ranks_.size());
  }
  void set_self(uint32_t id) { self_ = id; }
  void map_handle(uint32_t handle, uint32_t link) {
    if (handle_link_.size() <= handle) {
      handle_link_.resize(handle + 1, UINT32_MAX);
    }
    handle_link_[handle] = link;
  }
  // Starts every local rank's program at `at` (from the host's timers).
  void begin(Host& host, Time at) {
    for (size_t i = 0; i < ranks_.size(); ++i) {
      host.after(at, self_, cookie(kPhaseTimer, i));
      ranks_[i].waiting = 1;
      ranks_[i].phase = -1;
    }
    ranks_left_ = ranks_.size();
    host.hold();
  }
  // (start, end) of each instance on each local rank.
  const std::vector<std::vector<std::pair<Time, Time>>>& times() const { return times_; }

  void on_timer(Host& host, uint64_t c) override { dispatch(host, c); }
  void on_transfer(Host& host, uint64_t c) override { dispatch(host, c); }
  void on_completion(Host& host, const Completion& c) override {
    if (c.kind != WcKind::kRecv || c.qp >= handle_link_.size() || handle_link_[c.qp] == UINT32_MAX) {
      return;
    }
    const uint32_t l = handle_link_[c.qp];
    const CollLink& link = g_.links[l];
    if (g_.ranks[link.to].server == server_ && c.qp == link.qp_to) {  // data arrived for one of our ranks
      if (g_.gpudirect) {
        host.after(g_.proto.net_hop, self_, cookie(kArrive, l));
      } else {  // staged: copy from host memory to the GPU
        const RankPlace& to = g_.ranks[link.to];
        host.add_cpu(g_.memcpy_latency);
        host.transfer(Place::host(), Place::gpu(to.gpu), Bytes(c.bytes), g_.memcpy_latency + g_.proto.net_hop, self_,
                      cookie(kArrive, l));
      }
    } else {
      credit(host, l);
    }
  }

 private:
  struct Item {
    int64_t bytes = 0;
    bool recv = false, reduce = false, send = false;
  };
  struct Runner {
    std::vector<Item> items;
    size_t pos = 0;
    bool busy = false;
    bool finished = false;
    uint32_t in = UINT32_MAX, out = UINT32_MAX;  // links
  };
  struct RankState {
    uint32_t rank = 0;
    int phase = -1;
    size_t call = 0;      // the collective being run in the phase
    int stage = 0;        // 1: the phase's first compute; 2: its collectives and the compute beside them
    int waiting = 0;      // parts of the stage not yet done
    size_t instance = 0;  // of the collective being run
    std::vector<Runner> runners;
    size_t runners_left = 0;
  };
  // Per link, both ends' counters (this server touches only the ends of its own ranks).
  struct LinkState {
    int64_t sent = 0, freed = 0;        // sender: slices sent, slots the receiver freed
    int64_t arrived = 0, consumed = 0;  // receiver
    std::vector<std::pair<uint32_t, uint32_t>> waiting_sender, waiting_receiver;  // (local rank, runner)
  };

  void dispatch(Host& host, uint64_t c) {
    const uint64_t v = c >> 4;
    switch (static_cast<Tag>(c & 15)) {
      case kPassDone:
        pass_done(host, static_cast<uint32_t>(v >> 20), static_cast<uint32_t>(v & 0xFFFFF));
        break;
      case kArrive: {
        LinkState& ls = link_[v];
        ++ls.arrived;
        wake(host, ls.waiting_receiver);
        break;
      }
      case kCredit:
        credit(host, static_cast<uint32_t>(v));
        break;
      case kPhaseTimer:
        phase_part_done(host, static_cast<uint32_t>(v));
        break;
      case kBegin:
        begin_call(host, static_cast<uint32_t>(v));
        break;
    }
  }
  void credit(Host& host, uint32_t l) {
    LinkState& ls = link_[l];
    ++ls.freed;
    wake(host, ls.waiting_sender);
  }
  void wake(Host& host, std::vector<std::pair<uint32_t, uint32_t>>& list) {
    std::vector<std::pair<uint32_t, uint32_t>> w;
    w.swap(list);
    for (const auto& [lr, ri] : w) {
      if (ri < ranks_[lr].runners.size()) {
        advance(host, lr, ri);
      }
    }
  }

  // Phases: the compute before the collectives, then the collectives and the compute beside them.
  void phase_part_done(Host& host, uint32_t lr) {
    if (--ranks_[lr].waiting == 0) {
      next_step(host, lr);
    }
  }
  void next_step(Host& host, uint32_t lr) {
    RankState& s = ranks_[lr];
    // After the first compute of the phase: start the collectives and the compute beside them.
    if (s.phase >= 0 && s.stage == 1) {
      const Phase& ph = program_[static_cast<size_t>(s.phase)];
      s.stage = 2;
      s.waiting = 2;
      host.after(ph.beside, self_, cookie(kPhaseTimer, lr));
      s.call = 0;
      start_call(host, lr);
      return;
    }
    // The phase is over: the next one.
    ++s.phase;
    if (static_cast<size_t>(s.phase) >= program_.size()) {
      if (--ranks_left_ == 0) {
        host.release();
      }
      return;
    }
    s.stage = 1;
    s.waiting = 1;
    host.after(program_[static_cast<size_t>(s.phase)].compute, self_, cookie(kPhaseTimer, lr));
  }
  void start_call(Host& host, uint32_t lr) {
    RankState& s = ranks_[lr];
    const Phase& ph = program_[static_cast<size_t>(s.phase)];
    if (s.call >= ph.calls.size()) {
      phase_part_done(host, lr);
      return;
    }
    times_[lr].push_back({host.now(), Time()});
    host.after(g_.proto.base_latency, self_, cookie(kBegin, lr));
  }
  void begin_call(Host& host, uint32_t lr) {
    RankState& s = ranks_[lr];
    const CollectiveCall& call = program_[static_cast<size_t>(s.phase)].calls[s.call];
    build_runners(s, call);
    s.runners_left = s.runners.size();
    for (uint32_t i = 0; i < s.runners.size(); ++i) {
      advance(host, lr, i);
    }
    if (s.runners.empty()) {
      call_done(host, lr);
    }
  }
  void call_done(Host& host, uint32_t lr) {
    RankState& s = ranks_[lr];
    times_[lr].back().second = host.now();
    s.runners.clear();
    ++s.call;
    start_call(host, lr);
  }

  void build_runners(RankState& s, const CollectiveCall& call) {
    s.runners.clear();
    const size_t n = g_.ranks.size();
    const uint32_t r = s.rank;
    const int64_t unit = 4;  // bytes of one element (float)
    if (n == 1) {
      return;
    }
    if (call.op == CollOp::kAllToAll) {
      const int64_t block = call.bytes.count() / static_cast<int64_t>(n);
      for (uint32_t p = 0; p < n; ++p) {
        if (p == r) {
          continue;
        }
        Runner run;
        run.out = g_.pair_link[r * n + p];
        run.in = g_.pair_link[p * n + r];
        const bool nvl = g_.ranks[p].server == g_.ranks[r].server;
        const int64_t chunk = nvl ? 512 * 1024 : 128 * 1024;  // NCCL's p2p chunks over NVLink and the network
        const int64_t slices = std::max<int64_t>(1, (block + chunk - 1) / chunk);
        const std::vector<int64_t> parts = split(block, static_cast<size_t>(slices), 1);
        for (int64_t b : parts) {
          run.items.push_back({b, false, false, true});
          run.items.push_back({b, true, false, false});
        }
        s.runners.push_back(std::move(run));
      }
      return;
    }
    const size_t channels = g_.rings.size();
    const std::vector<int64_t> per_channel = split(call.bytes.count(), channels, unit);
    for (size_t c = 0; c < channels; ++c) {
      Runner run;
      const uint32_t pos = g_.ring_pos[c][r];
      const uint32_t prev = g_.rings[c][(pos + n - 1) % n];
      run.out = g_.ring_out[c][r];
      run.in = g_.ring_out[c][prev];
      // NCCL's loop: the channel's data goes round the ring a chunk (window / 2 slices) per rank at a time, every
      // step of the algorithm on one chunk before the next (src/device/all_reduce.h); a chunk never needs more
      // than half the slots, so neighbours waiting on each other always find one free.
      const int64_t chunk = std::max<int64_t>(1, g_.proto.window / 2) * g_.proto.slice.count();
      const auto add = [&](int64_t block, int64_t loop, bool recv, bool reduce, bool send) {
        const int64_t bytes = std::clamp<int64_t>(block - loop * chunk, 0, chunk);
        const int64_t slices = std::max<int64_t>(1, (bytes + g_.proto.slice.count() - 1) / g_.proto.slice.count());
        for (int64_t b : split(bytes, static_cast<size_t>(slices), 1)) {
          run.items.push_back({b, recv, reduce, send});
        }
      };
      if (call.op == CollOp::kBroadcast) {
        const uint32_t root_pos = g_.ring_pos[c][call.root];
        const size_t p = (pos + n - root_pos) % n;
        const int64_t loops = std::max<int64_t>(1, (per_channel[c] + chunk - 1) / chunk);
        for (int64_t loop = 0; loop < loops; ++loop) {
          add(per_channel[c], loop, p > 0, false, p + 1 < n);
        }
      } else {
        const std::vector<int64_t> blocks = split(per_channel[c], n, unit);
        const int64_t largest = *std::max_element(blocks.begin(), blocks.end());
        const int64_t loops = std::max<int64_t>(1, (largest + chunk - 1) / chunk);
        const auto block = [&](size_t t) { return blocks[(pos + n * 2 - t) % n]; };
        const size_t n_ops = call.op == CollOp::kAllReduce ? 2 * n - 1 : n;
        for (int64_t loop = 0; loop < loops; ++loop) {
          for (size_t t = 0; t < n_ops; ++t) {
            const bool recv = t > 0, send = t + 1 < n_ops;
            const bool reduce =
                recv && (call.op == CollOp::kAllReduce ? t <= n - 1 : call.op == CollOp::kReduceScatter);
            add(block(t), loop, recv, reduce, send);
          }
        }
      }
      s.runners.push_back(std::move(run));
    }
  }

  // Works through a runner's items until one has to wait.
  void advance(Host& host, uint32_t lr, uint32_t ri) {
    RankState& s = ranks_[lr];
    Runner& run = s.runners[ri];
    while (!run.busy && run.pos < run.items.size()) {
      const Item& it = run.items[run.pos];
      if (it.recv && link_[run.in].arrived <= link_[run.in].consumed) {
        link_[run.in].waiting_receiver.push_back({lr, ri});
        return;
      }
      if (it.send && link_[run.out].sent - link_[run.out].freed >= g_.proto.window) {
        link_[run.out].waiting_sender.push_back({lr, ri});
        return;
      }
      run.busy = true;
      start_pass(host, lr, ri, it);
    }
    if (run.pos == run.items.size() && !run.busy && !run.finished) {
      run.finished = true;
      if (--s.runners_left == 0) {
        call_done(host, lr);
      }
    }
  }
  // The item's work on the GPU: reduce and/or write the slice toward its receiver.
  void start_pass(Host& host, uint32_t lr, uint32_t ri, const Item& it) {
    const RankPlace& me = g_.ranks[ranks_[lr].rank];
    const uint64_t done = cookie(kPassDone, uint64_t{lr} << 20 | ri);
    Interconnect& ic = host.interconnect();
    const ServerModel& m = ic.model();
    std::vector<uint16_t> path;
    if (it.reduce) {
      path.push_back(m.reduce(me.gpu));
    }
    Time latency;
    if (it.send) {
      const CollLink& out = g_.links[ranks_[lr].runners[ri].out];
      ++link_[ranks_[lr].runners[ri].out].sent;
      if (!out.net) {
        const std::vector<uint16_t> p = m.path(Place::gpu(me.gpu), Place::gpu(g_.ranks[out.to].gpu));
        path.insert(path.end(), p.begin(), p.end());
      } else if (!g_.gpudirect) {  // staged: copy to host memory first
        const std::vector<uint16_t> p = m.path(Place::gpu(me.gpu), Place::host());
        path.insert(path.end(), p.begin(), p.end());
        latency = g_.memcpy_latency;
        host.add_cpu(g_.memcpy_latency);
      }
    }
    ic.start(path, Bytes(path.empty() ? 0 : it.bytes), latency, self_, done);
  }
  void pass_done(Host& host, uint32_t lr, uint32_t ri) {
    RankState& s = ranks_[lr];
    Runner& run = s.runners[ri];
    const Item it = run.items[run.pos];
    if (it.send) {
      const uint32_t l = run.out;
      const CollLink& out = g_.links[l];
      if (!out.net) {
        const bool nvl = host.model().params().nvswitch;
        host.after(nvl ? g_.proto.nvlink_hop : g_.proto.pcie_hop, self_, cookie(kArrive, l));
      } else {
        WorkRequest wr;
        wr.op = RdmaOp::kWriteImm;
        wr.size = Bytes(std::max<int64_t>(1, it.bytes));
        wr.signaled = false;
        wr.workload = workload_;
        host.post(out.qp_from, wr);
      }
    }
    if (it.recv) {
      const uint32_t l = run.in;
      ++link_[l].consumed;
      const CollLink& in = g_.links[l];
      if (!in.net) {
        credit(host, l);
      } else {
        WorkRequest wr;
        wr.op = RdmaOp::kWriteImm;
        wr.size = g_.proto.credit_message;
        wr.signaled = false;
        wr.workload = workload_;
        host.post(in.qp_to, wr);
      }
    }
    run.busy = false;
    ++run.pos;
    advance(host, lr, ri);
  }

 public:
  uint16_t workload_ = 0;
  size_t ranks_left_ = 0;

 private:
  const CollectiveGroup& g_;
  std::vector<Phase> program_;
  uint32_t server_;
  uint32_t self_ = 0;
  std::vector<RankState> ranks_;
  std::vector<LinkState> link_;
  std::vector<uint32_t> handle_link_;
  std::vector<std::vector<std::pair<Time, Time>>> times_;
};

}  // namespace rocesim

namespace rocesim {

std::shared_ptr<const CollectiveGroup> install_collectives(Network& net, const std::vector<RankPlace>& ranks,
                                                           const ProtocolParams& proto,
                                                           const std::vector<Phase>& program, Time start,
                                                           uint16_t workload) {
  auto g = std::make_shared<CollectiveGroup>();
  g->ranks = ranks;
  g->proto = proto;
  const Host& first = net.server(ranks.front().server);
  g->gpudirect = first.model().params().gpudirect;
  g->memcpy_latency = first.model().params().memcpy_latency;
  const size_t n = ranks.size();
  for (const Phase& ph : program) {
    g->instances += ph.calls.size();
  }
  // Servers in the group, in rank order, and each server's GPUs in it.
  std::vector<uint32_t> servers;
  std::map<uint32_t, std::vector<uint32_t>> by_server;  // server -> its ranks
  for (uint32_t r = 0; r < n; ++r) {
    if (!by_server.count(ranks[r].server)) {
      servers.push_back(ranks[r].server);
    }
    by_server[ranks[r].server].push_back(r);
  }
  g->servers = servers;
  // Rail-aligned snake rings, one per channel.
  const size_t channels = static_cast<size_t>(proto.channels);
  g->rings.resize(channels);
  g->ring_pos.assign(channels, std::vector<uint32_t>(n, 0));
  g->ring_out.assign(channels, std::vector<uint32_t>(n, 0));
  for (size_t c = 0; c < channels; ++c) {
    for (size_t j = 0; j < servers.size(); ++j) {
      const std::vector<uint32_t>& local = by_server[servers[j]];
      const size_t k = local.size();
      for (size_t i = 0; i < k; ++i) {
        const size_t idx = j % 2 == 0 ? (c + i) % k : (c + k - 1 - i) % k;
        g->rings[c].push_back(local[idx]);
      }
    }
  }
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> made;  // (from, to) -> link, for sharing a queue pair
  const auto link = [&](uint32_t from, uint32_t to) {
    CollLink l;
    l.from = from;
    l.to = to;
    l.net = ranks[from].server != ranks[to].server;
    g->links.push_back(l);
    return static_cast<uint32_t>(g->links.size() - 1);
  };
  for (size_t c = 0; c < channels; ++c) {
    for (uint32_t p = 0; p < n; ++p) {
      g->ring_pos[c][g->rings[c][p]] = p;
    }
    for (uint32_t p = 0; p < n; ++p) {
      g->ring_out[c][g->rings[c][p]] = link(g->rings[c][p], g->rings[c][(p + 1) % n]);
    }
  }
  bool a2a = false;
  for (const Phase& ph : program) {
    for (const CollectiveCall& call : ph.calls) {
      a2a |= call.op == CollOp::kAllToAll;
    }
  }
  if (a2a) {
    g->pair_link.assign(n * n, 0);
    for (uint32_t a = 0; a < n; ++a) {
      for (uint32_t b = 0; b < n; ++b) {
        if (a != b) {
          g->pair_link[a * n + b] = link(a, b);
        }
      }
    }
  }
  // One application per server.
  std::map<uint32_t, CollectiveApp*> app_of;
  std::map<uint32_t, uint32_t> app_id;
  for (uint32_t s : servers) {
    Host& host = net.server(s);
    auto app = std::make_unique<CollectiveApp>(*g, by_server[s], program, s);
    app->workload_ = workload;
    app_of[s] = app.get();
    g->apps.push_back(app.get());
    const uint32_t id = host.add_app(std::move(app));
    app_of[s]->set_self(id);
    app_id[s] = id;
    // The NICs read and write GPU memory (GPUDirect) or host memory (staging).
    for (uint32_t r : by_server[s]) {
      net.point_dma(ranks[r].endpoint, g->gpudirect ? Place::gpu(ranks[r].gpu) : Place::host());
    }
  }
  // Queue pairs for the links between servers: data from the sender, credits back.
  for (uint32_t l = 0; l < g->links.size(); ++l) {
    CollLink& cl = g->links[l];
    if (!cl.net) {
      continue;
    }
    const RankPlace& a = ranks[cl.from];
    const RankPlace& b = ranks[cl.to];
    Network::ConnectOptions o;
    o.priority = static_cast<int>(proto.priority);
    o.a_sends = true;
    o.b_sends = true;
    const auto [qa, qb] = net.connect(a.endpoint, app_id[a.server], b.endpoint, app_id[b.server], o);
    cl.qp_from = qa;
    cl.qp_to = qb;
    app_of[a.server]->map_handle(qa, l);
    app_of[b.server]->map_handle(qb, l);
  }
  for (uint32_t s : servers) {
    app_of[s]->begin(net.server(s), start);
  }
  return g;
}

std::vector<InstanceTimes> instance_times(const CollectiveGroup& g) {
  std::vector<InstanceTimes> out(g.instances);
  for (const CollectiveApp* app : g.apps) {
    for (const auto& rank : app->times()) {
      for (size_t i = 0; i < rank.size() && i < out.size(); ++i) {
        out[i].start = std::min(out[i].start, rank[i].first);
        if (rank[i].second > Time()) {
          out[i].end = std::max(out[i].end, rank[i].second);
          ++out[i].ranks_done;
        }
      }
    }
  }
  return out;
}

size_t group_size(const CollectiveGroup& g) { return g.ranks.size(); }

std::vector<ServerUse> server_use(const CollectiveGroup& g, const Network& net) {
  std::vector<ServerUse> out;
  for (uint32_t s : g.servers) {
    const Host& host = net.server(s);
    ServerUse u;
    u.server = s;
    u.cpu = host.cpu_busy();
    const Interconnect& ic = host.interconnect();
    const ServerModel& m = ic.model();
    for (size_t r = 0; r < m.resources(); ++r) {
      const std::string& name = m.resource_name(r);
      if (name == "host_memory") {
        u.host_memory_bytes += ic.carried()[r];
      } else if (m.is_nvlink(static_cast<uint16_t>(r))) {
        u.nvlink_bytes += name.ends_with(".out") ? ic.carried()[r] : 0;
      } else if (name.starts_with("gpu") && name.ends_with(".pcie.up")) {
        u.pcie_bytes += ic.carried()[r];
      } else if (name.starts_with("gpu") && name.ends_with(".pcie.down")) {
        u.pcie_bytes += ic.carried()[r];
      }
    }
    out.push_back(u);
  }
  return out;
}

}  // namespace rocesim
