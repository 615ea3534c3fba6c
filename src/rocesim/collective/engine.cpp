#include "rocesim/collective/engine.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "rocesim/cluster/network.hpp"

namespace rocesim {

class CollectiveApp;

class CollectiveGroup {
 public:
  explicit CollectiveGroup(std::vector<RankPlace> ranks) : layout(std::move(ranks)) {}
  GroupLayout layout;
  ProtocolParams proto;
  bool gpudirect = true;
  Time memcpy_latency;
  std::array<std::shared_ptr<const CollectiveAlgorithm>, 5> by_op;  // the algorithm each operation runs
  size_t instances = 0;
  uint16_t workload = 0;                   // the scenario's workload it runs
  std::vector<const CollectiveApp*> apps;  // per server of the group, for results
};

namespace {

// Cookie of a transfer or timer: what it is (the low kTagBits) and whose (the value above them).
enum Tag : uint64_t { kPassDone, kArrive, kCredit, kPhaseTimer, kBegin };
constexpr int kTagBits = 4;
uint64_t cookie(Tag t, uint64_t v) { return v << kTagBits | t; }
Tag tag_of(uint64_t c) { return static_cast<Tag>(c & ((uint64_t{1} << kTagBits) - 1)); }
uint64_t value_of(uint64_t c) { return c >> kTagBits; }

// A kPassDone's value: the local rank and its runner whose pass ended.
struct PassDoneArg {
  static constexpr int kRunnerBits = 20;
  uint32_t rank = 0;
  uint32_t runner = 0;
  uint64_t encode() const { return uint64_t{rank} << kRunnerBits | runner; }
  static PassDoneArg decode(uint64_t v) {
    return {static_cast<uint32_t>(v >> kRunnerBits), static_cast<uint32_t>(v & ((uint64_t{1} << kRunnerBits) - 1))};
  }
};

template <class F>
void each(const std::array<uint32_t, 3>& links, F f) {
  for (uint32_t l : links) {
    if (l != kNoLink) {
      f(l);
    }
  }
}

}  // namespace

class CollectiveApp final : public Application {
 public:
  CollectiveApp(const CollectiveGroup& g, std::vector<uint32_t> local_ranks, std::vector<Phase> program)
      : g_(g), program_(std::move(program)) {
    for (uint32_t r : local_ranks) {
      RankState s;
      s.rank = r;
      s.gpu = g.layout.ranks[r].gpu;
      ranks_.push_back(std::move(s));
    }
    link_.resize(g.layout.slots[g.layout.rank_server[ranks_.front().rank]]);
    times_.resize(ranks_.size());
    phase_ends_.resize(ranks_.size());
  }
  void set_self(uint32_t id) { self_ = id; }
  // Link `cl`'s end at this server (the sender's if `sending`): the slot its counters live in, and what a pass
  // needs of it, so that the run never reads the group's link table.
  void attach(const CollLink& cl, bool sending, uint32_t to_gpu) {
    const uint32_t slot = sending ? cl.slot_from : cl.slot_to;
    LinkState& ls = link_[slot];
    ls.window = cl.window;
    ls.net = cl.net;
    ls.to_gpu = to_gpu;
    if (cl.net) {
      ls.receiver = !sending;
      ls.qp = sending ? cl.qp_from : cl.qp_to;
      if (handle_slot_.size() <= ls.qp) {
        handle_slot_.resize(ls.qp + 1, UINT32_MAX);
      }
      handle_slot_[ls.qp] = slot;
    }
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
  // When each local rank ended each phase.
  const std::vector<std::vector<Time>>& phase_ends() const { return phase_ends_; }

  void on_timer(Host& host, uint64_t c) override { dispatch(host, c); }
  void on_transfer(Host& host, uint64_t c) override { dispatch(host, c); }
  // The link slot a slice's arrival or a credit updates, the runner whose pass ends.
  void prefetch(uint64_t c) const override {
    const uint64_t v = value_of(c);
    switch (tag_of(c)) {
      case kArrive:
      case kCredit: {
        const LinkState& ls = link_[v];
        __builtin_prefetch(&ls);
        __builtin_prefetch(reinterpret_cast<const char*>(&ls) + 64);
        break;
      }
      case kPassDone: {
        const auto [rank, runner] = PassDoneArg::decode(v);
        prefetch_runner(rank, runner);
        break;
      }
      default:
        break;
    }
  }
  void prefetch_runner(uint32_t lr, uint32_t ri) const {
    const std::vector<RunnerState>& runners = ranks_[lr].runners;
    if (ri < runners.size()) {
      __builtin_prefetch(&runners[ri]);
      __builtin_prefetch(reinterpret_cast<const char*>(&runners[ri]) + 64);
    }
  }
  void on_completion(Host& host, const Completion& c) override {
    if (c.kind != WcKind::kRecv || c.qp >= handle_slot_.size() || handle_slot_[c.qp] == UINT32_MAX) {
      return;
    }
    const uint32_t l = handle_slot_[c.qp];
    const LinkState& ls = link_[l];
    if (ls.receiver) {  // data arrived for one of our ranks
      if (g_.gpudirect) {
        host.after(g_.proto.net_hop, self_, cookie(kArrive, l));
      } else {  // staged: copy from host memory to the GPU
        host.add_cpu(g_.memcpy_latency);
        host.transfer(Place::host(), Place::gpu(ls.to_gpu), Bytes(c.bytes), g_.memcpy_latency + g_.proto.net_hop, self_,
                      cookie(kArrive, l));
      }
    } else {
      credit(host, l);
    }
  }

 private:
  struct RunnerState {
    explicit RunnerState(Runner r) : items(std::move(r)) {
      if (!items.empty()) {
        cur = items.runs()[0].item;
        left = items.runs()[0].count;
      }
    }
    Runner items;       // its links named by this server's slots (CollectiveApp::begin_call)
    Item cur;           // the current item and how many times it is left, kept beside the counters: the runs
    uint64_t left = 0;  // sit elsewhere in memory, read only when one run ends
    size_t pos = 0;     // items done
    size_t run = 0;     // the run of items.runs() that `cur` is of
    bool busy = false;
    bool finished = false;
    int pending = 0;  // transfers of the current item not yet done

    const Item& current() const { return cur; }
    void next() {
      ++pos;
      if (--left == 0 && ++run < items.runs().size()) {
        cur = items.runs()[run].item;
        left = items.runs()[run].count;
      }
    }
  };
  struct RankState {
    uint32_t rank = 0;
    uint32_t gpu = 0;
    int phase = -1;
    size_t call = 0;        // the collective being run in the phase
    uint32_t instance = 0;  // that call's instance number (collectives.csv)
    int stage = 0;          // 1: the phase's first compute; 2: its collectives and the compute beside them
    int waiting = 0;        // parts of the stage not yet done
    std::vector<RunnerState> runners;
    size_t runners_left = 0;
    std::vector<uint32_t> gated;  // runners waiting for another runner's items
  };
  // Per link with an end here, that end's counters (both ends' when both ranks are here) and what a pass needs of
  // the link (attach()). A pass touches its links' state and nothing of the group's.
  struct alignas(64) LinkState {
    int64_t sent = 0, freed = 0;        // sender: slices sent, slots the receiver freed
    int64_t arrived = 0, consumed = 0;  // receiver
    int64_t window = 1;                 // slots at the receiver
    uint32_t qp = 0;                    // between servers: this end's queue pair
    uint32_t to_gpu = 0;                // the receiving rank's GPU
    bool net = false;                   // between servers
    bool receiver = false;              // between servers: this end receives
    std::vector<std::pair<uint32_t, uint32_t>> waiting_sender, waiting_receiver;  // (local rank, runner)
  };

  void dispatch(Host& host, uint64_t c) {
    const uint64_t v = value_of(c);
    switch (tag_of(c)) {
      case kPassDone: {
        const auto [rank, runner] = PassDoneArg::decode(v);
        transfer_done(host, rank, runner);
        break;
      }
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
  // The state of this server's slot `l` (items name links by slot).
  LinkState& link(uint32_t l) { return link_[l]; }
  void credit(Host& host, uint32_t l) {
    LinkState& ls = link_[l];
    ++ls.freed;
    wake(host, ls.waiting_sender);
  }
  // Lets the runners waiting on `list` try again; those that must wait on it again join it anew, after the ones
  // woken now are gone (the list keeps its memory).
  void wake(Host& host, std::vector<std::pair<uint32_t, uint32_t>>& list) {
    const size_t n = list.size();
    for (size_t i = 0; i < n; ++i) {
      const auto [lr, ri] = list[i];
      if (ri < ranks_[lr].runners.size()) {
        advance(host, lr, ri);
      }
    }
    list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(n));
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
    if (s.phase >= 0) {
      phase_ends_[lr].push_back(host.now());
    }
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
    s.instance = static_cast<uint32_t>(times_[lr].size() - 1);
    host.after(g_.proto.base_latency, self_, cookie(kBegin, lr));
  }
  void begin_call(Host& host, uint32_t lr) {
    RankState& s = ranks_[lr];
    const CollectiveCall& call = program_[static_cast<size_t>(s.phase)].calls[s.call];
    s.runners.clear();
    for (Runner& items : g_.by_op[static_cast<size_t>(call.op)]->runners(s.rank, call)) {
      items.rewrite_items([this](Item& it) {
        for (uint32_t& l : it.in) {
          l = l == kNoLink ? l : g_.layout.links[l].slot_to;
        }
        for (uint32_t& l : it.out) {
          l = l == kNoLink ? l : g_.layout.links[l].slot_from;
        }
      });
      s.runners.emplace_back(std::move(items));
    }
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
    s.gated.clear();
    ++s.call;
    start_call(host, lr);
  }

  // Works through a runner's items until one has to wait.
  void advance(Host& host, uint32_t lr, uint32_t ri) {
    RankState& s = ranks_[lr];
    RunnerState& run = s.runners[ri];
    while (!run.busy && run.pos < run.items.size()) {
      const Item& it = run.current();
      if (it.after_runner != kNoLink && s.runners[it.after_runner].pos < it.after_items) {
        s.gated.push_back(ri);
        return;
      }
      for (uint32_t l : it.in) {
        if (l != kNoLink && link(l).arrived <= link(l).consumed) {
          link(l).waiting_receiver.push_back({lr, ri});
          return;
        }
      }
      for (uint32_t l : it.out) {
        if (l != kNoLink && link(l).sent - link(l).freed >= link(l).window) {
          link(l).waiting_sender.push_back({lr, ri});
          return;
        }
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
  // The item's work on the GPU, as fluid transfers side by side: the reduction of each received slice, the write
  // to each receiver in the server, and (staged) the copy to host memory before the sends between servers.
  void start_pass(Host& host, uint32_t lr, uint32_t ri, const Item& it) {
    const uint32_t gpu = ranks_[lr].gpu;
    const uint64_t done = cookie(kPassDone, PassDoneArg{lr, ri}.encode());
    Interconnect& ic = host.interconnect();
    const ServerModel& m = ic.model();
    const Bytes bytes(it.bytes);
    // The first transfer pipelines the first reduction with the first write (or the staging copy).
    std::vector<uint16_t>& first = first_;
    first.clear();
    int extra_inputs = -1;
    each(it.in, [&](uint32_t) { ++extra_inputs; });
    if (it.reduce) {
      first.push_back(m.reduce(gpu));
    }
    Time first_latency;
    bool merged = false;  // a write or copy rides in the first transfer
    bool staged = false;
    int started = 0;
    const auto launch = [&](const std::vector<uint16_t>& path, Bytes b, Time latency) {
      ++started;
      ic.start(path, b, latency, self_, done);
    };
    std::vector<uint16_t>& p = path_;
    each(it.out, [&](uint32_t l) {
      LinkState& out = link_[l];
      ++out.sent;
      Time latency;
      p.clear();
      if (!out.net) {
        m.path(Place::gpu(gpu), Place::gpu(out.to_gpu), p);
      } else if (!g_.gpudirect && !staged) {  // staged: one copy to host memory for every send between servers
        staged = true;
        m.path(Place::gpu(gpu), Place::host(), p);
        latency = g_.memcpy_latency;
        host.add_cpu(g_.memcpy_latency);
      } else {
        return;
      }
      if (!merged) {
        merged = true;
        first.insert(first.end(), p.begin(), p.end());
        first_latency = latency;
      } else {
        launch(p, bytes, latency);
      }
    });
    if (it.reduce && extra_inputs > 0) {
      p.assign(1, m.reduce(gpu));
      launch(p, Bytes(it.bytes * extra_inputs), Time());
    }
    if (!first.empty() || started == 0) {
      launch(first, first.empty() ? Bytes(0) : bytes, first_latency);
    }
    ranks_[lr].runners[ri].pending = started;
  }
  void transfer_done(Host& host, uint32_t lr, uint32_t ri) {
    if (--ranks_[lr].runners[ri].pending == 0) {
      pass_done(host, lr, ri);
    }
  }
  void pass_done(Host& host, uint32_t lr, uint32_t ri) {
    RankState& s = ranks_[lr];
    RunnerState& run = s.runners[ri];
    const Item it = run.current();
    const uint32_t instance = s.instance;
    each(it.out, [&](uint32_t l) {
      const LinkState& out = link_[l];
      if (!out.net) {
        const bool nvl = host.model().params().nvswitch;
        host.after(nvl ? g_.proto.nvlink_hop : g_.proto.pcie_hop, self_, cookie(kArrive, l));
      } else {
        WorkRequest wr;
        wr.op = RdmaOp::kWriteImm;
        wr.size = Bytes(std::max<int64_t>(1, it.bytes));
        wr.signaled = false;
        wr.workload = workload_;
        wr.group = instance;
        host.post(out.qp, wr);
      }
    });
    each(it.in, [&](uint32_t l) {
      LinkState& in = link_[l];
      ++in.consumed;
      if (!in.net) {
        credit(host, l);
      } else {
        WorkRequest wr;
        wr.op = RdmaOp::kWriteImm;
        wr.size = g_.proto.credit_message;
        wr.signaled = false;
        wr.workload = workload_;
        wr.group = instance;
        host.post(in.qp, wr);
      }
    });
    run.busy = false;
    run.next();
    // Runners waiting for this one's items may go on, then this one.
    std::vector<uint32_t> gated;
    gated.swap(s.gated);
    for (uint32_t g : gated) {
      if (g < s.runners.size()) {
        advance(host, lr, g);
      }
    }
    if (ri < s.runners.size()) {
      advance(host, lr, ri);
    }
  }

 public:
  uint16_t workload_ = 0;
  size_t ranks_left_ = 0;

 private:
  const CollectiveGroup& g_;
  std::vector<Phase> program_;
  uint32_t self_ = 0;
  std::vector<RankState> ranks_;
  std::vector<LinkState> link_;
  std::vector<uint32_t> handle_slot_;   // per queue pair handle: its link's slot
  std::vector<uint16_t> first_, path_;  // start_pass's paths, kept to keep their memory
  std::vector<std::vector<std::pair<Time, Time>>> times_;
  std::vector<std::vector<Time>> phase_ends_;
};

ExpectedTraffic expected_traffic(const CollectiveGroup& g, const std::vector<Phase>& program,
                                 const std::vector<uint32_t>& hops, int64_t mtu) {
  const auto packets = [mtu](int64_t bytes) {
    return static_cast<double>(std::max<int64_t>(1, (bytes + mtu - 1) / mtu));
  };
  // Equal calls post equal messages: count each distinct call once, over every rank's runners.
  std::map<std::tuple<CollOp, int64_t, uint32_t>, size_t> distinct;
  size_t instances = 0;
  for (const Phase& ph : program) {
    for (const CollectiveCall& call : ph.calls) {
      ++distinct[{call.op, call.bytes.count(), call.root}];
      ++instances;
    }
  }
  ExpectedTraffic total;
  for (const auto& [key, times] : distinct) {
    const auto& [op, bytes, root] = key;
    const CollectiveCall call{op, Bytes(bytes), root};
    const auto k = static_cast<double>(times);
    for (uint32_t r = 0; r < g.layout.size(); ++r) {
      for (const Runner& run : g.by_op[static_cast<size_t>(op)]->runners(r, call)) {
        for (const Runner::Run& x : run.runs()) {
          const double n = static_cast<double>(x.count) * k;
          each(x.item.out, [&](uint32_t l) {  // a slice to another server: one WRITE with immediate
            if (g.layout.links[l].net) {
              total.messages += n;
              total.bytes += n * static_cast<double>(std::max<int64_t>(1, x.item.bytes));
              total.packet_hops += n * packets(x.item.bytes) * hops[l];
            }
          });
          each(x.item.in, [&](uint32_t l) {  // a slice from another server: one credit message back
            if (g.layout.links[l].net) {
              total.messages += n;
              total.bytes += n * static_cast<double>(g.proto.credit_message.count());
              total.packet_hops += n * packets(g.proto.credit_message.count()) * hops[l];
            }
          });
        }
      }
    }
  }
  // Grouped, each call keeps a record per queue pair that carries its messages: data one way, credits back.
  double net_links = 0;
  for (const CollLink& l : g.layout.links) {
    net_links += l.net ? 1 : 0;
  }
  total.groups = 2 * net_links * static_cast<double>(instances);
  return total;
}

std::shared_ptr<const CollectiveGroup> install_collectives(Network& net, const std::vector<RankPlace>& ranks,
                                                           const ProtocolParams& proto,
                                                           const std::vector<Phase>& program, Time start,
                                                           uint16_t workload) {
  auto g = std::make_shared<CollectiveGroup>(ranks);
  g->proto = proto;
  g->workload = workload;
  const Host& first = net.server(ranks.front().server);
  g->gpudirect = first.model().params().gpudirect;
  g->memcpy_latency = first.model().params().memcpy_latency;
  // The algorithms the program needs (algorithm_of).
  const AlgorithmFactory& all_reduce = collective_algorithm_registry().find(proto.algorithm)->make;
  std::shared_ptr<const CollectiveAlgorithm> rings;  // one set for every operation that runs on rings
  for (const Phase& ph : program) {
    g->instances += ph.calls.size();
    for (const CollectiveCall& call : ph.calls) {
      auto& algo = g->by_op[static_cast<size_t>(call.op)];
      if (algo) {
        continue;
      }
      const std::string name = algorithm_of(call.op, proto);
      if (name == "pairwise") {
        algo = make_pairwise(g->layout, proto);
      } else if (name != "ring") {
        algo = all_reduce(g->layout, proto);
      } else {
        if (!rings) {
          rings = make_ring(g->layout, proto);
        }
        algo = rings;
      }
    }
  }
  const GroupLayout& layout = g->layout;
  std::vector<uint32_t> hops(layout.links.size(), 0);
  for (size_t l = 0; l < layout.links.size(); ++l) {
    const CollLink& cl = layout.links[l];
    if (cl.net) {
      hops[l] = static_cast<uint32_t>(net.path(ranks[cl.from].endpoint, ranks[cl.to].endpoint).size());
    }
  }
  net.expect(expected_traffic(*g, program, hops, net.mtu()));
  // One application per server.
  std::vector<CollectiveApp*> app_of(layout.servers.size());
  std::vector<uint32_t> app_id(layout.servers.size());
  for (size_t j = 0; j < layout.servers.size(); ++j) {
    Host& host = net.server(layout.servers[j]);
    auto app = std::make_unique<CollectiveApp>(*g, layout.local[j], program);
    app->workload_ = workload;
    app_of[j] = app.get();
    g->apps.push_back(app.get());
    app_id[j] = host.add_app(std::move(app));
    app_of[j]->set_self(app_id[j]);
    // The NICs read and write GPU memory (GPUDirect) or host memory (staging).
    for (uint32_t r : layout.local[j]) {
      net.point_dma(ranks[r].endpoint, g->gpudirect ? Place::gpu(ranks[r].gpu) : Place::host());
    }
  }
  // Queue pairs for the links between servers: data from the sender, credits back.
  for (uint32_t l = 0; l < g->layout.links.size(); ++l) {
    CollLink& cl = g->layout.links[l];
    if (!cl.net) {
      continue;
    }
    const RankPlace& a = ranks[cl.from];
    const RankPlace& b = ranks[cl.to];
    const size_t ja = layout.rank_server[cl.from], jb = layout.rank_server[cl.to];
    Network::ConnectOptions o;
    o.priority = static_cast<int>(proto.priority);
    o.a_sends = true;
    o.b_sends = true;
    const auto [qa, qb] = net.connect(a.endpoint, app_id[ja], b.endpoint, app_id[jb], o);
    cl.qp_from = qa;
    cl.qp_to = qb;
  }
  for (const CollLink& cl : g->layout.links) {
    const uint32_t to_gpu = ranks[cl.to].gpu;
    app_of[layout.rank_server[cl.from]]->attach(cl, true, to_gpu);
    app_of[layout.rank_server[cl.to]]->attach(cl, false, to_gpu);
  }
  for (size_t j = 0; j < layout.servers.size(); ++j) {
    app_of[j]->begin(net.server(layout.servers[j]), start);
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

std::vector<PhaseEnd> phase_ends(const CollectiveGroup& g, size_t phases) {
  std::vector<PhaseEnd> out(phases);
  for (const CollectiveApp* app : g.apps) {
    for (const auto& rank : app->phase_ends()) {
      for (size_t i = 0; i < rank.size() && i < out.size(); ++i) {
        out[i].last = std::max(out[i].last, rank[i]);
        ++out[i].ranks_done;
      }
    }
  }
  return out;
}

size_t group_size(const CollectiveGroup& g) { return g.layout.size(); }

const ProtocolParams& group_protocol(const CollectiveGroup& g) { return g.proto; }

const std::vector<RankPlace>& group_ranks(const CollectiveGroup& g) { return g.layout.ranks; }

std::vector<ServerUse> server_use(const CollectiveGroup& g, const Network& net) {
  std::vector<ServerUse> out;
  const std::vector<int64_t> dma = net.dma_payload(g.workload);
  for (uint32_t s : g.layout.servers) {
    const Host& host = net.server(s);
    ServerUse u;
    u.server = s;
    u.cpu = host.cpu_busy();
    const Interconnect& ic = host.interconnect();
    const ServerModel& m = ic.model();
    const std::vector<double>& carried = ic.carried();
    u.host_memory_bytes = carried[m.host_memory()];
    for (uint32_t gpu = 0; gpu < m.gpus(); ++gpu) {
      u.nvlink_bytes += carried[m.nvlink_out(gpu)];  // 0 without NVLink: no path holds it
      u.pcie_bytes += carried[m.gpu_pcie(gpu).first] + carried[m.gpu_pcie(gpu).second];
    }
    // With GPUDirect RDMA each NIC reads and writes its GPU's memory across that GPU's PCIe link.
    if (m.params().gpudirect) {
      for (size_t k = 0; k < host.num_nics(); ++k) {
        u.pcie_bytes += static_cast<double>(dma[host.endpoint(k)]);
      }
    }
    out.push_back(u);
  }
  return out;
}

}  // namespace rocesim
