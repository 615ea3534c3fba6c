// Outputs in the HPCC ns-3 simulator's formats (docs/hpcc-compat.md), so that its analysis scripts
// (fct_analysis.py and friends) run unchanged on rocesim results: fct.txt, pfc.txt and the qlen histogram.
#pragma once

#include <string>
#include <vector>

#include "rocesim/cluster/network.hpp"
#include "rocesim/cluster/output.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/engine/journal.hpp"

namespace rocesim {

struct HpccOutputParams {
  std::string fct, pfc, qlen;  // file names in the output folder; empty: not written
  Time qlen_start, qlen_end, qlen_interval;
  static const Schema<HpccOutputParams>& schema();
  bool any() const { return !fct.empty() || !pfc.empty() || !qlen.empty(); }
};

// Contract: reads the network only (PFC frames as nodes receive them; queues between windows), the same files for
// every cut.
class HpccOutputs final : public PfcObserver, public Observer, public Output {
 public:
  HpccOutputs(const HpccOutputParams& p, Engine& engine, Network& net);
  ~HpccOutputs();
  HpccOutputs(const HpccOutputs&) = delete;
  HpccOutputs& operator=(const HpccOutputs&) = delete;

  // `sip dip sport dport size start_ns fct_ns standalone_fct_ns`, one line per finished flow, in finishing order.
  std::string fct_txt() const;
  // `time_ns node_id node_type if_index type`: each PFC frame a node received (type 1 pause, 0 resume;
  // node_type 0 host, 1 switch; if_index = port + 1, as ns-3 numbers devices after the loopback).
  const std::string& pfc_txt() const { return pfc_; }
  // After the run: takes in the PFC lines nodes wrote.
  void collect() override;
  // The files output.hpcc names.
  OutputFiles files(const OutputContext&) override;
  // "time: <ns>" then, per switch port, "<switch id> <if_index> <count of samples with 0 KB> <1 KB> ...".
  std::string qlen_txt() const;
  // The HPCC convention for the ideal: base RTT (2 x delay + one MTU's serialisation per hop) plus the bytes and
  // every packet's headers at the bottleneck rate.
  Time standalone_fct(const FlowRecord& f) const;

  void on_pfc(const Node& node, uint16_t port, bool pause) override;
  // Samples every switch port's queue into the histogram.
  Time look(Time now) override;

 private:
  HpccOutputParams p_;
  Engine& engine_;
  Network& net_;
  Journal<std::string> pfc_lines_;  // per partition, until collected
  std::string pfc_;
  std::vector<std::vector<std::vector<uint32_t>>> qlen_;  // [switch][port][kb]
  Time qlen_last_;
};

}  // namespace rocesim
