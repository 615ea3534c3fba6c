#include "rocesim/app/flows_app.hpp"

namespace rocesim {

void FlowsApp::add(Host& host, uint32_t qp, const FlowSpec& spec, uint32_t id) {
  WorkRequest wr;
  wr.wr_id = id;
  wr.op = spec.op;
  wr.size = spec.size;
  wr.workload = spec.workload;
  wr.app_port = spec.app_port;
  wr.signaled = true;
  if (spec.after >= 0) {
    waiting_[static_cast<uint32_t>(spec.after)].push_back({qp, wr, id});
    host.hold();  // the run waits for it even while nothing is posted
    return;
  }
  host.post(qp, wr, spec.start, id);
}

void FlowsApp::on_completion(Host& host, const Completion& c) {
  if (c.kind != WcKind::kSend) {
    return;
  }
  const auto it = waiting_.find(static_cast<uint32_t>(c.wr_id));
  if (it == waiting_.end()) {
    return;
  }
  for (const Waiting& w : it->second) {
    host.post(w.qp, w.wr, host.now(), w.id);
    host.release();
  }
  waiting_.erase(it);
}

}  // namespace rocesim
