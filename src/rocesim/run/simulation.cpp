#include "rocesim/run/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "rocesim/run/outputs.hpp"
#include "rocesim/switch/presets.hpp"
#include "rocesim/workload/offered_load.hpp"

namespace rocesim {

Simulation::Simulation(Scenario sc) : sc_(std::move(sc)) {
  try {
    check_named_results();
    engine_ = std::make_unique<Engine>(static_cast<uint64_t>(sc_.top.seed), plan_partitions(), threads_);
    build();
  } catch (const InputError& e) {
    throw attribute_to_override(e, sc_.overrides);
  }
}

namespace {

// What a run holds, estimated from above (measured: about 3 KB per NIC and switch port on a k=92 fat-tree; 1.0 to
// 1.3 KB per flow with cc none, DCQCN and HPCC for its queue pair, congestion state and record, plus its results
// row; 540-600 B per collective message kept, from 128 to 512 GPUs), with the forwarding tables
// (route_table_bytes). `records`: collective messages' records kept (one per message, or per group).
double estimated_memory(const TopologyGraph& g, size_t flows, double records = 0) {
  constexpr double kBase = 32e6, kPerPort = 4096, kPerFlow = 2048, kPerRecord = 640;
  size_t switches = 0;
  for (const auto& n : g.nodes) {
    switches += n.is_nic() ? 0 : 1;
  }
  const double ports = 2.0 * static_cast<double>(g.links.size());
  return kBase + kPerPort * ports + route_table_bytes(switches, g.hosts.size()) +
         kPerFlow * static_cast<double>(flows) + kPerRecord * records;
}

// Refuses the run if its estimate is above the limit; returns the estimate.
// `records`: messages kept a record each; `can_aggregate`: collective messages among them that output.flows:
// aggregate would keep per call instead.
double check_memory(const Scenario& sc, size_t flows, const std::string& key, int line, double records = 0,
                    bool can_aggregate = false) {
  const double need = estimated_memory(sc.graph, flows, records);
  if (sc.memory_limit > 0 && need > sc.memory_limit) {
    throw InputError(
        sc.file, line, key,
        fmt::format("the run would need about {:.3g} GB ({} nodes, {} links, {} flows{}), above the "
                    "{:.3g} GB that {} leaves it: simulate less{}",
                    need / 1e9, sc.graph.nodes.size(), sc.graph.links.size(), flows,
                    records > 0 ? fmt::format(", {:.0f} message records", records) : "", sc.memory_limit / 1e9,
                    sc.memory_limit_source,
                    can_aggregate ? ", or keep collective messages per call (output.flows: aggregate)" : ""));
  }
  return need;
}

}  // namespace

Partitioning Simulation::plan_partitions() {
  threads_ = resolve_threads(sc_.engine.threads);
  const wire::Fabric fabric = fabric_of(sc_.top.fabric);
  const std::vector<std::string>& assign = sc_.engine.assign;
  if (!assign.empty() && sc_.engine.partitions != "auto" &&
      std::stoll(sc_.engine.partitions) != static_cast<int64_t>(assign.size())) {
    throw InputError(sc_.file, line_of(sc_.engine_node["partitions"]), "engine.partitions",
                     fmt::format("{} partitions, but engine.assign gives {}: leave it out, or make them agree",
                                 sc_.engine.partitions, assign.size()));
  }
  const size_t units = sc_.graph.nodes.empty() ? 0 : [&] {
    const std::vector<uint32_t> u = units_of(sc_.graph);
    return static_cast<size_t>(*std::max_element(u.begin(), u.end())) + 1;
  }();
  size_t parts = assign.empty() ? static_cast<size_t>(threads_) : assign.size();
  if (assign.empty() && sc_.engine.partitions != "auto") {
    parts = static_cast<size_t>(std::stoll(sc_.engine.partitions));
    if (parts > units) {
      throw InputError(sc_.file, line_of(sc_.engine_node["partitions"]), "engine.partitions",
                       fmt::format("{} partitions, but the network has only {} switches and servers to share out "
                                   "(a switch, or a server with its NICs, is never cut)",
                                   parts, units));
    }
  }
  if (assign.empty()) {
    parts = std::max<size_t>(1, std::min(parts, units));
  }
  if (parts > 1) {
    if (const size_t joins = zero_delay_joins(sc_.graph); joins > 0) {
      notes_.push_back(
          fmt::format("engine: {} link{} without delay keep the nodes at their ends in one partition "
                      "(a cut needs latency): {} switches and servers to share out",
                      joins, joins == 1 ? "" : "s", units));
    }
  }
  if (!assign.empty()) {
    try {
      return partition_named(sc_.graph, assign, fabric);
    } catch (const AssignmentError& e) {
      const YAML::Node n = sc_.engine_node["assign"];
      const YAML::Node at = e.partition < assign.size() && n.IsSequence() ? n[e.partition] : n;
      throw InputError(
          sc_.file, line_of(at), "engine.assign",
          e.partition < assign.size() ? fmt::format("partition {}: {}", e.partition, e.message) : e.message);
    }
  }
  return partition_fabric(sc_.graph, parts, fabric);
}

void Simulation::build() {
  check_memory(sc_, 0, "topology", 0);
  net_ = std::make_unique<Network>(*engine_, sc_.graph, sc_.sw, sc_.nic, *sc_.cc, fabric_of(sc_.top.fabric), sc_.ib,
                                   sc_.file);
  if (net_->fabric() == wire::Fabric::kInfiniband) {
    net_->use_credits(sc_.ib);
  }
  net_->schedule_events(sc_.events, sc_.routing, sc_.file);
  if (sc_.routing.ecmp == "hpcc-ns3") {
    net_->use_hpcc_ecmp(static_cast<uint16_t>(sc_.routing.ecmp_dport));
  }
  if (sc_.balance) {
    net_->use_balance(*sc_.balance);
  }
  net_->attach_servers(sc_.server, sc_.file);
  net_->set_tcp(sc_.tcp, *sc_.tcp_cc);
  const ParseCtx ctx{sc_.file, &sc_.inputs};
  WorkloadContext wc{
      static_cast<uint32_t>(net_->num_hosts()), sc_.top.stop, sc_.base_dir, {}, {}, {}, {}, sc_.server.gpus};
  for (uint32_t h = 0; h < net_->num_hosts(); ++h) {
    wc.host_rate.push_back(net_->nic(h).link().rate);
    wc.endpoint_names.push_back(net_->nic(h).name());
  }
  for (size_t s = 0; s < net_->num_servers(); ++s) {
    wc.server_nics.emplace_back();
    for (size_t k = 0; k < net_->server(s).num_nics(); ++k) {
      wc.server_nics.back().push_back(net_->server(s).endpoint(k));
    }
  }
  wc.node_host.assign(sc_.graph.nodes.size(), -1);
  for (size_t h = 0; h < sc_.graph.hosts.size(); ++h) {
    wc.node_host[sc_.graph.hosts[h]] = static_cast<int>(h);
  }
  nlohmann::json workloads = nlohmann::json::array();
  std::vector<std::string> deferred_warnings;
  if (sc_.workload_node.IsSequence()) {
    for (size_t i = 0; i < sc_.workload_node.size(); ++i) {
      const std::string path = "workload." + std::to_string(i);
      Rng rng = sim().rng(path);
      WorkloadFlows w = generate_workload(sc_.workload_node[i], ctx, path, wc, rng);
      check_memory(sc_, net_->setup_flows() + w.flows.size(), path, line_of(sc_.workload_node[i]));
      const auto base = static_cast<int64_t>(net_->setup_flows());
      bool tcp_lossless = false;
      for (FlowSpec& f : w.flows) {
        if (f.after >= 0) {
          f.after += base;  // an index into this workload's flows becomes a flow id
        }
        if (!net_->priority_usable(f.priority)) {
          throw InputError(sc_.file, line_of(sc_.workload_node[i]), path + ".priority",
                           "no DSCP in switch.dscp_map selects priority " + std::to_string(f.priority));
        }
        f.workload = static_cast<uint16_t>(i);
        if (f.transport != Transport::kRdma && net_->fabric() == wire::Fabric::kInfiniband) {
          throw InputError(sc_.file, line_of(sc_.workload_node[i]["transport"]), path + ".transport",
                           std::string(to_string(f.transport)) +
                               " runs over Ethernet and IP; fabric: infiniband carries RDMA only (IP over "
                               "InfiniBand is not modelled)");
        }
        uses_tcp_ = uses_tcp_ || f.transport != Transport::kRdma;
        tcp_lossless = tcp_lossless ||
                       (f.transport == Transport::kTcp &&
                        std::ranges::find(sc_.sw.pfc.priorities, int64_t{f.priority}) != sc_.sw.pfc.priorities.end());
        net_->add_flow(f);
      }
      if (w.install) {
        if (auto report = w.install(*net_, static_cast<uint16_t>(i))) {
          reports_.push_back(std::move(report));
        }
      }
      // Kernel TCP recovers from loss; on a lossless class it is paused instead, and its pauses reach the RDMA
      // traffic sharing the class.
      if (tcp_lossless && !sc_.tcp.lossless_ok) {
        deferred_warnings.push_back(fmt::format(
            "{}:{}: {}.transport: kernel TCP on priority {}, which switch.pfc.priorities makes lossless: it is paused "
            "instead of dropping, and its pauses hold the RDMA traffic of that priority; give the workload a lossy "
            "priority (e.g. priority: 0), or set tcp.lossless_ok: true if this is meant",
            sc_.file, line_of(sc_.workload_node[i]["transport"]), path, w.flows.front().priority));
      }
      workloads.push_back(w.resolved);
      workload_flows_.push_back(w.flows.size());
      workload_fct_.push_back(!w.install);
    }
  }
  keep_records();
  warnings_ = sc_.graph.warnings;
  warnings_.insert(warnings_.end(), sc_.fabric_warnings.begin(), sc_.fabric_warnings.end());
  warnings_.insert(warnings_.end(), deferred_warnings.begin(), deferred_warnings.end());
  for (const auto& [use, section] :
       {std::pair{&sc_.preset, "switch"}, std::pair{&sc_.server_preset, "server"}, std::pair{&sc_.nic_preset, "nic"}}) {
    if (!*use) {
      continue;
    }
    for (const PresetUse::Override& o : (*use)->overrides) {
      warnings_.push_back(fmt::format("{}: {} is {}, not {}.preset {}'s {}: the scenario's value applies", sc_.file,
                                      o.key, o.value, section, (*use)->name, o.preset_value));
    }
  }
  // Explicit PFC headroom below what a link needs: frames sent after XOFF overflow it and are dropped.
  {
    int ports = 0;
    Bytes need;
    std::string example;
    for (const auto& sw : net_->switches()) {
      const ShortHeadroom& h = sw->short_headroom();
      if (h.ports > 0 && (ports == 0 || h.need > need)) {
        need = h.need;
        example = sw->name() + ":" + std::to_string(h.example);
      }
      ports += h.ports;
    }
    if (ports > 0) {
      warnings_.push_back(fmt::format(
          "{}: switch.pfc.headroom {} is below what {} switch port(s) need for their links (up to {}, at {}): frames "
          "in flight after a pause can overflow it and be dropped (headroom_overflow); auto sizes it per link",
          sc_.file, sc_.sw.pfc.headroom, ports, to_string(need), example));
    }
  }
  for (std::string& w : overload_warnings(*net_, sc_.top.stop)) {
    warnings_.push_back(sc_.file + ": " + w);
  }
  if (sc_.sw.pfc.deadlock.detect_after > Time()) {
    deadlock_ = std::make_unique<DeadlockDetector>(sc_.sw.pfc.deadlock, sc_.sw.pfc.priorities, *engine_, *net_);
  }
  resolved_ = ScenarioParams::schema().dump(sc_.top);
  resolved_["topology"] = sc_.graph.resolved;
  resolved_["switch"] = SwitchParams::schema().dump(sc_.sw);
  if (sc_.preset) {  // the values above already hold the preset's; summary.json says which keys overrode it
    resolved_["switch"]["preset"] = sc_.preset->name;
  }
  resolved_["nic"] = NicParams::schema().dump(sc_.nic);
  if (sc_.nic_preset) {
    resolved_["nic"]["preset"] = sc_.nic_preset->name;
  }
  resolved_["nic"]["cc"] = sc_.cc->dump();
  if (sc_.top.fabric == "infiniband") {
    resolved_["infiniband"] = InfinibandParams::schema().dump(sc_.ib);
  }
  if (uses_tcp_) {
    resolved_["tcp"] = TcpParams::schema().dump(sc_.tcp);
    resolved_["tcp"]["cc"] = sc_.tcp_cc->dump();
    resolved_["tcp"]["cpu_cores"] = sc_.server.cpu_cores;
    resolved_["tcp"]["cpu_ghz"] = sc_.server.cpu_ghz;
  }
  if (sc_.server.gpus > 0) {
    resolved_["server"] = ServerParams::schema().dump(sc_.server);
    if (sc_.server_preset) {
      resolved_["server"]["preset"] = sc_.server_preset->name;
    }
  }
  resolved_["workload"] = workloads;
  resolved_["output"] = OutputParams::schema().dump(sc_.output);
  resolved_["routing"] = RoutingParams::schema().dump(sc_.routing);
  if (sc_.balance) {
    resolved_["routing"]["balance"] = sc_.balance->dump();
  }
  if (!sc_.events.empty()) {
    nlohmann::json ev = nlohmann::json::array();
    for (const FabricEvent& e : sc_.events) {
      nlohmann::json one = {{"at", to_string(e.at)},
                            {"type", to_string(e.kind)},
                            {e.is_fault()  ? "nic"
                             : e.on_link() ? "link"
                                           : "switch",
                             e.target}};
      if (e.is_fault()) {
        one["priority"] = e.prio;
        one["until"] = e.until == Time::max() ? nlohmann::json() : nlohmann::json(to_string(e.until));
      }
      if (e.kind == FabricEvent::Kind::kSlowReceiver) {
        one["rate"] = to_string(e.rate);
      }
      ev.push_back(one);
    }
    resolved_["events"] = ev;
  }
  if (sc_.capture) {
    resolved_["capture"] = CaptureParams::schema().dump(*sc_.capture);
  }
  make_outputs();
}

void Simulation::keep_records() {
  // Past this many collective messages, auto keeps them per call and queue pair (one kept each is about 600 MB).
  constexpr double kAutoAggregate = 1e6;
  const ExpectedTraffic& e = net_->expected();
  std::string& mode = sc_.output.flows;
  if (mode == "auto") {
    const bool many = e.messages > kAutoAggregate;
    const bool fits =
        sc_.memory_limit <= 0 || estimated_memory(sc_.graph, net_->setup_flows(), e.messages) <= sc_.memory_limit;
    mode = many || !fits ? "aggregate" : "all";
    if (mode == "aggregate") {
      notes_.push_back(
          fmt::format("output.flows: {:.0f} collective messages{}: each call's messages are summed per queue pair in "
                      "messages.csv (output.flows: all keeps a flows.csv row for each)",
                      e.messages,
                      fits ? ""
                           : fmt::format(", too many to keep one record each in the {:.3g} GB that {} leaves",
                                         sc_.memory_limit / 1e9, sc_.memory_limit_source)));
    }
  }
  net_->group_records(mode != "all");
  const YAML::Node& out = sc_.output_node;
  // Not set: the line of the workloads that post the messages.
  const int line = out.IsMap() && out["flows"] ? line_of(out["flows"]) : line_of(sc_.workload_node);
  // perftest keeps a record of each message whatever output.flows says.
  const bool collective_records = mode == "all" && e.messages > 0;
  memory_estimate_ = check_memory(sc_, net_->setup_flows(), collective_records ? "output.flows" : "workload",
                                  collective_records ? line : line_of(sc_.workload_node),
                                  (mode == "all" ? e.messages : e.groups) + e.perftest_messages, collective_records);
}

void Simulation::check_named_results() const {
  const std::vector<std::string> fixed = fixed_output_names();
  for (const Scenario::NamedResult& r : sc_.named_results) {
    bool taken = std::ranges::find(fixed, r.name) != fixed.end();
    for (const OutputKind& k : output_kinds()) {  // capture.file may be capture.pcap, its own
      taken = taken && !(r.key.starts_with(k.name + ".") && std::ranges::find(k.files, r.name) != k.files.end());
    }
    if (taken) {
      throw InputError(sc_.file, r.line, r.key,
                       "'" + r.name + "' is a result rocesim writes under that name (docs/outputs.md); choose another");
    }
  }
}

void Simulation::make_outputs() {
  for (const OutputKind& k : output_kinds()) {
    if (auto o = k.make(*this)) {
      outputs_.push_back(std::move(o));
    }
  }
}

double Simulation::run(const std::function<void(const RunProgress&)>& progress, uint64_t progress_every) {
  const auto t0 = std::chrono::steady_clock::now();
  if (engine_->held() > 0) {
    engine_->run(sc_.top.stop, progress, progress_every);
  }
  for (const auto& o : outputs_) {
    o->collect();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace rocesim
