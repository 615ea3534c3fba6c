#include "rocesim/analysis/results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "rocesim/analysis/headlines.hpp"
#include "rocesim/analysis/highlights.hpp"
#include "rocesim/analysis/output_params.hpp"
#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/analysis/pfc_rollup.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim {

double percentile(std::vector<double>& v, double q) {
  if (v.empty()) {
    return std::nan("");
  }
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[rank == 0 ? 0 : rank - 1];
}

double slowdown(Time fct, Time ideal) {
  if (ideal.ps() <= 0) {
    return 1.0;
  }
  // Not clipped at 1: the ideal is a lower bound (Network::ideal_fct), and a value below 1 would show it is not.
  return static_cast<double>(fct.ps()) / static_cast<double>(ideal.ps());
}

std::string flows_csv(const Network& net) {
  std::string out =
      "flow_id,src,dst,size_bytes,priority,start_ns,end_ns,fct_ns,ideal_fct_ns,slowdown,retransmits,cnps,operation,"
      "status,delivered_bytes,src_name,dst_name,out_of_order\n";
  for (const auto& f : net.flows()) {
    const auto ns = [](Time t) { return fmt::format("{:.3f}", static_cast<double>(t.ps()) / 1000.0); };
    const std::string src = csv_field(net.nics()[f.spec.src]->name());
    const std::string dst = csv_field(net.nics()[f.spec.dst]->name());
    if (f.done) {
      const Time fct = f.end - f.spec.start;
      out += fmt::format("{},{},{},{},{},{},{},{},{},{:.4f},{},{},{},ok,{},{},{},{}\n", f.id, f.spec.src, f.spec.dst,
                         f.spec.size.count(), f.spec.priority, ns(f.spec.start), ns(f.end), ns(fct), ns(f.ideal_fct),
                         slowdown(fct, f.ideal_fct), f.retransmits, f.cnps, to_string(f.spec.op), f.delivered, src, dst,
                         f.out_of_order);
    } else {  // a failed message's end is when its QP went to the error state
      out += fmt::format("{},{},{},{},{},{},{},,{},,{},{},{},{},{},{},{},{}\n", f.id, f.spec.src, f.spec.dst,
                         f.spec.size.count(), f.spec.priority, ns(f.spec.start), f.failed ? ns(f.end) : "",
                         ns(f.ideal_fct), f.retransmits, f.cnps, to_string(f.spec.op),
                         f.failed ? "failed" : "unfinished", f.delivered, src, dst, f.out_of_order);
    }
  }
  return out;
}

std::string messages_csv(const Network& net) {
  std::string out =
      "workload,instance,src,dst,messages,size_bytes,priority,start_ns,end_ns,time_ns,retransmits,cnps,operation,"
      "status,delivered_bytes,src_name,dst_name\n";
  const auto ns = [](Time t) { return fmt::format("{:.3f}", static_cast<double>(t.ps()) / 1000.0); };
  for (const FlowRecord& g : net.message_groups()) {
    const char* status = g.failed ? "failed" : g.done ? "ok" : "unfinished";
    const bool ended = g.failed || g.done;
    out += fmt::format("workload.{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", g.spec.workload, g.group,
                       g.spec.src, g.spec.dst, g.messages, g.spec.size.count(), g.spec.priority, ns(g.spec.start),
                       ended ? ns(g.end) : "", ended ? ns(g.end - g.spec.start) : "", g.retransmits, g.cnps,
                       to_string(g.spec.op), status, g.delivered, csv_field(net.nics()[g.spec.src]->name()),
                       csv_field(net.nics()[g.spec.dst]->name()));
  }
  return out;
}

