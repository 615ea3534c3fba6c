// The open-loop flows of the FCT workloads (poisson, incast, permutation, all-to-all, flow files) as an
// application: each flow is one message on a queue pair of its own (its own UDP source port, so ECMP spreads
// flows as it spreads QPs), posted at its start time, or when the flow it waits for has completed.
#pragma once

#include <map>
#include <vector>

#include "rocesim/app/host.hpp"

namespace rocesim {

class FlowsApp final : public Application {
 public:
  // The flow `id` on queue pair `qp` of `host` (this application's host).
  void add(Host& host, uint32_t qp, const FlowSpec& spec, uint32_t id);
  void on_completion(Host& host, const Completion& c) override;

 private:
  struct Waiting {
    uint32_t qp = 0;
    WorkRequest wr;
    uint32_t id = 0;
  };
  std::map<uint32_t, std::vector<Waiting>> waiting_;  // flow id -> flows that start when it completes
};

}  // namespace rocesim
