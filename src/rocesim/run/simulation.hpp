// The run: a scenario built into its engine, network and workloads, with the recorders its outputs read, and
// run to its end. The composition root of a simulation; the commands (cli/) and the tests drive it.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/cluster/deadlock.hpp"
#include "rocesim/cluster/network.hpp"
#include "rocesim/cluster/output.hpp"
#include "rocesim/engine/engine.hpp"
#include "rocesim/io/scenario.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {

// A built simulation: kernel, network, flows.
class Simulation {
 public:
  explicit Simulation(Scenario sc);
  // Its outputs and the network's nodes hold references into it.
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;
  // The first partition's simulator: the whole run's in a run of one partition (what tests step through), and
  // the random streams' seed in any.
  Simulator& sim() { return engine_->sim(0); }
  Engine& engine() { return *engine_; }
  const Engine& engine() const { return *engine_; }
  // Where the run ended, and the events it ran (every partition's).
  Time now() const { return engine_->now(); }
  uint64_t events() const { return engine_->events(); }
  // Ends a run at the next window boundary.
  void request_stop() { engine_->request_stop(); }
  // Said once on the terminal, never in results: why the run has fewer partitions than asked (results are the
  // same whatever the engine's settings), and what output.flows: auto chose.
  const std::vector<std::string>& notes() const { return notes_; }
  Network& net() { return *net_; }
  const Network& net() const { return *net_; }
  const Scenario& scenario() const { return sc_; }
  nlohmann::json resolved() const { return resolved_; }
  // The run's outputs (run/outputs.hpp), in the order their files are listed.
  const std::vector<std::unique_ptr<Output>>& outputs() const { return outputs_; }
  // The output of type T (a Capture, a Trace, ...), if the scenario asked for one; else null.
  template <class T>
  T* output() {
    for (const auto& o : outputs_) {
      if (auto* t = dynamic_cast<T*>(o.get())) {
        return t;
      }
    }
    return nullptr;
  }
  template <class T>
  const T* output() const {
    return const_cast<Simulation*>(this)->output<T>();
  }
  // The PFC deadlock detector, if switch.pfc.deadlock.detect_after turned it on.
  const DeadlockDetector* deadlock() const { return deadlock_.get(); }
  // What workloads' applications measure beyond the flows (perftest's tables, collectives), in workload order.
  const std::vector<std::shared_ptr<Output>>& reports() const { return reports_; }
  // Flows each workload created.
  const std::vector<size_t>& workload_flow_counts() const { return workload_flows_; }
  // Per workload: whether its messages are flows whose FCTs answer it (a flow workload), not an application's
  // (perftest, collectives), which reports its own figures.
  const std::vector<bool>& workload_fct() const { return workload_fct_; }
  // What the scenario asks for that is probably not what its author meant, found while building it (a receiver
  // offered more than its link rate, inputs a topology builder cannot honour). The command line prints them;
  // summary.json lists them.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The memory the run is estimated to hold at most (what the memory limit is checked against), in bytes.
  double memory_estimate() const { return memory_estimate_; }
  // Runs to the stop time or until every flow has finished. Returns the wall time in seconds.
  double run(const std::function<void(const RunProgress&)>& progress = {}, uint64_t progress_every = 1 << 18);

 private:
  void build();
  // Which message records the run keeps (output.flows), from what the installed workloads will post; refuses a
  // run whose records would not fit in memory.
  void keep_records();
  Partitioning plan_partitions();
  // Refuses a file name the scenario gives (capture.file, output.hpcc.*) that another output writes.
  void check_named_results() const;
  // Makes the outputs the scenario asks for.
  void make_outputs();
  Scenario sc_;
  int threads_ = 1;
  std::vector<std::string> notes_;
  double memory_estimate_ = 0;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Network> net_;
  std::unique_ptr<DeadlockDetector> deadlock_;
  std::vector<std::unique_ptr<Output>> outputs_;
  std::vector<size_t> workload_flows_;
  std::vector<bool> workload_fct_;
  std::vector<std::shared_ptr<Output>> reports_;
  std::vector<std::string> warnings_;
  nlohmann::json resolved_;
  bool uses_tcp_ = false;  // some flow runs over TCP or iWARP
};

}  // namespace rocesim