nlohmann::json message_groups_json(const Network& net, const std::string& records) {
  int64_t messages = 0, groups = 0, done = 0, failed = 0, retx = 0, cnps = 0;
  for (const FlowRecord& g : net.message_groups()) {
    ++groups;
    messages += g.messages;
    done += g.done;
    failed += g.failed;
    retx += g.retransmits;
    cnps += g.cnps;
  }
  return {{"records", records},      {"groups", groups},    {"messages", messages}, {"groups_completed", done},
          {"groups_failed", failed}, {"retransmits", retx}, {"cnps", cnps}};
}

std::string ports_csv(const Network& net, Time now) {
  std::string out =
      "switch,port,peer,priority,tx_bytes,tx_packets,max_queue_bytes,ecn_marked,drops_shared_limit,"
      "drops_headroom_overflow,drops_buffer_full,drops_link_down,drops_no_route,pause_sent,resume_sent,pause_rcvd,"
      "paused_ns,max_headroom_bytes,drops_watchdog,peer_endpoint,credit_wait_ns\n";
  std::unordered_map<const Node*, uint32_t> endpoint;  // a NIC's endpoint index
  for (uint32_t h = 0; h < net.num_hosts(); ++h) {
    endpoint[net.nics()[h].get()] = h;
  }
  for (const auto& sw : net.switches()) {
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      const PauseState& ps = sw->pause_state(p);
      const Node* peer_node = sw->link(p).peer;
      const std::string peer = peer_node ? csv_field(peer_node->name()) : "";
      const auto e = endpoint.find(peer_node);
      const std::string peer_endpoint = e == endpoint.end() ? "" : std::to_string(e->second);
      for (int c = 0; c < 8; ++c) {
        const auto& k = sw->counters(p, c);
        const Time paused = paused_for(ps, c, now);
        const bool quiet = k.tx_packets == 0 && k.rx_bytes == 0 && ps.xoff_rcvd[c] == 0 && k.xoff_sent == 0 &&
                           k.drops[static_cast<int>(DropReason::kLinkDown)] == 0 &&
                           k.drops[static_cast<int>(DropReason::kWatchdog)] == 0;
        if (quiet) {
          continue;
        }
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{},{},{},{:.3f}\n",
                           csv_field(sw->name()), p, peer, c, k.tx_bytes, k.tx_packets, k.max_queue, k.ecn_marked,
                           k.drops[0], k.drops[1], k.drops[2], k.drops[3], k.drops[4], k.xoff_sent, k.xon_sent,
                           ps.xoff_rcvd[c], static_cast<double>(paused.ps()) / 1000.0, k.max_headroom, k.drops[5],
                           peer_endpoint, k.credit_wait.ns_f());
      }
    }
  }
  return out;
}

std::vector<SizeBucket> slowdown_by_size(const Network& net, const std::vector<int64_t>& edges, Time warmup) {
  std::vector<SizeBucket> out;
  int64_t lo = 0;
  for (int64_t e : edges) {
    out.push_back({lo, e});
    lo = e;
  }
  out.push_back({lo, -1});
  std::vector<std::vector<double>> sd(out.size());
  for (const auto& f : net.flows()) {
    if (!measured(f, warmup)) {
      continue;
    }
    size_t k = 0;
    while (k + 1 < out.size() && f.spec.size.count() > out[k].hi) {
      ++k;
    }
    sd[k].push_back(slowdown(f.end - f.spec.start, f.ideal_fct));
  }
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].flows = sd[k].size();
    if (!sd[k].empty()) {
      out[k].p50 = percentile(sd[k], 0.5);
      out[k].p95 = percentile(sd[k], 0.95);
      out[k].p99 = percentile(sd[k], 0.99);
    }
  }
  return out;
}

std::string buckets_csv(const std::vector<SizeBucket>& buckets) {
  std::string out = "lo_bytes,hi_bytes,flows,p50,p95,p99\n";
  for (const auto& b : buckets) {
    const std::string hi = b.hi < 0 ? "" : std::to_string(b.hi);
    if (b.flows) {
      out += fmt::format("{},{},{},{:.4f},{:.4f},{:.4f}\n", b.lo, hi, b.flows, b.p50, b.p95, b.p99);
    } else {
      out += fmt::format("{},{},0,,,\n", b.lo, hi);
    }
  }
  return out;
}

std::string engine_json(const Engine& engine, const TopologyGraph& g) {
  const EngineProfile prof = engine.profile();
  struct Shape {
    int64_t switches = 0, nics = 0, link_ends = 0;
  };
  std::vector<Shape> shape(engine.partitions());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Shape& sh = shape[engine.partition_of(static_cast<uint32_t>(i))];
    ++(g.nodes[i].is_nic() ? sh.nics : sh.switches);
  }
  for (const TopoLink& l : g.links) {
    ++shape[engine.partition_of(static_cast<uint32_t>(l.a))].link_ends;
    ++shape[engine.partition_of(static_cast<uint32_t>(l.b))].link_ends;
  }
  nlohmann::json parts = nlohmann::json::array();
  for (size_t p = 0; p < prof.parts.size(); ++p) {
    parts.push_back({{"switches", shape[p].switches},
                     {"nics", shape[p].nics},
                     {"link_ends", shape[p].link_ends},
                     {"events", prof.parts[p].events},
                     {"received", prof.parts[p].received}});
  }
  nlohmann::json threads = nlohmann::json::array();
  for (const EngineProfile::Thread& t : prof.threads) {
    threads.push_back({{"busy_s", t.busy_s}, {"sync_s", t.sync_s}});
  }
  const uint64_t events = engine.events();
  auto ratio = [](uint64_t a, uint64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; };
  nlohmann::json j;
  j["threads"] = engine.threads();
  j["partitions"] = engine.partitions();
  j["lookahead_ns"] = static_cast<double>(engine.cut().lookahead.ps()) / 1e3;
  j["windows"] = prof.windows;
  j["events"] = events;
  j["events_per_window"] = ratio(events, prof.windows);
  j["crossings"] = engine.crossings();
  j["critical_events"] = prof.critical_events;
  j["speedup_bound"] = ratio(events, prof.critical_events);
  j["critical_thread_events"] = prof.critical_thread_events;
  j["thread_speedup_bound"] = ratio(events, prof.critical_thread_events);
  j["by_partition"] = std::move(parts);
  j["by_thread"] = std::move(threads);
  return j.dump(2) + "\n";
}

std::string nics_csv(const Network& net, Time now) {
  std::string out =
      "host,tx_bytes,rx_bytes,data_sent,data_rcvd,ctrl_sent,ctrl_rcvd,acks_sent,naks_sent,cnps_sent,pause_rcvd,"
      "paused_ns,lost_link_down,pause_sent,resume_sent,rx_buffer_max_bytes,rx_dropped,cpu_s,server,nic,name,"
      "credit_wait_ns\n";
  std::vector<std::pair<std::string, size_t>> where(net.num_hosts());  // per NIC: its server and index there
  for (size_t s = 0; s < net.num_servers(); ++s) {
    for (size_t k = 0; k < net.server(s).num_nics(); ++k) {
      where[net.server(s).endpoint(k)] = {csv_field(net.server(s).name()), k};
    }
  }
  for (uint32_t h = 0; h < net.num_hosts(); ++h) {
    const Nic& n = *net.nics()[h];
    const NicCounters k = n.counters();
    const PauseState& ps = n.pause_state();
    int64_t pauses = 0;
    Time paused;
    for (int c = 0; c < 8; ++c) {
      pauses += ps.xoff_rcvd[c];
      paused += paused_for(ps, c, now);
    }
    Time credit_wait;
    if (const CreditTx* ct = n.credit_tx()) {
      for (int c = 0; c < 8; ++c) {
        credit_wait += ct->waited_until(c, now);
      }
    }
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{},{},{},{},{},{:.9f},{},{},{},{:.3f}\n", h, k.tx_bytes,
                       k.rx_bytes, k.data_sent, k.data_rcvd, k.ctrl_sent, k.ctrl_rcvd, k.acks_sent, k.naks_sent,
                       k.cnps_sent, pauses, static_cast<double>(paused.ps()) / 1000.0, k.lost_link_down, k.pause_sent,
                       k.resume_sent, k.rx_buffer_max, k.rx_dropped, n.cpu_time().sec_f(), where[h].first,
                       where[h].second, csv_field(n.name()), credit_wait.ns_f());
  }
  return out;
}

std::string summary_table(const nlohmann::json& s) {
  auto num = [](const nlohmann::json& v) -> std::string {
    if (v.is_null()) {
      return "-";
    }
    if (v.is_number_float()) {
      return fmt::format("{:.3f}", v.get<double>());
    }
    return v.dump();
  };
  std::string t;
  t += fmt::format("  simulated        {:.3f} ms in {:.2f} s wall ({} events){}\n",
                   s["sim_time_ns"].get<double>() / 1e6, s["wall_time_s"].get<double>(), num(s["events"]),
                   s.contains("partial") ? ": cut short by " + s.value("partial_reason", std::string("an interrupt")) +
                                               ", results are partial"
                                         : "");
  if (s.contains("switch_preset")) {
    const size_t over = s["switch_preset"]["overridden"].size();
    t += fmt::format(
        "  switch preset    {}{}\n", s["switch_preset"]["name"].get<std::string>(),
        over ? fmt::format(", {} of its keys set by the scenario (summary.json: switch_preset)", over) : "");
  }
  t += workload_headlines(s);
  // A run of collectives alone, kept per call: no flows to count or rank.
  const bool only_groups = s.contains("message_groups") && s["flows"]["total"].get<int64_t>() == 0;
  const bool fct = reports_fct(s);
  if (!only_groups && fct && !only_fct(s)) {
    // Flows beside application messages: each counted under its own name.
    for (const bool flows : {true, false}) {
      const WorkloadCounts c = workload_counts(s, flows);
      t += fmt::format("  {:16} {} completed of {}\n", flows ? "flows" : "messages", num(c.finished), num(c.created));
    }
  } else if (!only_groups) {
    t += fmt::format("  {:16} {} completed of {}{}\n", fct ? "flows" : "messages", num(s["flows"]["completed"]),
                     num(s["flows"]["total"]),
                     s["flows"]["failed"].get<int64_t>() > 0 ? ", " + num(s["flows"]["failed"]) + " failed" : "");
  }
  if (s.contains("message_groups")) {
    const auto& g = s["message_groups"];
    t +=
        fmt::format("  collective msgs  {} in {} groups per call and queue pair, {} completed{}\n", num(g["messages"]),
                    num(g["groups"]), num(g["groups_completed"]), g["records"] == "aggregate" ? " (messages.csv)" : "");
  }
  t += highlights_table(s);
  if (!only_groups && only_fct(s)) {
    t += fmt::format("  FCT slowdown     p50 {}  p95 {}  p99 {}\n", num(s["fct_slowdown"]["p50"]),
                     num(s["fct_slowdown"]["p95"]), num(s["fct_slowdown"]["p99"]));
  }
  // InfiniBand: credits instead of pauses, FECN and BECN instead of ECN and CNPs.
  const bool ib = s.contains("credits");
  if (ib) {
    const auto& c = s["credits"];
    std::string most;
    for (const auto& w : c["most_waiting"]) {
      most += fmt::format("{}{} VL{} {}", most.empty() ? "; longest: " : ", ", w["port"].get<std::string>(),
                          w["vl"].get<int>(), time_text(w["wait_ns"].get<double>()));
    }
    t += fmt::format("  credit waits     {} in all on {} virtual lanes{}\n", time_text(c["wait_ns"].get<double>()),
                     num(c["lanes_waiting"]), most);
  } else {
    t += fmt::format("  PFC              {} pause frames, {} resume frames\n", num(s["pfc"]["pause_frames"]),
                     num(s["pfc"]["resume_frames"]));
  }
  t += pfc_rollup_table(s);
  if (s.contains("pause_spread")) {
    for (const auto& p : s["pause_spread"]) {
      const int64_t ports = p["ports_paused"].get<int64_t>(), hops = p["max_hops"].get<int64_t>();
      t += fmt::format("  pause spread     from {} (priority {}): {} {} paused, up to {} hop{} away\n",
                       p["source"].get<std::string>(), num(p["priority"]), ports,
                       ports == 1 ? "port or NIC" : "ports and NICs", hops, hops == 1 ? "" : "s");
    }
  }
  if (s.contains("victims")) {
    t += fmt::format(
        "  victims          {} of {} flows that never crossed the faulty NIC finished over {:.0f} % later "
        "than without the fault ({} not at all; victims.csv)\n",
        num(s["victims"]["flows"]), num(s["victims"]["of"]), s["victims"]["threshold"].get<double>() * 100,
        num(s["victims"]["unfinished"]));
  }
  if (s["pfc_watchdog"]["enabled"].get<bool>()) {
    t += fmt::format("  PFC watchdog     {} storms ({}), {} packets dropped\n", s["pfc_watchdog"]["storms"].size(),
                     s["pfc_watchdog"]["action"].get<std::string>(), num(s["pfc_watchdog"]["dropped"]));
  }
  if (s["deadlock"]["checked"].get<bool>()) {
    if (s["deadlock"]["detected"].get<bool>()) {
      for (const auto& c : s["deadlock"]["cycles"]) {
        std::string q;
        for (const auto& n : c["queues"]) {
          q += n.get<std::string>() + " -> ";
        }
        t += fmt::format("  DEADLOCK         priority {}: {}{} formed by {:.3f} us, seen at {:.3f} us{}\n",
                         num(c["priority"]), q, c["queues"][0].get<std::string>(),
                         c["formed_at_ns"].get<double>() / 1e3, c["detected_at_ns"].get<double>() / 1e3,
                         s["deadlock"]["stopped_run"].get<bool>() ? "; the run stopped there" : "");
      }
    } else {
      t += "  deadlock         none\n";
    }
  }
  t += ib ? fmt::format("  FECN / BECN      {} packets marked FECN, {} BECNs sent\n", num(s["ecn"]["marked"]),
                        num(s["cnp"]["sent"]))
          : fmt::format("  ECN / DCQCN      {} packets marked, {} CNPs sent\n", num(s["ecn"]["marked"]),
                        num(s["cnp"]["sent"]));
  std::string reasons;
  for (const auto& [reason, n] : s["drops"]["by_reason"].items()) {
    reasons += fmt::format("{}{} {}", reasons.empty() ? " (" : ", ", num(n), reason);
  }
  t += fmt::format("  drops            {} total, {} on lossless priorities{}\n", num(s["drops"]["total"]),
                   num(s["drops"]["lossless"]), reasons.empty() ? "" : reasons + ")");
  t += fmt::format("  retransmits      {}\n", num(s["transport"]["retransmits"]));
  if (const auto& r = s.value("reorder", nlohmann::json()); r.is_object() && r.value("packets", int64_t{0}) > 0) {
    const auto& deepest = r["by_depth"].back();
    const auto from = deepest["from"].get<int64_t>();
    const std::string depth = deepest["to"].is_null() ? fmt::format("{}+", from)
                              : deepest["to"].get<int64_t>() == from
                                  ? fmt::format("{}", from)
                                  : fmt::format("{}-{}", from, deepest["to"].get<int64_t>());
    t += fmt::format("  out of order     {} data packets, the deepest {} PSNs past the next expected\n",
                     num(r["packets"]), depth);
  }
  return t;
}

}  // namespace rocesim
